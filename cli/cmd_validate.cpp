// tmasim validate FILE|DIR...: load and validate scenarios without running them (a directory:
// every scenario under it, as `run DIR` finds them).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/io/printable.h"
#include "cli/scenario_load.h"
#include "scenarios/loader.h"
#include "scenarios/source_loc.h"

namespace tmasim::cli {

void add_validate_command(CLI::App& app, Action& action) {
    auto files = std::make_shared<std::vector<std::string>>();
    CLI::App* sub = app.add_subcommand("validate", "Load and validate scenario files; report every bad one");
    // No ExistingFile check: a missing file is reported like any other bad one, in its turn.
    sub->add_option("files", *files, "Scenario YAML files, or directories walked for *.yaml (skipping `invalid` folders)")
        ->required();
    sub->footer("Exit codes: 0 every file is valid; 2 at least one is not (each one is reported).");
    sub->callback([files, &action] {
        action = [files] {
            // A directory stands for the scenarios `run DIR` would run; a file, even a missing
            // one, for itself (reported in its turn).
            std::vector<std::string> paths;
            for (const std::string& arg : *files) {
                if (!std::filesystem::is_directory(arg)) {
                    paths.push_back(arg);
                    continue;
                }
                for (const BatchInput& in : collect_scenarios({arg})) paths.push_back(in.path);
            }
            size_t bad = 0;
            for (const std::string& file : paths) {
                try {
                    Scenario s = load_bound_scenario(file);
                    std::cout << file << ": ok (scenario " << s.name << ", " << s.all_ops().size() << " ops)\n";
                } catch (const ScenarioError& e) {
                    ++bad;
                    std::cerr << printable_line(e.what()) << '\n';  // "file:line:col: error: key: message"
                }
            }
            if (bad > 0 && paths.size() > 1)
                std::cerr << "tmasim: " << bad << " of " << paths.size() << " files " << (bad == 1 ? "is" : "are")
                          << " invalid\n";
            return static_cast<int>(bad > 0 ? kBadInput : kOk);
        };
    });
}

}  // namespace tmasim::cli
