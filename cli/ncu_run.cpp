#include "cli/ncu_run.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <sys/wait.h>
#include <unistd.h>

#include "device/emit/kernel_abi.h"

namespace tmasim::cli {
namespace fs = std::filesystem;

const char* const kNcuMetrics[] = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    // Global requests and sectors (sectors per request), for the layout scenarios.
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
};
const int kNcuMetricCount = sizeof(kNcuMetrics) / sizeof(kNcuMetrics[0]);

namespace {

std::string find_ncu() {
    if (const char* env = std::getenv("TMASIM_NCU"); env && *env) return env;
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && access((dir + "/ncu").c_str(), X_OK) == 0) return dir + "/ncu";
    }
    if (access("/usr/local/cuda/bin/ncu", X_OK) == 0) return "/usr/local/cuda/bin/ncu";
    throw std::runtime_error("--ncu: Nsight Compute (ncu) not found: set TMASIM_NCU or put ncu on PATH");
}

std::string self_path() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("--ncu: cannot find the tmasim binary: " + ec.message());
    return p.string();
}

// Fields of one CSV line; ncu quotes every field ("Grid Size" holds commas).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"') {
            if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else {
                quoted = !quoted;
            }
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

// Runs argv to completion (no shell, so no quoting); returns its exit status.
int spawn(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::cout.flush();
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("--ncu: fork: ") + strerror(errno));
    if (pid == 0) {
        execv(argv[0], argv.data());
        std::fprintf(stderr, "--ncu: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error(std::string("--ncu: waitpid: ") + strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_ncu_csv(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> metrics;
    std::stringstream in(text);
    int name_col = -1, value_col = -1;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] != '"') continue;  // ==PROF== lines and the inner run's output
        const std::vector<std::string> f = csv_fields(line);
        if (name_col < 0) {
            for (size_t i = 0; i < f.size(); ++i) {
                if (f[i] == "Metric Name") name_col = static_cast<int>(i);
                if (f[i] == "Metric Value") value_col = static_cast<int>(i);
            }
            if (name_col < 0 || value_col < 0) name_col = value_col = -1;
            continue;
        }
        if (static_cast<int>(f.size()) > std::max(name_col, value_col))
            metrics.emplace_back(f[static_cast<size_t>(name_col)], f[static_cast<size_t>(value_col)]);
    }
    return metrics;
}

int run_under_ncu(const std::vector<std::string>& inner_args) {
    const std::string ncu = find_ncu();
    std::string dir = "/tmp/tmasim-ncu-XXXXXX";
    if (!mkdtemp(dir.data())) throw std::runtime_error(std::string("--ncu: mkdtemp: ") + strerror(errno));
    const std::string log = dir + "/ncu.csv";

    std::string metrics;
    for (int i = 0; i < kNcuMetricCount; ++i) metrics += (i ? "," : "") + std::string(kNcuMetrics[i]);
    std::vector<std::string> args = {ncu, "--clock-control", "none", "--kernel-name", device::kKernelName,
                                     "--metrics", metrics, "--csv", "--log-file", log, self_path()};
    args.insert(args.end(), inner_args.begin(), inner_args.end());
    const int inner_rc = spawn(args);

    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    const auto found = parse_ncu_csv(text.str());
    if (found.empty())
        throw std::runtime_error("--ncu: ncu reported no counters for " + std::string(device::kKernelName) +
                                 " (exit " + std::to_string(inner_rc) + "); its log:\n" + text.str());
    std::cout << "ncu (--clock-control none), kernel " << device::kKernelName << ":\n";
    for (const auto& [name, value] : found) std::cout << "ncu: " << name << " = " << value << '\n';
    return inner_rc;
}

}  // namespace tmasim::cli
