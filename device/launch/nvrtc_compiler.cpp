#include "device/launch/nvrtc_compiler.h"

#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>
#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include "device/sanitizer/sanitizer_ops.h"
#include "scenarios/values.h"

namespace tmasim::device {

namespace fs = std::filesystem;

std::string nvrtc_version() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
    return fmt::format("{}.{}", major, minor);
}

std::string resolve_cache_dir(const std::string& cache_dir) {
    if (cache_dir == "-") return "";
    if (!cache_dir.empty()) return cache_dir;
    if (const char* env = std::getenv("TMASIM_CACHE_DIR"); env && *env) return env;
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "tmasim").string();
    return "";
}

namespace {

bool read_file(const fs::path& p, std::vector<char>& out) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return in.good() || in.eof();
}

// Write to a temporary name, then rename: a concurrent reader never sees half a cubin.
void write_file_atomically(const fs::path& p, const std::vector<char>& bytes) {
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    if (ec) return;
    const fs::path tmp = p.string() + fmt::format(".tmp{}", static_cast<long>(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (!out) {
            fs::remove(tmp, ec);
            return;
        }
    }
    fs::rename(tmp, p, ec);
    if (ec) fs::remove(tmp, ec);
}

struct ProgramDeleter {
    void operator()(nvrtcProgram* p) const {
        nvrtcDestroyProgram(p);
        delete p;
    }
};

std::string program_log(nvrtcProgram prog) {
    size_t size = 0;
    if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size == 0) return "";
    std::string log(size, '\0');
    if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return "";
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

}  // namespace

CompileResult compile_cuda(const std::string& source, const std::string& target,
                           const std::string& cache_dir, bool line_info) {
    CompileResult r;
    const std::string dir = resolve_cache_dir(cache_dir);
    if (!dir.empty()) {
        const std::string keyed =
            source + '\n' + target + '\n' + nvrtc_version() + (line_info ? "\n-lineinfo" : "");
        r.cache_file = (fs::path(dir) / (fnv1a64_hex(keyed.data(), keyed.size()) + ".cubin")).string();
        if (read_file(r.cache_file, r.cubin) && !r.cubin.empty()) {
            r.ok = true;
            r.from_cache = true;
            return r;
        }
        r.cubin.clear();
    }

    std::unique_ptr<nvrtcProgram, ProgramDeleter> prog(new nvrtcProgram{});
    nvrtcResult rc = nvrtcCreateProgram(prog.get(), source.c_str(), kKernelSourceName, 0,
                                        nullptr, nullptr);
    if (rc != NVRTC_SUCCESS) {
        delete prog.release();
        r.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(rc);
        return r;
    }
    const std::string arch = "-arch=" + target;
    // --fmad=false: float compute must round once per operation, like the model.
    std::vector<const char*> options = {arch.c_str(), "--fmad=false", "-std=c++17", "-default-device"};
    if (line_info) options.push_back("-lineinfo");
    rc = nvrtcCompileProgram(*prog, static_cast<int>(options.size()), options.data());
    r.log = program_log(*prog);
    if (rc != NVRTC_SUCCESS) {
        r.log = fmt::format("NVRTC failed for {} ({}):\n{}", target, nvrtcGetErrorString(rc), r.log);
        return r;
    }
    size_t size = 0;
    rc = nvrtcGetCUBINSize(*prog, &size);
    if (rc != NVRTC_SUCCESS || size == 0) {
        r.log += fmt::format("\nnvrtcGetCUBINSize: {} (is {} a real architecture?)",
                             nvrtcGetErrorString(rc), target);
        return r;
    }
    r.cubin.resize(size);
    rc = nvrtcGetCUBIN(*prog, r.cubin.data());
    if (rc != NVRTC_SUCCESS) {
        r.cubin.clear();
        r.log += std::string("\nnvrtcGetCUBIN: ") + nvrtcGetErrorString(rc);
        return r;
    }
    r.ok = true;
    if (!r.cache_file.empty()) write_file_atomically(r.cache_file, r.cubin);
    return r;
}

}  // namespace tmasim::device
