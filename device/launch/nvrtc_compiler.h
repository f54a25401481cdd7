#pragma once
// NVRTC: CUDA C++ -> cubin for one target ("sm_90a", "sm_100a"). Needs no GPU, so CI
// compiles every catalog scenario's kernel. Cubins are cached on disk by a hash of
// (source, target, NVRTC version); a cache that cannot be read or written is skipped.
#include <string>
#include <vector>

namespace tmasim::device {

struct CompileResult {
    bool ok = false;
    std::vector<char> cubin;   // empty on failure
    std::string log;           // NVRTC's log (the whole of it on failure)
    bool from_cache = false;
    std::string cache_file;    // where the cubin was (or would have been) cached; "" if none
};

// "13.0"
std::string nvrtc_version();

// Options: -arch=<target> --fmad=false -std=c++17 -default-device, and -lineinfo with
// line_info (source lines for compute-sanitizer's reports; the code is the same).
// cache_dir: "" means $TMASIM_CACHE_DIR, else ~/.cache/tmasim; "-" disables the cache.
CompileResult compile_cuda(const std::string& source, const std::string& target,
                           const std::string& cache_dir = "", bool line_info = false);

// The directory compile_cuda would use for `cache_dir` ("" when no cache is possible).
std::string resolve_cache_dir(const std::string& cache_dir);

}  // namespace tmasim::device
