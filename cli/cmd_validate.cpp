// tmasim validate FILE...: load and validate scenarios without running them.
#include <iostream>
#include "cli/scenario_load.h"
#include <memory>

#include "cli/commands.h"
#include "cli/io/printable.h"
#include "scenarios/loader.h"
#include "scenarios/source_loc.h"

namespace tmasim::cli {

void add_validate_command(CLI::App& app, Action& action) {
    auto files = std::make_shared<std::vector<std::string>>();
    CLI::App* sub = app.add_subcommand("validate", "Load and validate scenario files; report every bad one");
    // No ExistingFile check: a missing file is reported like any other bad one, in its turn.
    sub->add_option("files", *files, "Scenario YAML files")->required();
    sub->footer("Exit codes: 0 every file is valid; 2 at least one is not (each one is reported).");
    sub->callback([files, &action] {
        action = [files] {
            size_t bad = 0;
            for (const std::string& file : *files) {
                try {
                    Scenario s = load_bound_scenario(file);
                    std::cout << file << ": ok (scenario " << s.name << ", " << s.all_ops().size() << " ops)\n";
                } catch (const ScenarioError& e) {
                    ++bad;
                    std::cerr << printable_line(e.what()) << '\n';  // "file:line:col: error: key: message"
                }
            }
            if (bad > 0 && files->size() > 1)
                std::cerr << "tmasim: " << bad << " of " << files->size() << " files are invalid\n";
            return static_cast<int>(bad > 0 ? kBadInput : kOk);
        };
    });
}

}  // namespace tmasim::cli
