#pragma once
// The table of rule ids the model reports, each with its outcome, a one-line statement
// of the rule, and where it comes from (PTX section, semantics.md rule and teaching
// scenario). Messages end with the reference, so every report says which rule it broke.
#include <string>
#include <vector>

#include "scenarios/enums.h"

namespace tmasim::model {

struct HazardRule {
    std::string id;         // stable: "race.read_before_complete"
    Outcome outcome;        // what a report of it makes the run
    std::string statement;  // the rule, one sentence
    std::string reference;  // "PTX 9.7.9.25.1; semantics.md C17, scenario 2"
};

class HazardRules {
public:
    static const std::vector<HazardRule>& all();
    // Throws std::out_of_range for an id not in the table (a model bug).
    static const HazardRule& get(const std::string& id);
    // "<what happened>: <statement> [<reference>]".
    static std::string message(const std::string& id, const std::string& what);
    // "[<reference>]": the reference of a message that says the rule in its own words.
    static std::string cite(const std::string& id);
};

}  // namespace tmasim::model
