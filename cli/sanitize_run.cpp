#include "cli/sanitize_run.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "cli/device_child.h"
#include "device/emit/codegen.h"
#include "device/launch/device_unavailable.h"
#include "device/sanitizer/sanitizer_ops.h"
#include "device/sanitizer/sanitizer_report.h"
#include "model/run/run_model.h"
#include "ptx/kernel_binding.h"
#include "traces/sanitizer_verdicts.h"
#include "traces/trace_reader.h"

namespace tmasim::cli {
namespace fs = std::filesystem;
namespace {

// The tool's own start and its instrumentation of a short kernel: seconds beyond the watchdog.
constexpr double kSanitizerGraceSeconds = 300.0;

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

std::string tmasim_binary_path() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("--sanitize: cannot find the tmasim binary: " + ec.message());
    return p.string();
}

class TempDir {
public:
    TempDir() {
        std::string tmpl = "/tmp/tmasim-sanitize-XXXXXX";
        if (!mkdtemp(tmpl.data())) throw std::runtime_error(std::string("--sanitize: mkdtemp: ") + strerror(errno));
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    std::string file(const char* name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

// Runs argv with stdout and stderr into `output`; -1 when it outlived `limit_s` (killed).
int spawn_logged(const std::vector<std::string>& args, const std::string& output, double limit_s) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("--sanitize: fork: ") + strerror(errno));
    if (pid == 0) {
        const int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        execv(argv[0], argv.data());
        std::fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("--sanitize: waitpid: ") + strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string last_lines(const std::string& text, size_t n) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!l.empty()) lines.push_back(l);
    std::string out;
    for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += (out.empty() ? "" : "; ") + lines[i];
    return out;
}

}  // namespace

std::string find_compute_sanitizer() {
    if (const char* env = std::getenv("TMASIM_COMPUTE_SANITIZER"); env && *env) {
        if (!executable(env))
            throw std::invalid_argument(std::string("--sanitize: TMASIM_COMPUTE_SANITIZER=") + env +
                                        " is not an executable file");
        return env;
    }
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && executable(dir + "/compute-sanitizer")) return dir + "/compute-sanitizer";
    }
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
        const std::string candidate = std::string(home) + "/bin/compute-sanitizer";
        if (executable(candidate)) return candidate;
    }
    if (executable("/usr/local/cuda/bin/compute-sanitizer")) return "/usr/local/cuda/bin/compute-sanitizer";
    throw std::invalid_argument("--sanitize: compute-sanitizer not found (looked on PATH, in $CUDA_HOME/bin and "
                                "/usr/local/cuda/bin); install the CUDA toolkit's compute-sanitizer or set "
                                "TMASIM_COMPUTE_SANITIZER");
}

std::string sanitizer_report_path(const std::string& trace_path, const std::string& tool) {
    fs::path p(trace_path);
    if (p.extension() == ".jsonl") p.replace_extension();
    return p.string() + "." + tool + ".txt";
}

void note_barrier_waits(std::vector<Diagnostic>& found, const Scenario& s) {
    for (Diagnostic& d : found) {
        if (d.rule != "sanitizer.synccheck.barrier" || d.op < 0) continue;
        const Op* op = s.find_op(d.op);
        if (!op || op->barrier.name.empty() ||
            (op->kind != OpKind::mbarrier_arrive && op->kind != OpKind::mbarrier_arrive_expect_tx &&
             op->kind != OpKind::cp_async_mbarrier_arrive))
            continue;
        bool waited = false;
        for (const Op* other : s.all_ops())
            waited = waited || (other->kind == OpKind::mbarrier_wait && other->barrier.name == op->barrier.name);
        d.detail["barrier"] = op->barrier.name;
        d.detail["barrier_waited"] = waited ? "1" : "0";
    }
}

