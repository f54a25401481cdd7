#include "ptx/cuda_source.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#ifdef TMASIM_PTX_WITH_NVRTC
#include <nvrtc.h>
#endif

namespace tmasim::ptx {
namespace {

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string folder_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

bool read_small_file(const std::string& path, std::string& out) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (4 << 20)) return false;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out = ss.str();
    return static_cast<bool>(in) || in.eof();
}

// The headers a catalog kernel includes live beside it: their text is part of the key, so an
// edit of kernel_common.cuh compiles again. (Headers elsewhere are the toolkit's, fixed by
// NVRTC's version.)
std::string sibling_headers(const std::string& folder) {
    std::string all;
    DIR* d = ::opendir(folder.c_str());
    if (!d) return all;
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        auto ends = [&](const char* suf) { return n.size() > std::string(suf).size() && n.compare(n.size() - std::string(suf).size(), std::string::npos, suf) == 0; };
        if (ends(".cuh") || ends(".h")) names.push_back(n);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
        std::string text;
        if (read_small_file(folder + "/" + n, text)) all += n + '\0' + text + '\0';
    }
    return all;
}

std::string cache_folder(const std::string& cache_dir) {
    if (!cache_dir.empty()) return cache_dir;
    if (const char* env = std::getenv("TMASIM_CACHE_DIR"); env && *env) return env;
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tmasim";
    return "";
}

void make_dirs(const std::string& dir) {
    for (size_t i = 1; i <= dir.size(); ++i)
        if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
}

}  // namespace

#ifdef TMASIM_PTX_WITH_NVRTC

bool cuda_compiler_available() { return true; }

CudaCompile compile_cuda_to_ptx(const std::string& source_path, const std::string& source, const std::string& arch,
                                const std::vector<std::string>& defines, const std::string& cache_dir) {
    const std::string folder = folder_of(source_path);
    std::vector<std::string> options = {arch == "sm_100" ? "-arch=compute_100a" : "-arch=compute_90a", "-lineinfo",
                                        "-std=c++17", "--include-path=" TMASIM_CUDA_INCLUDE "/cccl",
                                        "--include-path=" TMASIM_CUDA_INCLUDE, "--include-path=" + folder};
    for (const std::string& d : defines) options.push_back("-D" + d);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    std::string key_text = fmt::format("nvrtc {}.{}\n", major, minor) + source_path + '\0' + source + '\0' +
                           sibling_headers(folder);
    for (const std::string& o : options) key_text += o + '\0';
    const std::string name = fmt::format("{:016x}", fnv1a(key_text));
    CudaCompile out;
    const std::string dir = cache_folder(cache_dir);
    const std::string base = source_path.substr(source_path.rfind('/') + 1);
    const std::string cached = dir.empty() ? "" : dir + "/ptx/" + base + "." + name + ".ptx";
    if (!cached.empty() && read_small_file(cached, out.ptx) && !out.ptx.empty()) {
        out.ok = true;
        out.from_cache = true;
        out.ptx_file = cached;
        return out;
    }
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, source.c_str(), source_path.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
        out.log = "NVRTC could not create a program";
        return out;
    }
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());
    const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    out.log.assign(n, '\0');
    if (n) nvrtcGetProgramLog(prog, out.log.data());
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
    if (r == NVRTC_SUCCESS) {
        nvrtcGetPTXSize(prog, &n);
        out.ptx.assign(n, '\0');
        nvrtcGetPTX(prog, out.ptx.data());
        while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
        out.ok = true;
    }
    nvrtcDestroyProgram(&prog);
    if (out.ok && !cached.empty()) {
        make_dirs(dir + "/ptx");
        // Written under a temporary name and renamed: a concurrent compile of the same kernel
        // (ctest -j2) never reads a half-written file.
        const std::string tmp = cached + fmt::format(".tmp{}", ::getpid());
        std::ofstream f(tmp, std::ios::binary);
        f << out.ptx;
        f.close();
        if (f && std::rename(tmp.c_str(), cached.c_str()) == 0) out.ptx_file = cached;
        else std::remove(tmp.c_str());
    }
    return out;
}

#else

bool cuda_compiler_available() { return false; }

CudaCompile compile_cuda_to_ptx(const std::string&, const std::string&, const std::string&,
                                const std::vector<std::string>&, const std::string&) {
    CudaCompile out;
    out.log = "this tmasim was built without the CUDA toolkit (NVRTC); give the kernel as ptx: FILE.ptx";
    return out;
}

#endif

}  // namespace tmasim::ptx
