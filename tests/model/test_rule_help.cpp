// The rule-help table stays in step with the rule table, and what it tells a learner to
// write is spelled as the scenario format spells it.
#include <fstream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "model/core/hazard_rules.h"
#include "model/core/rule_help.h"
#include "scenarios/enums.h"

using namespace tmasim;
using namespace tmasim::model;

namespace {
std::string read_reference() {
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/docs/semantics.md");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
}  // namespace

TEST_CASE("every rule id has help, and every help entry names a rule", "[rules]") {
    for (const HazardRule& r : HazardRules::all()) {
        INFO(r.id);
        const RuleHelp* h = RuleHelpTable::find(r.id);
        REQUIRE(h != nullptr);
        CHECK(h->why.size() > 20);
        CHECK(h->fix.size() > 20);
    }
    for (const RuleHelp& h : RuleHelpTable::all()) {
        INFO(h.id);
        CHECK_NOTHROW(HazardRules::get(h.id));
    }
    CHECK(RuleHelpTable::all().size() == HazardRules::all().size());
}

TEST_CASE("each help entry's section exists in docs/semantics.md and lists the rule id", "[rules]") {
    const std::string doc = read_reference();
    REQUIRE(!doc.empty());
    for (const RuleHelp& h : RuleHelpTable::all()) {
        if (h.section.empty()) continue;
        INFO(h.id << " -> " << h.section);
        const std::string heading = "**" + h.section + ". ";
        const size_t at = doc.find(heading);
        REQUIRE(at != std::string::npos);
        // The rule id is named in its section or in the teaching table (one mention anywhere
        // would let a section silently lose it; the section itself must have it).
        const size_t next = doc.find("\n**", at + heading.size());
        const std::string section = doc.substr(at, next == std::string::npos ? std::string::npos : next - at);
        CHECK(section.find("`" + h.id + "`") != std::string::npos);
    }
}

TEST_CASE("ops a fix tells the user to add are ops of the format", "[rules]") {
    const std::regex op_ref(R"(\{op: ([a-z0-9_.]+))");
    for (const RuleHelp& h : RuleHelpTable::all()) {
        for (std::sregex_iterator m(h.fix.begin(), h.fix.end(), op_ref), end; m != end; ++m) {
            INFO(h.id << ": " << (*m)[1]);
            CHECK(parse_op_kind((*m)[1]).has_value());
        }
    }
}
