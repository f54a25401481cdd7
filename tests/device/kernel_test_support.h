#pragma once
// Helpers of the kernel-scenario device tests: the kernel catalog bound to its PTX (NVRTC for
// the .cu files, cached as the CLI caches it), ptxas on PTX text, and a scratch folder.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"

namespace tmasim::device::test {

inline std::vector<std::string> kernel_catalog_files() {
    std::vector<std::string> files;
    const auto root = std::filesystem::path(TMASIM_SOURCE_DIR) / "scenarios" / "catalog" / "kernels";
    for (const auto& e : std::filesystem::directory_iterator(root))
        if (e.path().extension() == ".yaml") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

inline Scenario load_bound(const std::string& path) {
    Scenario s = load_scenario_file(path);
    ptx::bind_kernel(s);
    return s;
}

// The catalog's kernel scenarios that load and bind, each with a warning for one that does not
// (a scenario may name a rule id the model has yet to get: that is the model's test to fail).
inline std::vector<Scenario> loadable_kernels() {
    std::vector<Scenario> out;
    for (const std::string& f : kernel_catalog_files()) {
        try {
            out.push_back(load_bound(f));
        } catch (const ScenarioError& e) {
            WARN("SKIPPED " << f << ": it does not load here: " << e.what());
        }
    }
    return out;
}

// A fresh folder under the system's temporary folder, removed at the end of the test.
class ScratchDir {
public:
    explicit ScratchDir(const std::string& tag) {
        std::string tmpl = (std::filesystem::temp_directory_path() / ("tmasim-" + tag + "-XXXXXX")).string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path_ = tmpl;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(file(name), std::ios::binary) << text;
        return file(name);
    }

private:
    std::string path_;
};

// ptxas of the toolkit tmasim was built against ($TMASIM_PTXAS overrides), or "" when missing.
inline std::string ptxas_path() {
    if (const char* p = std::getenv("TMASIM_PTXAS")) return p;
    const std::string p = "/usr/local/cuda/bin/ptxas";
    return ::access(p.c_str(), X_OK) == 0 ? p : "";
}

struct PtxasResult {
    int status = -1;
    std::string output;
};
// Assembles `ptx` for `arch` ("sm_90a"), printing its resource usage (-v).
inline PtxasResult run_ptxas(const std::string& ptxas, const ScratchDir& dir, const std::string& name, const std::string& ptx,
                             const std::string& arch) {
    const std::string in = dir.write(name + ".ptx", ptx);
    const std::string cmd = "'" + ptxas + "' -v -arch=" + arch + " -o '" + dir.file(name + ".cubin") + "' '" + in + "' 2>&1";
    PtxasResult r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
    const int status = ::pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// "sm_90a" for a module whose .target is sm_90a, ... (the first sm_ target).
inline std::string ptx_arch(const ptx::Module& m) {
    for (const std::string& t : m.targets)
        if (t.rfind("sm_", 0) == 0) return t;
    return "sm_90a";
}

}  // namespace tmasim::device::test
