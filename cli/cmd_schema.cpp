// tmasim schema: the JSON Schema of the scenario YAML, for editors (cli/scenario_schema.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/scenario_schema.h"

namespace tmasim::cli {

void add_schema_command(CLI::App& app, Action& action) {
    CLI::App* sub = app.add_subcommand("schema", "Print the JSON Schema of the scenario YAML (for editors)");
    sub->callback([&action] {
        action = [] {
            std::cout << scenario_schema().dump(2) << '\n';
            return static_cast<int>(kOk);
        };
    });
}

}  // namespace tmasim::cli
