// tmasim run FILE --backend model|device: run one scenario, write its trace, check `expect`.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/device_child.h"
#include "cli/expectation.h"
#include "model/run_model.h"
#include "scenarios/loader.h"
#include "traces/summary.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {
namespace {

struct RunArgs {
    std::string file;
    std::string backend;
    std::string output;
    std::string arch = "h100-sxm";
    uint64_t seed = 0;
    double watchdog = 1.0;
    std::string cache_dir;
    bool quiet = false;
    // Which backend-specific options the user actually gave (to reject them on the other).
    CLI::Option *arch_opt = nullptr, *seed_opt = nullptr, *watchdog_opt = nullptr, *cache_opt = nullptr;
};

// Fail closed: an option the chosen backend ignores would silently do nothing.
void reject_foreign_options(const RunArgs& a) {
    auto reject = [&](const CLI::Option* opt, const char* name, const char* backend) {
        if (opt->count() > 0)
            throw std::invalid_argument(std::string(name) + " applies to the " + backend +
                                        " backend only, not --backend " + a.backend);
    };
    if (a.backend == "device") {
        reject(a.arch_opt, "--arch", "model");
        reject(a.seed_opt, "--seed", "model");
    } else {
        reject(a.watchdog_opt, "--watchdog", "device");
        reject(a.cache_opt, "--cache-dir", "device");
    }
}

int run(const RunArgs& a) {
    reject_foreign_options(a);
    Scenario scenario = load_scenario_file(a.file);
    const bool on_device = a.backend == "device";

    RunResult result;
    if (on_device) {
        DeviceOptions opt;
        opt.watchdog_seconds = a.watchdog;
        opt.cache_dir = a.cache_dir;
        result = run_device_isolated(scenario, opt);
    } else {
        ModelOptions opt;
        opt.arch = a.arch;
        opt.seed = a.seed;
        result = run_model(scenario, opt);
    }

    OpNames names = op_names_of(scenario);
    if (!a.output.empty()) write_trace_file(result, a.output, names);
    if (!a.quiet) print_summary(result, std::cout, names);

    ExpectationCheck check = check_expectation(scenario, result, on_device);
    if (check.passed) {
        if (!a.quiet)
            std::cout << "expect:      " << check.expected << (check.checked ? ": PASS\n" : ": not checked\n");
        for (const std::string& note : check.notes)
            if (!a.quiet) std::cout << "note:        " << note << '\n';
        return kOk;
    }
    std::cout << "expect:      FAIL: expected " << check.expected << ", got " << check.got << '\n';
    for (const std::string& note : check.notes) std::cout << "note:        " << note << '\n';
    if (a.quiet)  // the summary was not printed; the diagnostics explain the outcome
        for (const Diagnostic& d : result.diagnostics) std::cout << "diagnostic:  " << d.message << '\n';
    return kMismatch;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<RunArgs>();
    CLI::App* sub = app.add_subcommand("run", "Run a scenario on the model or the device; check its `expect`");
    sub->add_option("file", a->file, "Scenario YAML file")->required()->check(CLI::ExistingFile);
    sub->add_option("--backend,-b", a->backend, "Where to run it")
        ->required()
        ->check(CLI::IsMember({"model", "device"}));
    sub->add_option("--output,-o", a->output, "Write the trace (JSONL) to this file");
    a->arch_opt = sub->add_option("--arch", a->arch, "Model: arch config, e.g. h100-sxm, h200")
                      ->capture_default_str();
    a->seed_opt = sub->add_option("--seed", a->seed, "Model: seed for its random choices")->capture_default_str();
    a->watchdog_opt = sub->add_option("--watchdog", a->watchdog, "Device: seconds a wait may take before it is a hang")
                          ->check(CLI::PositiveNumber)
                          ->capture_default_str();
    a->cache_opt = sub->add_option("--cache-dir", a->cache_dir, "Device: where compiled kernels are cached");
    sub->add_flag("--quiet,-q", a->quiet, "Print nothing unless the expectation fails");
    sub->footer("Exit codes: 0 the outcome matches `expect`; 1 it does not; 2 bad input or the run could not "
                "be done (e.g. no CUDA driver). Device runs happen in a child process, so a crash is "
                "reported as outcome fault and a run past watchdog + 60 s as hang.");
    sub->callback([a, &action] { action = [a] { return run(*a); }; });
}

}  // namespace tmasim::cli