SanitizedRun run_sanitized(const Scenario& s, const DeviceOptions& options, const std::string& tool,
                           const std::string& sanitizer) {
    TempDir dir;
    const std::string trace = dir.file("trace.jsonl"), log = dir.file("report.txt"), output = dir.file("output.txt");
    // Hazard records name the threads, analysis records every location and the hazard count:
    // `all` gives both. Racecheck writes a record per byte: the print limit keeps a report of
    // 32768 hazards to a few hundred records (a few of them name the threads well enough).
    // Device backtraces: the H200 reports of 2026-11-23, taken without them, named only the
    // wrapper's line, shared by every op that calls it; the caller's frame names the op.
    std::vector<std::string> args = {sanitizer, "--tool", tool, "--log-file", log, "--print-limit", "300",
                                     "--show-backtrace", "device"};
    if (tool == "racecheck") args.insert(args.end(), {"--racecheck-report", "all"});
    args.insert(args.end(), {tmasim_binary_path(), "run", s.file, "--backend", "device", "--no-isolation", "--line-info",
                             "--quiet", "--watchdog", fmt::format("{}", options.watchdog_seconds), "--trace",
                             to_string(options.trace), "--shared-dump", options.shared_dump ? "on" : "off",
                             "--output", trace, "--warm-launches", "0"});  // one launch: one report per hazard
    if (!options.cache_dir.empty()) args.insert(args.end(), {"--cache-dir", options.cache_dir});

    const double limit_s = options.watchdog_seconds + kSanitizerGraceSeconds;
    const int code = spawn_logged(args, output, limit_s);
    SanitizedRun run;
    run.report = slurp(log);
    if (code < 0) {
        run.result = synthetic_result(s, Outcome::hang, "device.wall_clock_limit",
                                     fmt::format("the run under compute-sanitizer {} did not finish within {:.0f} s; "
                                                 "its process was killed",
                                                 tool, limit_s));
    } else if (fs::exists(trace)) {
        run.result = read_trace(trace);
    } else if (code == 2 || code == 127) {
        // No run happened (no GPU, a kernel that does not build, the tool did not start).
        const std::string text = slurp(output);
        if (const size_t at = text.find(kDeviceUnavailablePrefix); at != std::string::npos) {
            const size_t from = at + std::string(kDeviceUnavailablePrefix).size();
            throw device::DeviceUnavailable(text.substr(from, text.find('\n', from) - from));
        }
        throw std::runtime_error("--sanitize " + tool + ": no run: " + last_lines(text, 3));
    } else {
        run.result = synthetic_result(s, Outcome::fault, "device.process_exit",
                                     fmt::format("the device run under compute-sanitizer {} wrote no trace (exit {})",
                                                 tool, code));
    }

    const device::SanitizerReport report = device::parse_sanitizer_report(run.report);
    // A kernel scenario ran its own PTX: the report names its source lines. An op scenario
    // ran the generated source, whose #line directives name the ops.
    const device::KernelLineMap lines =
        s.kernel ? device::KernelLineMap::for_kernel(ptx::parse_bound_kernel(s))
                 : device::KernelLineMap(device::generate_kernel_source(
                       s, options.trace, device::TraceWordsIn::global,
                       options.shared_dump ? device::SharedDump::copy_out : device::SharedDump::skip));
    // Which threads ran a kernel's ops is known to the model only (the device records a warp's
    // lowest lane): a short model run, functional, without a trace.
    std::map<int, int> single_thread_ops;
    if (s.kernel) single_thread_ops = run_model(s).single_thread_ops;
    std::vector<Diagnostic> found =
        device::sanitizer_diagnostics(report, tool, lines, s, s.kernel ? &single_thread_ops : nullptr);
    note_barrier_waits(found, s);
    RunResult& r = run.result;
    r.provenance.extra["sanitizer"] = tool;
    r.provenance.extra["sanitizer_findings"] = std::to_string(report.findings.size());
    if (report.has_summary) r.provenance.extra["sanitizer_summary"] = std::to_string(report.summary_count);
    // The executor's own code (its final barrier after a watchdog exit, say), and what the tool
    // does not follow, give no outcome.
    for (const Diagnostic& d : found)
        if (r.outcome == Outcome::ok && compared_finding(d)) r.outcome = d.outcome;
    r.diagnostics.insert(r.diagnostics.end(), found.begin(), found.end());
    return run;
}

}  // namespace tmasim::cli
