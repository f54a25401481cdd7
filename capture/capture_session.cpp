#include "capture/capture_session.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "capture/launch_records.h"
#include "capture/ptx_locator.h"
#include "capture/replay_scenario.h"
#include "scenarios/loader.h"
#include "traces/trace_writer.h"

extern char** environ;

namespace tmasim::capture {

namespace fs = std::filesystem;

namespace {

std::string file_bytes_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + p.string());
}

// The GPU's output as a trace: the scenario's global tensors as they were after the launch.
struct DeviceInfo {
    std::string gpu = "a GPU", driver;
    int clock_mhz = 0;
};

// raw/device.txt: the GPU's name, the driver's CUDA version (12080 is 12.8), the SM clock in kHz.
DeviceInfo read_device(const fs::path& raw) {
    DeviceInfo d;
    std::ifstream in(raw / "device.txt");
    std::string driver, clock;
    if (std::getline(in, d.gpu) && std::getline(in, driver) && std::getline(in, clock)) {
        d.driver = driver;
        d.clock_mhz = std::atoi(clock.c_str()) / 1000;
    }
    if (d.clock_mhz <= 0) throw std::runtime_error((raw / "device.txt").string() + ": no SM clock recorded (a broken capture)");
    return d;
}

void write_reference(const fs::path& scenario_path, const ReplayScenario& r, const CapturedLaunch& l,
                     const fs::path& raw, const DeviceInfo& device, const fs::path& out) {
    const Scenario s = load_scenario_file(scenario_path.string());
    RunResult result;
    result.provenance = provenance_for(s, "device");
    result.provenance.gpu = device.gpu;
    result.provenance.sm_clock_mhz = device.clock_mhz;
    result.provenance.cuda = device.driver;
    result.provenance.extra["captured_by"] = "tmasim capture";
    result.outcome = l.sync_after == 0 ? Outcome::ok : Outcome::fault;
    for (const auto& [name, hash] : r.outputs) {
        MemoryImage m;
        m.name = name;
        m.space = "global";
        const std::string bytes = file_bytes_text(raw / "data" / (hash + ".bin"));
        m.bytes.assign(bytes.begin(), bytes.end());
        result.memory.push_back(std::move(m));
    }
    write_trace_file(result, out.string());
}

}  // namespace

std::string find_capture_library(const std::string& given, const std::string& tmasim_exe) {
    if (!given.empty()) return fs::exists(given) ? fs::absolute(given).string() : "";
    if (const char* env = std::getenv("TMASIM_CAPTURE_LIB"); env && fs::exists(env)) return fs::absolute(env).string();
    const fs::path bin = fs::path(tmasim_exe).parent_path();
    for (const fs::path& p : {bin / "libtmasim_capture.so", bin / ".." / "capture" / "injection" / "libtmasim_capture.so",
                              bin / ".." / "lib" / "tmasim" / "libtmasim_capture.so"})
        if (fs::exists(p)) return fs::canonical(p).string();
    return "";
}

int run_captured_program(const CaptureOptions& o) {
    if (o.program.empty()) throw std::runtime_error("no program to capture: tmasim capture -o DIR -- PROGRAM ARGS...");
    fs::create_directories(o.dir);
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e) {
        const std::string v = *e;
        if (v.rfind("CUDA_INJECTION64_PATH=", 0) == 0 || v.rfind("TMASIM_CAPTURE_", 0) == 0) continue;
        env_text.push_back(v);
    }
    env_text.push_back("CUDA_INJECTION64_PATH=" + o.library);
    env_text.push_back("TMASIM_CAPTURE_DIR=" + fs::absolute(o.dir).string());
    if (!o.kernel.empty()) env_text.push_back("TMASIM_CAPTURE_KERNEL=" + o.kernel);
    if (o.limit >= 0) env_text.push_back("TMASIM_CAPTURE_LIMIT=" + std::to_string(o.limit));
    std::vector<char*> env, args;
    for (auto& v : env_text) env.push_back(v.data());
    env.push_back(nullptr);
    std::vector<std::string> argv = o.program;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), env.data()) != 0)
        throw std::runtime_error("cannot start " + o.program[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    std::ofstream(fs::path(o.dir) / "raw" / "program.txt") << [&] {
        std::string line;
        for (const auto& a : o.program) line += (line.empty() ? "" : " ") + a;
        return line;
    }() << "\n";
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

CaptureSummary write_replays(const std::string& dir_text, const std::string& cuobjdump) {
    const fs::path dir(dir_text), raw = dir / "raw";
    CaptureSummary summary;
    const std::vector<CapturedLaunch> launches = read_launches((raw / "launches.jsonl").string());
    std::string program = file_bytes_text(raw / "program.txt");
    if (!program.empty() && program.back() == '\n') program.pop_back();
    if (launches.empty()) {
        summary.missed.push_back("no launch was captured (" + (raw / "callbacks.txt").string() + " lists what CUPTI reported)");
        return summary;
    }
    const DeviceInfo device = read_device(raw);
    if (std::ifstream m(raw / "missed.txt"); m)
        for (std::string line; std::getline(m, line);) summary.missed.push_back(line);
    PtxLocator locator(raw.string(), cuobjdump);
    std::map<std::string, std::string> ptx_copies;  // located file -> its copy under DIR/ptx
    fs::create_directories(dir / "ptx");
    fs::create_directories(dir / "reference");
    for (const CapturedLaunch& l : launches) {
        CapturedRow row{"", l.entry, ""};
        ReplayContext c;
        c.program = program;
        c.gpu = device.gpu;
        c.data_dir = "raw/data";
        try {
            const std::string located = locator.find(l.entry);
            auto& copy = ptx_copies[located];
            if (copy.empty()) {
                copy = "ptx/" + std::to_string(ptx_copies.size() - 1) + "_" + fs::path(located).filename().string();
                fs::copy_file(located, dir / copy, fs::copy_options::overwrite_existing);
            }
            c.ptx_file = copy;
            const std::string text = file_bytes_text(located);
            const size_t target = text.find(".target ");
            c.ptx_target = target == std::string::npos ? "" : text.substr(target + 8, text.find_first_of(" ,\n", target + 8) - target - 8);
        } catch (const std::exception& e) {
            row.name = "capture_" + std::to_string(l.index);
            row.refused = e.what();
            summary.rows.push_back(row);
            continue;
        }
        const ReplayScenario r = replay_scenario(l, c);
        row.name = r.name;
        row.refused = r.refused;
        if (r.refused.empty()) {
            const fs::path yaml = dir / (r.name + ".yaml");
            write_text(yaml, r.yaml);
            try {
                write_reference(yaml, r, l, raw, device, dir / "reference" / (r.name + ".jsonl"));
            } catch (const std::exception& e) {
                row.refused = std::string("the scenario written does not load: ") + e.what();
                fs::rename(yaml, dir / (r.name + ".yaml.refused"));
            }
        }
        summary.rows.push_back(row);
    }
    return summary;
}

}  // namespace tmasim::capture
