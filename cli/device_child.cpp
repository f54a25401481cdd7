#include "cli/device_child.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "device/launch/device_unavailable.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {
namespace {

// Child exit statuses meaning "run_device threw; the message is in error.txt": the run
// cannot happen on this machine (DeviceUnavailable), or any other error.
constexpr int kChildThrew = 3;
constexpr int kChildUnavailable = 4;

// A private temporary directory for the child's trace and error message, removed on exit.
class TempDir {
public:
    TempDir() {
        std::string tmpl = "/tmp/tmasim-device-XXXXXX";
        if (!mkdtemp(tmpl.data())) throw std::runtime_error(std::string("cannot create a temp dir: ") + strerror(errno));
        path_ = tmpl;
    }
    ~TempDir() {
        std::remove(file("trace.jsonl").c_str());
        std::remove(file("error.txt").c_str());
        std::remove(file("provenance.txt").c_str());
        rmdir(path_.c_str());
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

[[noreturn]] void child_main(const Scenario& scenario, DeviceOptions options, const TempDir& dir) {
    int status = 0;
    // What the parent needs for a readable trace if it has to kill this run (a hang the
    // kernel's watchdog did not end): the GPU, its clock, driver and CUDA, and the timing.
    options.on_provenance = [&dir](const Provenance& p) {
        std::ofstream out(dir.file("provenance.txt"));
        out << p.gpu << '\n' << p.sm_clock_mhz << '\n' << p.driver << '\n' << p.cuda << '\n';
        for (const auto& [key, value] : p.extra) out << key << '=' << value << '\n';
    };
    try {
        write_trace_file(run_device(scenario, options), dir.file("trace.jsonl"));
    } catch (const device::DeviceUnavailable& e) {
        std::ofstream(dir.file("error.txt")) << e.what();
        status = kChildUnavailable;
    } catch (const std::exception& e) {
        std::ofstream(dir.file("error.txt")) << e.what();
        status = kChildThrew;
    } catch (...) {
        std::ofstream(dir.file("error.txt")) << "device run failed with an unknown exception";
        status = kChildThrew;
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(status);  // no atexit handlers or static destructors of the parent's copy
}

}  // namespace

RunResult run_device_isolated(const Scenario& scenario, const DeviceOptions& options) {
    TempDir dir;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);  // or the child would print the parent's pending output again

    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("cannot fork the device run: ") + strerror(errno));
    if (pid == 0) child_main(scenario, options, dir);

    // Each launch (the warm ones too) may run up to the watchdog before it gives up.
    const int launches = 1 + std::max(0, options.warm_launches);
    const double limit_s = options.watchdog_seconds * launches + kDeviceGraceSeconds;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + strerror(errno));
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            char msg[200];
            std::snprintf(msg, sizeof msg,
                          "the device run did not finish within %.1f s (watchdog %.1f s for each of %d launches "
                          "+ %.0f s grace); its process was killed",
                          limit_s, options.watchdog_seconds, launches, kDeviceGraceSeconds);
            RunResult r = synthetic_result(scenario, Outcome::hang, "device.wall_clock_limit", msg);
            apply_child_provenance(dir.file("provenance.txt"), r.provenance);
            return r;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }

    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        RunResult r = synthetic_result(scenario, Outcome::fault, "device.process_killed",
                                       "the device run's process died from signal " + std::to_string(sig) + " (" +
                                           strsignal(sig) + ")");
        apply_child_provenance(dir.file("provenance.txt"), r.provenance);
        return r;
    }
    int code = WEXITSTATUS(status);
    if (code == kChildThrew || code == kChildUnavailable) {
        std::string message = slurp(dir.file("error.txt"));
        if (message.empty()) message = "the device run failed without a message";
        if (code == kChildUnavailable) throw device::DeviceUnavailable(message);
        throw std::runtime_error(message);
    }
    if (code != 0)
        return synthetic_result(scenario, Outcome::fault, "device.process_exit",
                                "the device run's process exited with status " + std::to_string(code));
    try {
        return read_trace(dir.file("trace.jsonl"));
    } catch (const TraceError& e) {
        return synthetic_result(scenario, Outcome::fault, "device.bad_trace",
                                std::string("the device run's trace could not be read back: ") + e.what());
    }
}

std::string device_unavailable_here() {
    TempDir dir;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return "";
    if (pid == 0) {
        int status = 0;
        try {
            device::require_device();
        } catch (const device::DeviceUnavailable& e) {
            std::ofstream(dir.file("error.txt")) << e.what();
            status = kChildUnavailable;
        } catch (...) {
            status = kChildThrew;
        }
        std::fflush(nullptr);
        _exit(status);
    }
    // Opening the GPU takes well under a second; a driver that hangs in cuInit gets the grace.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kDeviceGraceSeconds);
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if ((done < 0 && errno != EINTR) || std::chrono::steady_clock::now() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return "";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != kChildUnavailable) return "";
    const std::string message = slurp(dir.file("error.txt"));
    return message.empty() ? "the device backend cannot run on this machine" : message;
}

RunResult synthetic_result(const Scenario& s, Outcome outcome, const std::string& rule, const std::string& msg) {
    RunResult r;
    r.provenance.backend = "device";
    r.provenance.tool_version = TMASIM_VERSION;
    r.provenance.scenario = s.name;
    r.provenance.scenario_file = s.file;
    r.provenance.scenario_hash = s.content_hash;
    r.outcome = outcome;
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.message = msg;
    r.diagnostics.push_back(d);
    return r;
}

void apply_child_provenance(const std::string& path, Provenance& p) {
    std::ifstream in(path);
    std::string gpu, clock, driver, cuda, line;
    if (!std::getline(in, gpu) || !std::getline(in, clock) || !std::getline(in, driver) || !std::getline(in, cuda))
        return;  // the child died before it knew its GPU: the trace says nothing of one
    int mhz = 0;
    try {
        mhz = std::stoi(clock);
    } catch (const std::exception&) {
        return;
    }
    if (gpu.empty() || mhz <= 0) return;
    p.gpu = gpu;
    p.sm_clock_mhz = mhz;
    p.driver = driver;
    p.cuda = cuda;
    while (std::getline(in, line)) {
        const size_t eq = line.find('=');
        if (eq != std::string::npos && eq > 0) p.extra[line.substr(0, eq)] = line.substr(eq + 1);
    }
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace tmasim::cli
