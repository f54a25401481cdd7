// tmasim run FILE [--backend model|device (default model)]: run one scenario, write its trace, check `expect`.
// tmasim run DIR_OR_FILES... [--backend model|device (default model)] [-o DIR] [--diff-against DIR]: batch
// mode (batch_run.h), for a directory, several files, or --diff-against.
#include <filesystem>
#include <sstream>
#include "cli/scenario_load.h"
#include <iostream>
#include <memory>
#include <unistd.h>

#include "cli/batch_parallel.h"
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/device_child.h"
#include "cli/diagnostic_lines.h"
#include "cli/doc_paths.h"
#include "cli/expectation.h"
#include "cli/kernel_time.h"
#include "cli/model_run_flags.h"
#include "cli/ncu_run.h"
#include "cli/option_values.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "cli/io/printable.h"
#include "cli/run_json.h"
#include "cli/run_progress.h"
#include "cli/sanitize_run.h"
#include "cli/teaching.h"
#include "cli/term_color.h"
#include "device/launch/device_unavailable.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "traces/diagnostic_groups.h"
#include "traces/summary.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {
namespace {

struct RunArgs {
    std::vector<std::string> paths;
    std::string file;  // single mode: paths[0]
    std::string backend;
    std::string output;
    std::string diff_dir;
    std::string arch;  // empty: the scenario's own generation (h100-sxm for sm_90, b200 for sm_100)
    std::string seed_text = "0";  // checked by parse_u64_option: CLI11 takes -1 as 2^64-1
    uint64_t seed = 0;
    double watchdog = 1.0;
    int64_t max_work = ModelOptions::kDefaultMaxWork;
    double time_limit = ModelOptions::kDefaultTimeLimitSeconds;  // model: seconds; 0: none
    bool progress = false;  // model, one scenario: the progress line on stderr even when it is no terminal
    std::string cache_dir;
    std::string trace;  // which ops are timed: device default all, model default none
    std::string memory_bytes = "changed";  // "all": also the bytes of unchanged inputs
    bool ctas_together = false;            // model: never simulate the CTAs one after another
    std::string l2 = "inputs";  // model: what the launch finds in L2 (model/core/l2_at_launch.h)
    std::string trace_words = "auto";  // model: where the traced kernel keeps its clock words
    int warm_launches = 1;            // device: launches before the recorded one (code and pages warm)
    std::string shared_dump = "auto";  // device: copy the final shared buffers out (auto: unless --trace none)
    bool quiet = false;
    bool all_instances = false;  // one diagnostic per instance, not merged per (rule, op, CTA)
    int jobs = 0;               // batch: scenarios at once; 0: every core
    bool json = false;          // stdout: one JSON document (cli/run_json.h), no text
    std::string color = "auto"; // diagnostics' severity words coloured (cli/term_color.h)
    bool ncu = false;           // device: run under Nsight Compute, print bank-conflict counters
    bool no_isolation = false;  // device: run in this process (hidden; what --ncu runs under ncu)
    std::string sanitize;       // device: run under compute-sanitizer with this tool (sanitize_run.h)
    bool line_info = false;     // device: NVRTC -lineinfo (hidden; what --sanitize runs under the tool)
    // Which backend-specific options the user actually gave (to reject them on the other).
    CLI::Option *arch_opt = nullptr, *seed_opt = nullptr, *watchdog_opt = nullptr, *cache_opt = nullptr,
                *max_work_opt = nullptr, *l2_opt = nullptr, *trace_words_opt = nullptr, *shared_dump_opt = nullptr,
                *warm_opt = nullptr, *time_limit_opt = nullptr, *progress_opt = nullptr;
};

// Fail closed: an option the chosen backend ignores would silently do nothing.
void reject_foreign_options(const RunArgs& a) {
    auto reject = [&](const CLI::Option* opt, const char* name, const char* backend) {
        if (opt->count() > 0)
            throw std::invalid_argument(std::string(name) + " applies to the " + backend +
                                        " backend only, not --backend " + a.backend);
    };
    if (a.backend != "device" && !a.sanitize.empty())
        throw std::invalid_argument("--sanitize applies to the device backend only, not --backend " + a.backend);
    if (a.backend == "device") {
        reject(a.arch_opt, "--arch", "model");
        reject(a.seed_opt, "--seed", "model");
        reject(a.max_work_opt, "--max-work", "model");
        reject(a.time_limit_opt, "--time-limit", "model");
        reject(a.progress_opt, "--progress", "model");
        reject(a.l2_opt, "--l2", "model");
        reject(a.trace_words_opt, "--trace-words-in", "model");
    } else {
        reject(a.watchdog_opt, "--watchdog", "device");
        reject(a.cache_opt, "--cache-dir", "device");
        reject(a.shared_dump_opt, "--shared-dump", "device");
        reject(a.warm_opt, "--warm-launches", "device");
    }
}

// The device times every op unless told otherwise; the model predicts the untraced kernel.
TraceLevel trace_level_of(const RunArgs& a) {
    if (a.trace.empty()) return a.backend == "device" ? TraceLevel::all : TraceLevel::none;
    return *parse_trace_level(a.trace);
}

bool shared_dump_of(const RunArgs& a) { return shared_dump_for(a.shared_dump, trace_level_of(a)); }

TraceWriteOptions trace_write_options(const RunArgs& a) {
    TraceWriteOptions o;
    o.all_memory_bytes = a.memory_bytes == "all";
    return o;
}

bool is_batch(const RunArgs& a) {
    return a.paths.size() > 1 || std::filesystem::is_directory(a.paths.at(0)) || !a.diff_dir.empty();
}

int run_many(const RunArgs& a) {
    BatchOptions o;
    o.backend = a.backend;
    o.output_dir = a.output;
    o.diff_dir = a.diff_dir;
    o.model.arch = a.arch;
    o.model.seed = a.seed;
    o.model.max_work = a.max_work;
    o.model.time_limit_seconds = a.time_limit;
    o.model.trace = trace_level_of(a);
    model::parse_l2_at_launch(a.l2, o.model.l2);  // CLI checked the spelling
    model::parse_trace_words_at(a.trace_words, o.model.trace_words);
    o.model.unchanged_input_bytes = a.memory_bytes == "all";
    o.model.ctas_together = a.ctas_together;
    o.device.watchdog_seconds = a.watchdog;
    o.device.cache_dir = a.cache_dir;
    o.device.trace = trace_level_of(a);
    o.device.line_info = a.line_info;
    o.device.shared_dump = shared_dump_of(a);
    o.device.warm_launches = a.warm_launches;
    o.sanitize = a.sanitize;
    if (!o.sanitize.empty()) {
        o.sanitizer = find_compute_sanitizer();
        if (a.watchdog_opt->count() == 0) o.device.watchdog_seconds = kSanitizerWatchdogSeconds;
    }
    o.trace_write = trace_write_options(a);
    o.quiet = a.quiet;
    o.json = a.json;
    // A device batch runs on one GPU unless -j asks for more (one worker per GPU, batch_run.cpp).
    o.jobs = a.jobs > 0 ? a.jobs : (o.backend == "device" ? 1 : default_jobs());
    if (!o.diff_dir.empty() && !std::filesystem::is_directory(o.diff_dir))
        throw std::invalid_argument("--diff-against " + o.diff_dir + ": not a directory");
    return run_batch(collect_scenarios(a.paths), o);
}

// The same single device run, re-run by ncu in a process that does not fork (ncu profiles
// the process it starts).
int run_with_ncu(const RunArgs& a) {
    if (a.backend != "device") throw std::invalid_argument("--ncu applies to --backend device only");
    std::vector<std::string> inner = {"run", a.file, "--backend", "device", "--no-isolation",
                                      "--watchdog", std::to_string(a.watchdog), "--trace",
                                      to_string(trace_level_of(a)), "--shared-dump", shared_dump_of(a) ? "on" : "off",
                                      "--warm-launches", "0"};  // ncu replays the one launch it profiles
    if (!a.output.empty()) inner.insert(inner.end(), {"--output", a.output});
    if (!a.cache_dir.empty()) inner.insert(inner.end(), {"--cache-dir", a.cache_dir});
    if (a.quiet) inner.push_back("--quiet");
    return run_under_ncu(inner);
}

// The result of a single run, kept for the rest of the process and never destroyed. A
// full-chip run's result holds a million small heap objects (each event's loop indices and
// details); freeing them one by one after the trace is written was 4% of the process's CPU,
// and the operating system takes the whole heap back at exit anyway. The holder stays
// reachable from this static pointer, so a leak checker does not report it; a second run in
// the same process frees the first.
RunResult& result_kept_until_exit() {
    static RunResult* kept = nullptr;
    delete kept;
    kept = new RunResult();
    return *kept;
}

int run_one(RunArgs& a);

int run(RunArgs& a) {
    reject_foreign_options(a);
    a.seed = parse_u64_option("--seed", a.seed_text);
    if (a.json && a.ncu) throw std::invalid_argument("--json does not apply to --ncu (ncu prints its own report)");
    if (!a.sanitize.empty() && (a.ncu || a.no_isolation))
        throw std::invalid_argument("--sanitize runs the scenario under compute-sanitizer; it does not combine with " +
                                    std::string(a.ncu ? "--ncu" : "--no-isolation"));
    if (is_batch(a)) {
        if (a.ncu) throw std::invalid_argument("--ncu profiles one scenario, not a batch");
        if (a.progress) throw std::invalid_argument("--progress shows one scenario's run, not a batch's (it prints a line per scenario)");
        return run_many(a);
    }
    a.file = a.paths.at(0);
    if (!a.json) return run_one(a);
    // --json: stdout has its document even when no run happened; stderr still has the
    // error line and the exit code stays 2 (main's policy).
    const auto say = [&](const char* status, const std::exception& e) {
        std::cout << dump_json(failed_run_json(a.file, a.backend, status, printable_line(e.what()), kBadInput)) << '\n';
    };
    try {
        return run_one(a);
    } catch (const device::DeviceUnavailable& e) {
        say("skipped", e);
        throw;
    } catch (const std::exception& e) {
        say("error", e);
        throw;
    }
}

int run_one(RunArgs& a) {
    {
        // Before the run, not after it: a refused output costs nothing.
        OutputGuard guard;
        add_scenario_inputs(guard, a.file, "the scenario");
        if (a.backend == "model") add_arch_inputs(guard, a.arch);
        if (!a.output.empty()) {
            add_trace_output(guard, a.output, "--output");
            if (!a.sanitize.empty())
                guard.output(sanitizer_report_path(a.output, a.sanitize), "--output (the sanitizer's report)");
        }
        guard.check();
    }
    if (a.ncu) return run_with_ncu(a);
    Scenario scenario = load_bound_scenario(a.file);
    const bool on_device = a.backend == "device";

    RunResult& result = result_kept_until_exit();
    if (on_device) {
        DeviceOptions opt;
        opt.watchdog_seconds = a.watchdog;
        opt.cache_dir = a.cache_dir;
        opt.trace = trace_level_of(a);
        opt.line_info = a.line_info;
        opt.shared_dump = shared_dump_of(a);
        opt.warm_launches = a.warm_launches;
        if (!a.sanitize.empty()) {
            if (a.watchdog_opt->count() == 0) opt.watchdog_seconds = kSanitizerWatchdogSeconds;
            SanitizedRun sanitized = run_sanitized(scenario, opt, a.sanitize, find_compute_sanitizer());
            result = std::move(sanitized.result);
            if (!a.output.empty()) write_text_output(sanitizer_report_path(a.output, a.sanitize), sanitized.report);
        } else if (a.no_isolation) {
            try {
                result = run_device(scenario, opt);
            } catch (const device::DeviceUnavailable& e) {
                // The line run_sanitized reads to tell "not here" (skipped) from an error.
                std::cerr << kDeviceUnavailablePrefix << printable_line(e.what()) << '\n';
                if (a.json)
                    std::cout << dump_json(failed_run_json(a.file, a.backend, "skipped", printable_line(e.what()),
                                                           kBadInput))
                              << '\n';
                return kBadInput;
            }
        } else {
            result = run_device_isolated(scenario, opt);
        }
    } else {
        ModelOptions opt;
        opt.arch = a.arch;
        opt.seed = a.seed;
        opt.max_work = a.max_work;
        opt.trace = trace_level_of(a);
        model::parse_l2_at_launch(a.l2, opt.l2);
        model::parse_trace_words_at(a.trace_words, opt.trace_words);
        opt.unchanged_input_bytes = a.memory_bytes == "all";
        opt.ctas_together = a.ctas_together;
        opt.time_limit_seconds = a.time_limit;
        ProgressLine progress(std::cerr, isatty(STDERR_FILENO) == 1, a.progress, a.quiet);
        opt.progress = progress.sink();
        result = run_model(scenario, opt);
    }

    OpNames names = op_names_of(scenario);
    if (!a.output.empty()) write_trace_output(result, a.output, names, trace_write_options(a));
    ExpectationCheck check = check_expectation(scenario, result, on_device);
    if (a.json) {
        const int code = check.passed ? kOk : kMismatch;
        std::cout << dump_json(single_run_json(scenario, result, check, a.output, code, a.all_instances)) << '\n';
        return code;
    }
    const bool color = stdout_wants_color(parse_color_mode(a.color));
    const auto headline = [&](const DiagnosticGroup& g) { return cite_docs(diagnostic_headline(scenario, g, color)); };
    if (!a.quiet) {
        // The summary's diagnostics cite documents by repository path ("[PTX 9.7.13.4;
        // semantics.md B12]"): an installed tmasim prints its installed copies' paths instead.
        std::ostringstream summary;
        print_summary(result, summary, names, a.all_instances, headline);
        std::cout << (installed_doc_dir().empty() ? summary.str() : cite_docs(summary.str()));
        print_kernel_time(result.provenance, std::cout);
        print_teaching(scenario, result, std::cout);
        std::cout << '\n';
    }

    if (check.passed) {
        if (!a.quiet) {
            std::cout << "expect:      " << check.expected << (check.checked ? ": PASS\n" : ": not checked\n");
            for (const std::string& note : check.notes) std::cout << "note:        " << note << '\n';
            std::cout << diagnostics_summary_line(result.diagnostics) << '\n';
        }
        return kOk;
    }
    std::cout << "expect:      FAIL: expected " << check.expected << ", got " << check.got << '\n';
    for (const std::string& note : check.notes) std::cout << "note:        " << note << '\n';
    if (a.quiet)  // the summary was not printed; each diagnostic's first line explains the outcome
        for (const DiagnosticGroup& g : group_diagnostics(result.diagnostics, a.all_instances))
            std::cout << headline(g) << '\n';
    std::cout << diagnostics_summary_line(result.diagnostics) << '\n';
    return kMismatch;
}

}  // namespace

