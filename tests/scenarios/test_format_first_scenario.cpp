// scenarios/FORMAT.md opens with a whole scenario: its first yaml block is, byte for byte,
// scenarios/catalog/teach/00_first_pipeline.yaml, and that file loads. (The model runs it to
// its expect in tests/model/test_loop_selector_runs.cpp and the catalog test.)
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "scenarios/loader.h"

using namespace tmasim;

namespace test_format_first_scenario {

namespace {
std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
}  // namespace

TEST_CASE("FORMAT.md's first yaml block is the first pipeline scenario, byte for byte") {
    const std::string root = TMASIM_SOURCE_DIR;
    const std::string doc = slurp(root + "/scenarios/FORMAT.md");
    const std::string file = slurp(root + "/scenarios/catalog/teach/00_first_pipeline.yaml");
    const std::string open = "```yaml\n";
    const size_t begin = doc.find(open);
    REQUIRE(begin != std::string::npos);
    // The first block opens the document: before the Top-level keys, the first reference section.
    CHECK(begin < doc.find("## Top-level keys"));
    const size_t end = doc.find("\n```\n", begin);
    REQUIRE(end != std::string::npos);
    CHECK(doc.substr(begin + open.size(), end + 1 - begin - open.size()) == file);
    const Scenario s = load_scenario_text(file, "00_first_pipeline.yaml");
    CHECK(s.expect.outcome == Outcome::ok);
    // It uses a loop variable in `by:`: no hand-split prologue or drain.
    bool loop_selector = false;
    for (const Op* op : s.all_ops()) loop_selector = loop_selector || op->by.per_iteration;
    CHECK(loop_selector);
}

}  // namespace test_format_first_scenario
