// tmasim explain [RULE]: what a rule id means, why it exists and how to fix a report of it;
// without RULE, every rule id with its outcome and statement.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/io/printable.h"
#include "cli/teaching.h"

namespace tmasim::cli {

void add_explain_command(CLI::App& app, Action& action) {
    auto rule = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand("explain", "Explain a rule id of the model's reports (no RULE: list them)");
    sub->add_option("rule", *rule, "A rule id, e.g. proxy.generic_to_async");
    sub->callback([&action, rule] {
        action = [rule]() -> int {
            if (rule->empty()) {
                print_rule_list(std::cout);
                return kOk;
            }
            if (print_rule_explanation(*rule, std::cout)) return kOk;
            std::cerr << "tmasim: error: explain: unknown rule id '" << printable_line(*rule)
                      << "'; `tmasim explain` lists the known ids\n";
            return kBadInput;
        };
    });
}

}  // namespace tmasim::cli