void add_run_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<RunArgs>();
    CLI::App* sub = app.add_subcommand("run", "Run a scenario on the model or the device; check its `expect`");
    sub->add_option("paths", a->paths,
                    "Scenario YAML file; or several files and directories (batch mode: directories are "
                    "walked for *.yaml, skipping `invalid` folders)")
        ->required()
        ->check(CLI::ExistingPath);
    // The model needs no GPU, so it is the default; the GPU is asked for (--backend device).
    sub->add_option("--backend,-b", a->backend, "Where to run it: model (the default: no GPU needed) or device (a Hopper GPU)")
        ->default_val("model")
        ->check(CLI::IsMember({"model", "device"}));
    sub->add_option("--output,-o", a->output,
                    "Write the trace (JSONL) to this file; batch mode: one trace per scenario under this "
                    "directory, DIR/<relative path>.jsonl");
    sub->add_option("--diff-against", a->diff_dir,
                    "Batch mode: diff each run against DIR/<relative path>.jsonl (e.g. the other backend's "
                    "traces) and add memory and timing columns to the table");
    a->arch_opt = sub->add_option("--arch", a->arch, "Model: arch config (h100-sxm, h200, b200); default h100-sxm for sm_90 scenarios, b200 for sm_100")
                      ->capture_default_str();
    a->seed_opt = sub->add_option("--seed", a->seed_text, "Model: seed for its random choices (0..2^64-1)")->capture_default_str();
    a->max_work_opt = sub->add_option("--max-work", a->max_work,
                                      "Model: refuse at once a run of more than this many units of work (8 per thread "
                                      "running an op, 1 per 4 bytes moved), more than any time limit lets finish; "
                                      "0: no bound on work, nor on the trace events a run holds in memory")
                          ->check(CLI::NonNegativeNumber)
                          ->capture_default_str();
    a->time_limit_opt = sub->add_option("--time-limit", a->time_limit,
                                        "Model: stop a run after this many seconds (exit 2); it never changes a "
                                        "trace, only stops the run; 0: no limit")
                            ->check(CLI::NonNegativeNumber)
                            ->capture_default_str();
    a->progress_opt = sub->add_flag("--progress", a->progress,
                                    "Model, one scenario: a progress line on stderr for a run past 5 s even when "
                                    "stderr is no terminal (on a terminal it is shown unless -q)");
    a->watchdog_opt = sub->add_option("--watchdog", a->watchdog, "Device: seconds a wait may take before it is a hang")
                          ->check(CLI::PositiveNumber)
                          ->capture_default_str();
    a->cache_opt = sub->add_option("--cache-dir", a->cache_dir, "Device: where compiled kernels are cached");
    add_trace_option(*sub, a->trace, true);
    a->shared_dump_opt =
        sub->add_option("--shared-dump", a->shared_dump,
                        "Device: copy the final shared buffers out after the last op, so the trace has their "
                        "bytes. auto (default): on, except with --trace none, whose kernel ends as one written "
                        "by hand would (the copy of a 64 KiB stage area took 4% of a one-CTA stream)")
            ->check(CLI::IsMember({"auto", "on", "off"}))
            ->capture_default_str();
    a->warm_opt = sub->add_option("--warm-launches", a->warm_launches,
                                  "Device: launch the kernel this many times before the recorded launch, each "
                                  "from the declared memory again, so the recorded one finds its code, constants "
                                  "and page mappings warm (a kernel launched again and again); 0: one cold launch, which pays "
                                  "their first fetch")
                      ->check(CLI::Range(0, 100))
                      ->capture_default_str();
    a->l2_opt = add_l2_option(*sub, a->l2);
    a->trace_words_opt =
        sub->add_option("--trace-words-in", a->trace_words,
                        "Model, with --trace all|waits: where the predicted traced kernel keeps its clock words, "
                        "as a device trace's header says (trace_words_in). shared: a timed barrier's end clock "
                        "waits for their store; global: a __syncwarp holds it; auto: global for a kernel with "
                        "cp.async, shared otherwise (the executor also moves them to global memory where shared "
                        "memory has no room, which only it can tell)")
            ->check(CLI::IsMember({"auto", "shared", "global"}))
            ->capture_default_str();
    sub->add_option("--memory-bytes", a->memory_bytes,
                    "Which images the trace holds the bytes of: changed (default: an input of 1 MiB or more "
                    "that the run left as the scenario declared it is written as its size and hash only, "
                    "traces/FORMAT.md version 3), all")
        ->check(CLI::IsMember({"changed", "all"}))
        ->capture_default_str();
    sub->add_flag("--ctas-together", a->ctas_together,
                  "Model: simulate the CTAs together even where every CTA does the same work and none reaches "
                  "another, which the model otherwise simulates one after another (model/run/cta_schedule.h): "
                  "the same trace, slower at many CTAs");
    sub->add_option("--jobs,-j", a->jobs,
                    "Batch mode: run this many scenarios at once, each in its own process; 0 (default): one per "
                    "core on the model, one GPU on the device; on the device at most one per visible GPU "
                    "(CUDA_VISIBLE_DEVICES). Rows and progress lines keep the -j 1 order")
        ->check(CLI::NonNegativeNumber);
    sub->add_flag("--quiet,-q", a->quiet, "Print nothing unless the expectation fails");
    sub->add_flag("--all-instances", a->all_instances,
                  "Print every instance of a diagnostic: by default one per (rule, op, CTA) names the loop "
                  "iterations it covers (traces/FORMAT.md, merged diagnostics); the trace always has each");
    sub->add_flag("--json", a->json,
                  "Print one JSON document on stdout instead of text (traces/FORMAT.md, JSON output); "
                  "batch progress lines go to stderr");
    sub->add_option("--color", a->color,
                    "Colour the severity words of diagnostics: auto (default: when standard output is a terminal "
                    "and NO_COLOR is unset or empty, https://no-color.org), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    sub->add_flag("--ncu", a->ncu,
                  "Device, one scenario: run it under Nsight Compute (ncu --clock-control none) and print "
                  "the shared-memory bank-conflict and wavefront counters of its kernel");
    sub->add_flag("--no-isolation", a->no_isolation, "Device: run in this process (what --ncu uses)")
        ->group("");  // hidden: a fault here kills the CLI
    sub->add_option("--sanitize", a->sanitize,
                    "Device: run under NVIDIA compute-sanitizer with this tool; its findings become diagnostics "
                    "naming the scenario's ops, compared per hazard with the model's (docs/semantics.md H40). "
                    "With -o, the tool's report is kept next to each trace (T.<tool>.txt). Default watchdog "
                    "under it: 10 s")
        ->check(CLI::IsMember({"racecheck", "synccheck", "memcheck", "initcheck"}));
    sub->add_flag("--line-info", a->line_info, "Device: compile with NVRTC -lineinfo (what --sanitize runs)")
        ->group("");
    sub->footer("Exit codes: 0 the outcome matches `expect`; 1 it does not; 2 bad input or the run could not "
                "be done (e.g. no CUDA driver; a model run past --time-limit). Device runs happen in a child process, so a crash is "
                "reported as outcome fault and a run past watchdog + 60 s as hang.\n"
                "Batch mode (a directory, several files, or --diff-against): every scenario runs on its own "
                "and a summary table ends the output, with the line \"N scenarios: A agree, B disagree, "
                "C skipped\". Exit 1 if any scenario disagrees (its outcome misses `expect`, or, diffed, "
                "an `ok` scenario's final memory differs from the reference); else 2 if any scenario could "
                "not be loaded or built, or if none ran at all (e.g. every one skipped: no CUDA driver); "
                "else 0. Scenarios skipped because they need another GPU (sm_100) do not fail the batch.");
    sub->callback([a, &action] { action = [a] { return run(*a); }; });
}

}  // namespace tmasim::cli
