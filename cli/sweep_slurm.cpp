#include "cli/sweep_slurm.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/batch_parallel.h"
#include "cli/model_run_flags.h"

namespace tmasim::cli {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::json;

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Written whole or not at all: a reader (--collect) never sees half a file.
void write_atomically(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        out.close();
        if (!out) throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

// '...' for the shell.
std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// #SBATCH lines cannot quote: their paths keep to characters that need none.
void require_plain_path(const std::string& path, const std::string& what) {
    const auto bad = std::find_if(path.begin(), path.end(), [](char c) {
        return !(std::isalnum(static_cast<unsigned char>(c)) || std::string("/._+-@,:=").find(c) != std::string::npos);
    });
    if (bad != path.end())
        throw std::invalid_argument(what + " " + path + ": the character '" + std::string(1, *bad) +
                                    "' cannot go into an #SBATCH line; allowed: letters, digits and / . _ + - @ , : =");
}

std::string this_binary() {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw std::runtime_error("--slurm: cannot find the tmasim binary (/proc/self/exe)");
    return std::string(buf, static_cast<size_t>(n));
}

std::string script_text(const Sweep& sweep, const std::string& dir, size_t tasks, size_t per_task) {
    const std::string sweep_file = fs::absolute(sweep.file).lexically_normal().string();
    std::string s = "#!/bin/bash\n";
    s += fmt::format("# tmasim sweep {}: {} points as a Slurm job array of {} task(s), {} point(s) each.\n",
                     sweep.name, sweep.points.size(), tasks, per_task);
    s += fmt::format("# Written by `tmasim sweep {} --slurm {}`. Submit it with\n", sweep_file, dir);
    s += fmt::format("#   sbatch {}/sweep.sbatch    (sbatch options on its command line override the lines below)\n", dir);
    s += fmt::format("# and when the array is done, print the table and write the CSV with\n");
    s += fmt::format("#   tmasim sweep {} --collect {}\n", sweep_file, dir);
    s += "# This folder and the tmasim binary must be at these paths on the compute nodes too;\n";
    s += "# TMASIM=/path/to/tmasim in the job's environment names another binary.\n";
    s += fmt::format("#SBATCH --job-name=tmasim-{}\n", sweep.name);
    s += fmt::format("#SBATCH --array=0-{}\n", tasks - 1);
    s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
    s += fmt::format("#SBATCH --output={}/logs/%a.out\n", dir);
    s += "set -eu\n";
    s += "tmasim=${TMASIM:-" + shell_quote(this_binary()) + "}\n";
    s += "exec \"$tmasim\" sweep --task " + shell_quote(dir) + " --index \"$SLURM_ARRAY_TASK_ID\"\n";
    return s;
}

}  // namespace

BatchOptions sweep_run_options(const SweepRunOptions& run, const std::string& trace_dir) {
    BatchOptions o;
    o.backend = "model";
    o.output_dir = trace_dir;
    o.model.arch = run.arch;
    apply_model_run_flags(run.l2, run.trace, o.model);
    o.quiet = true;
    return o;
}

void write_slurm_sweep(const Sweep& sweep, const std::string& dir_arg, const SlurmSweepOptions& options,
                       std::ostream& out) {
    const fs::path dir = fs::absolute(dir_arg).lexically_normal();
    require_plain_path(dir.string(), "--slurm");
    if (fs::exists(dir) && (!fs::is_directory(dir) || !fs::is_empty(dir)))
        throw std::invalid_argument("--slurm " + dir_arg + ": exists and is not an empty folder; allowed: a new or "
                                    "empty folder (rows of another sweep would be collected with this one's)");
    const size_t n = sweep.points.size();
    const size_t per_task = options.per_task > 0 ? options.per_task : (n + kMaxArrayTasks - 1) / kMaxArrayTasks;
    const size_t tasks = (n + per_task - 1) / per_task;
    if (tasks > kMaxArrayTasks)
        throw std::invalid_argument(fmt::format("--per-task {}: {} array tasks; allowed: at most {} (Slurm's default "
                                                "MaxArraySize), so at least {} points per task",
                                                per_task, tasks, kMaxArrayTasks, (n + kMaxArrayTasks - 1) / kMaxArrayTasks));
    for (const char* sub : {"points", "rows", "traces", "logs"}) fs::create_directories(dir / sub);
    for (const SweepPoint& p : sweep.points) write_atomically(dir / "points" / (p.id + ".yaml"), p.text);
    const Json meta{{"sweep", sweep.name},   {"sweep_file", fs::absolute(sweep.file).lexically_normal().string()},
                    {"points", n},           {"per_task", per_task},
                    {"tasks", tasks},        {"arch", options.run.arch},
                    {"l2", options.run.l2},  {"trace", options.run.trace},
                    {"fingerprint", sweep.fingerprint()}};
    write_atomically(dir / "sweep.json", meta.dump(2) + "\n");
    write_atomically(dir / "sweep.sbatch", script_text(sweep, dir.string(), tasks, per_task));
    fs::permissions(dir / "sweep.sbatch", fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
    out << fmt::format("wrote {} points of sweep {} and the job array {}/sweep.sbatch ({} task(s), {} point(s) each)\n",
                       n, sweep.name, dir.string(), tasks, per_task);
    out << fmt::format("submit:  sbatch {}/sweep.sbatch\n", dir.string());
    out << fmt::format("collect: tmasim sweep {} --collect {}\n", sweep.file, dir.string());
}

int run_slurm_task(const std::string& dir_arg, size_t task_index, std::ostream& out) {
    const fs::path dir = fs::absolute(dir_arg).lexically_normal();
    const Json meta = Json::parse(slurp(dir / "sweep.json"), nullptr, false);
    if (meta.is_discarded() || !meta.is_object())
        throw std::invalid_argument("--task " + dir_arg + ": no sweep.json written by tmasim sweep --slurm");
    const size_t n = meta.at("points"), per_task = meta.at("per_task");
    const size_t first = task_index * per_task;
    if (per_task == 0 || first >= n)
        throw std::invalid_argument(fmt::format("--index {}: the array has tasks 0..{}", task_index,
                                                per_task == 0 ? 0 : (n + per_task - 1) / per_task - 1));
    // A folder written before --l2 and --trace reached sweeps ran its points with their defaults.
    SweepRunOptions run;
    run.arch = meta.at("arch");
    run.l2 = meta.value("l2", std::string("inputs"));
    run.trace = meta.value("trace", std::string());
    const BatchOptions o = sweep_run_options(run, (dir / "traces").string());
    std::vector<BatchRow> rows;
    for (size_t k = first; k < std::min(n, first + per_task); ++k) {
        const std::string id = point_id(k);
        rows.push_back(run_one({(dir / "points" / (id + ".yaml")).string(), id + ".yaml"}, o));
        out << fmt::format("{}: {} {} ({:.2f} s){}\n", id, rows.back().got, rows.back().result, rows.back().wall_s,
                           rows.back().why.empty() ? "" : " " + rows.back().why);
        try {
            write_atomically(dir / "rows" / (id + ".json"), row_to_text(rows.back()) + "\n");
        } catch (const std::exception& e) {
            out << id << ": " << e.what() << '\n';
            return 2;
        }
    }
    return batch_exit_code(rows);
}

std::vector<BatchRow> collect_slurm_rows(const Sweep& sweep, const std::string& dir_arg) {
    const fs::path dir = fs::absolute(dir_arg).lexically_normal();
    const Json meta = Json::parse(slurp(dir / "sweep.json"), nullptr, false);
    if (meta.is_discarded() || !meta.is_object() || !meta.contains("fingerprint") || !meta.contains("per_task"))
        throw std::invalid_argument("--collect " + dir_arg + ": no sweep.json written by tmasim sweep --slurm");
    if (meta.at("fingerprint") != sweep.fingerprint())
        throw std::invalid_argument("--collect " + dir_arg + ": its points are not the expansion of " + sweep.file +
                                    " as it is now (the sweep or its template changed since --slurm wrote it); "
                                    "write the folder again with --slurm and resubmit");
    const size_t per_task = meta.at("per_task");
    std::vector<BatchRow> rows;
    for (const SweepPoint& p : sweep.points) {
        BatchRow row;
        const fs::path file = dir / "rows" / (p.id + ".json");
        if (!fs::exists(file) || !row_from_text(slurp(file), row)) {
            row = BatchRow{};
            row.rel = p.id + ".yaml";
            row.result = "error";
            row.why = fmt::format("array task {} wrote no row for this point (its output: {}/logs/{}.out)",
                                  p.index / per_task, dir.string(), p.index / per_task);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace tmasim::cli
