// tmasim sweep FILE: a template scenario over a grid of parameters (sweep_expand.h), every
// point run on the model here (-j N) or as a Slurm job array (sweep_slurm.h), one table.
#include <stdlib.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/batch_parallel.h"
#include "cli/commands.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "cli/model_run_flags.h"
#include "cli/sweep_effects.h"
#include "cli/sweep_expand.h"
#include "cli/sweep_report.h"
#include "cli/sweep_slurm.h"
#include "model/core/arch_config.h"
#include "model/run/run_model.h"

namespace tmasim::cli {
namespace fs = std::filesystem;
namespace {

struct SweepArgs {
    std::string file;
    int jobs = 0;
    std::string output;
    std::string csv;
    SweepRunOptions run;  // --arch, --l2, --trace
    bool quiet = false;
    bool list = false;
    std::string slurm_dir;
    size_t per_task = 0;
    std::string collect_dir;
    std::string task_dir;  // hidden: what an array task runs
    size_t task_index = 0;
    CLI::Option *jobs_opt = nullptr, *per_task_opt = nullptr, *index_opt = nullptr, *l2_opt = nullptr,
                *trace_opt = nullptr;
};

// The points' scenario files live in -o DIR/points, or in a folder removed afterwards.
struct PointsFolder {
    fs::path path;
    bool temporary = false;
    explicit PointsFolder(const std::string& output) {
        if (!output.empty()) {
            path = fs::path(output) / "points";
            fs::create_directories(path);
            return;
        }
        std::string tmpl = (fs::temp_directory_path() / "tmasim-sweep-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary folder for the points");
        path = tmpl;
        temporary = true;
    }
    ~PointsFolder() {
        std::error_code ignored;
        if (temporary) fs::remove_all(path, ignored);
    }
};

void list_points(const Sweep& sweep) {
    for (const SweepPoint& p : sweep.points) std::cout << p.id << "  " << sweep.describe(p) << '\n';
    std::cout << fmt::format("{} points of a grid of {}\n", sweep.points.size(), sweep.grid_size);
}

int finish(const Sweep& sweep, const std::vector<BatchRow>& rows, const std::string& csv) {
    std::cout << '\n';
    print_sweep_table(sweep, rows, std::cout);
    std::cout << sweep_time_effects(sweep, rows);
    if (!csv.empty()) {
        write_sweep_csv(sweep, rows, csv);
        std::cout << "csv: " << csv << '\n';
    }
    return batch_exit_code(rows);
}

// The sweep file and its template are what every mode reads.
OutputGuard guard_of(const Sweep& sweep) {
    OutputGuard guard;
    guard.input(sweep.file, "the sweep file");
    guard.input(sweep.template_file, "the sweep's template");
    return guard;
}

// The CSV: --csv, else DIR/sweep.csv of -o DIR; "" for none.
std::string csv_path(const SweepArgs& a) {
    return !a.csv.empty() ? a.csv : a.output.empty() ? "" : (fs::path(a.output) / "sweep.csv").string();
}

int run_here(const Sweep& sweep, const SweepArgs& a) {
    const std::string traces = a.output.empty() ? "" : (fs::path(a.output) / "traces").string();
    {
        // Every file the run writes, before the first is written: the points, their traces, the CSV.
        OutputGuard guard = guard_of(sweep);
        add_arch_inputs(guard, a.run.arch);
        guard.output_folder(a.output, "--output");
        if (!a.output.empty())
            for (const SweepPoint& p : sweep.points) {
                guard.output((fs::path(a.output) / "points" / (p.id + ".yaml")).string(), "--output (a point)",
                             OutputGuard::Kind::file_in_new_folder);
                add_trace_output(guard, (fs::path(traces) / (p.id + ".jsonl")).string(), "--output (a trace)",
                                 OutputGuard::Kind::file_in_new_folder);
            }
        guard.output(csv_path(a), a.csv.empty() ? "--output (the CSV)" : "--csv",
                     a.csv.empty() ? OutputGuard::Kind::file_in_new_folder : OutputGuard::Kind::file);
        guard.check();
    }
    PointsFolder folder(a.output);
    std::vector<BatchInput> inputs;
    for (const SweepPoint& p : sweep.points) {
        const fs::path file = folder.path / (p.id + ".yaml");
        write_text_output(file.string(), p.text);
        inputs.push_back({file.string(), p.id + ".yaml"});
    }
    const BatchOptions o = sweep_run_options(a.run, traces);
    const int jobs = a.jobs > 0 ? a.jobs : default_jobs();
    const std::vector<BatchRow> rows = run_rows(inputs, o, jobs, [&](size_t i, const BatchRow& r) {
        if (a.quiet) return;
        std::cout << fmt::format("[{}/{}] {} {}: {} {} ({:.2f} s)\n", i + 1, inputs.size(), sweep.points[i].id,
                                 sweep.describe(sweep.points[i]), r.got, r.result, r.wall_s);
        if (!r.why.empty()) std::cout << "        " << r.why << '\n';
        std::cout.flush();
    });
    return finish(sweep, rows, csv_path(a));
}

int sweep(const SweepArgs& a) {
    if (!a.task_dir.empty()) {
        if (!a.file.empty() || a.index_opt->count() == 0)
            throw std::invalid_argument("--task DIR takes --index I and no sweep file");
        return run_slurm_task(a.task_dir, a.task_index, std::cout);
    }
    if (a.file.empty()) throw std::invalid_argument("sweep: the sweep file is missing");
    const int modes = !a.slurm_dir.empty() + !a.collect_dir.empty() + a.list;
    if (modes > 1) throw std::invalid_argument("--slurm, --collect and --list exclude each other");
    if (modes > 0 && a.jobs_opt->count() > 0) throw std::invalid_argument("-j applies to a sweep run here only");
    if (a.slurm_dir.empty() && a.per_task_opt->count() > 0) throw std::invalid_argument("--per-task applies to --slurm only");
    if ((a.list || !a.slurm_dir.empty()) && (!a.csv.empty() || !a.output.empty()))
        throw std::invalid_argument("--csv and --output apply to a run or --collect, not to --list or --slurm");
    if (!a.collect_dir.empty() &&
        (!a.output.empty() || !a.run.arch.empty() || a.l2_opt->count() > 0 || a.trace_opt->count() > 0))
        throw std::invalid_argument(
            "--collect takes the runs' options from the folder; --output, --arch, --l2 and --trace do not apply");

    // An arch config that does not load would fail every point alike: say it once, first.
    if (!a.run.arch.empty()) model::ArchConfig::load_named(a.run.arch, model::default_arch_dir());
    const Sweep sweep = expand_sweep(a.file);
    if (a.list) {
        list_points(sweep);
        return kOk;
    }
    if (!a.slurm_dir.empty()) {
        write_slurm_sweep(sweep, a.slurm_dir, {a.run, a.per_task}, std::cout);
        return kOk;
    }
    if (!a.collect_dir.empty()) {
        const std::string csv = a.csv.empty() ? (fs::path(a.collect_dir) / "sweep.csv").string() : a.csv;
        // What --collect reads of the folder (sweep_slurm.h); its sweep.csv is what it writes.
        OutputGuard guard = guard_of(sweep);
        guard.input((fs::path(a.collect_dir) / "sweep.json").string(), "the --collect folder's sweep.json");
        guard.input_folder((fs::path(a.collect_dir) / "rows").string(), "the --collect folder's rows");
        guard.output(csv, a.csv.empty() ? "--collect (the CSV)" : "--csv");
        guard.check();
        return finish(sweep, collect_slurm_rows(sweep, a.collect_dir), csv);
    }
    return run_here(sweep, a);
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<SweepArgs>();
    CLI::App* sub = app.add_subcommand(
        "sweep", "Run a template scenario over a grid of parameters on the model: here, or as a Slurm job array");
    sub->add_option("file", a->file, "Sweep file (YAML: sweep, template, params, where; scenarios/FORMAT.md, Sweeps)");
    a->jobs_opt = sub->add_option("--jobs,-j", a->jobs, "Points run at once, each in its own process; 0 (default): one per core")
                      ->check(CLI::NonNegativeNumber);
    sub->add_option("--output,-o", a->output,
                    "Keep the points' scenarios (DIR/points/<id>.yaml), their traces (DIR/traces/<id>.jsonl) "
                    "and the CSV (DIR/sweep.csv)");
    sub->add_option("--csv", a->csv, "Write the table as CSV to this file (wall_s, the last column, is the only "
                                     "one that differs between runs)");
    sub->add_option("--arch", a->run.arch, "Model: arch config (h100-sxm, h200, b200); default: each scenario's own");
    // tmasim run's own definitions: one spelling, one set of values, one default.
    a->l2_opt = add_l2_option(*sub, a->run.l2);
    a->trace_opt = add_trace_option(*sub, a->run.trace, false);
    sub->add_flag("--quiet,-q", a->quiet, "No progress lines, only the table");
    sub->add_flag("--list", a->list, "Print the points (id and parameter values) and run nothing");
    sub->add_option("--slurm", a->slurm_dir,
                    "Write the points and a Slurm job array (DIR/sweep.sbatch) to this new folder instead of "
                    "running them; submit it with sbatch, then --collect DIR");
    a->per_task_opt = sub->add_option("--per-task", a->per_task, "--slurm: points per array task (default: 1, "
                                                                 "more where the array would pass 1000 tasks)")
                          ->check(CLI::PositiveNumber);
    sub->add_option("--collect", a->collect_dir,
                    "Print the table of a job array written by --slurm (and write DIR/sweep.csv, or --csv)");
    sub->add_option("--task", a->task_dir, "What an array task runs")->group("");
    a->index_opt = sub->add_option("--index", a->task_index, "The array task's index")->group("");
    sub->footer("Exit codes: 0 every point's outcome matches its `expect`; 1 one does not; 2 a bad sweep file "
                "(file:line:col, the key, what is allowed), a point that does not load, or a point with no result.");
    sub->callback([a, &action] { action = [a] { return sweep(*a); }; });
}

}  // namespace tmasim::cli
