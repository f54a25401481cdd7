#pragma once
// The rule ids a scenario's `expect.rule` may name, with the outcome a report of each
// makes the run. The model's rule table (model/hazard_rules.cpp) is the authority on what
// each rule means; this list lets the loader refuse a misspelt rule without depending on
// the model, and tests/model/test_rule_ids.cpp keeps the two equal.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/enums.h"

namespace tmasim {

struct RuleId {
    std::string id;
    Outcome outcome;
};

const std::vector<RuleId>& known_rule_ids();
std::optional<Outcome> rule_outcome(const std::string& id);
// "did you mean race.read_before_complete?" for a misspelt rule id (scenarios/suggest.h),
// empty when no known id is near: for every place a rule id is typed (expect.rule, tmasim
// explain RULE).
std::string did_you_mean_rule(const std::string& id);

}  // namespace tmasim
