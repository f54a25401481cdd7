#pragma once
// What a learner needs beside a rule's one-line statement: why the rule exists, in a few
// sentences, and what to change in the scenario. `tmasim explain RULE` prints it, and `run`
// prints the fix under each diagnostic. One entry per id of the rule table (a test keeps
// the two tables in step).
#include <string>
#include <vector>

namespace tmasim::model {

struct RuleHelp {
    std::string id;           // a HazardRules id
    std::string why;          // the mechanism behind the rule
    std::string fix;          // what to change; names ops and keys of the scenario format
    std::string section;      // docs/semantics.md section, e.g. "B12"
};

class RuleHelpTable {
public:
    static const std::vector<RuleHelp>& all();
    // nullptr for an id without an entry.
    static const RuleHelp* find(const std::string& id);
};

}  // namespace tmasim::model
