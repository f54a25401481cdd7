#include "scenarios/yaml_document.h"

#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "scenarios/source_loc.h"

namespace tmasim {
namespace {

// Sees where each document starts and builds nothing: enough to refuse a second document.
class DocumentStarts : public YAML::EventHandler {
public:
    int count = 0;
    YAML::Mark first, second;

    void OnDocumentStart(const YAML::Mark& mark) override {
        (++count == 1 ? first : second) = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

SourceLoc at(const YAML::Mark& mark, const std::string& path) { return SourceLoc{path, mark.line + 1, mark.column + 1}; }

}  // namespace

YAML::Node load_single_yaml_document(const std::string& text, const std::string& path) {
    try {
        // yaml-cpp's LoadAll loops on its own results and, on some malformed inputs, never
        // stops (a fuzzer found one that grew past 1 GB). Two bounded passes instead: count
        // at most two document starts, then build the first document only.
        std::istringstream events(text);
        YAML::Parser parser(events);
        DocumentStarts starts;
        for (int i = 0; i < 2 && parser.HandleNextDocument(starts); ++i) {
        }
        // A "second" document that starts where the first did is yaml-cpp going round in
        // circles on input it cannot read, not a `---`.
        if (starts.count > 1 && starts.second.pos <= starts.first.pos)
            throw ScenarioError(at(starts.second, path), "yaml",
                                "YAML the parser cannot read past this point; allowed: one well-formed YAML document");
        if (starts.count > 1)
            throw ScenarioError(at(starts.second, path), "yaml",
                                "a second YAML document (after ---); allowed: one scenario per file");
        return YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        throw ScenarioError(at(e.mark, path), "yaml",
                            "nested deeper than " + std::to_string(e.depth()) +
                                " levels; allowed: at most that (yaml-cpp's parser limit)");
    } catch (const YAML::Exception& e) {
        throw ScenarioError(at(e.mark, path), "yaml", e.msg);
    }
}

}  // namespace tmasim
