// The loader refuses an `expect.rule` that is not in scenarios/rule_ids.cpp; the model
// reports the rules of model/hazard_rules.cpp. The two lists must name the same rules with
// the same outcomes, or a scenario could expect a rule the model never reports.
#include <catch2/catch.hpp>

#include <map>

#include "model/core/hazard_rules.h"
#include "scenarios/rule_ids.h"

using namespace tmasim;

TEST_CASE("the loader's rule ids are exactly the model's rule table") {
    std::map<std::string, Outcome> model_rules, loader_rules;
    for (const model::HazardRule& r : model::HazardRules::all()) model_rules[r.id] = r.outcome;
    for (const RuleId& r : known_rule_ids()) loader_rules[r.id] = r.outcome;
    CHECK(model_rules.size() == model::HazardRules::all().size());
    CHECK(loader_rules.size() == known_rule_ids().size());
    for (const auto& [id, outcome] : model_rules) {
        INFO("model rule " << id);
        REQUIRE(loader_rules.count(id) == 1);
        CHECK(loader_rules.at(id) == outcome);
    }
    for (const auto& [id, outcome] : loader_rules) {
        INFO("loader rule " << id);
        CHECK(model_rules.count(id) == 1);
    }
}
