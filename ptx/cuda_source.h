#pragma once
// A kernel scenario's CUDA C++ source compiled to PTX by NVRTC, as both backends run it:
// compute_90a (compute_100a for sm_100), -lineinfo, C++17, CCCL and the toolkit's headers and
// the source's own folder on the include path, the scenario's defines. The PTX is cached on
// disk by a hash of the source, the headers beside it, the options and NVRTC's version, so a
// catalog run compiles each kernel once (CCCL's headers make a compile take seconds).
#include <string>
#include <vector>

namespace tmasim::ptx {

struct CudaCompile {
    bool ok = false;
    std::string ptx;        // without NVRTC's trailing NUL
    std::string log;        // NVRTC's log (all of it on failure)
    std::string ptx_file;   // where the PTX was written (the cache), "" when it could not be
    bool from_cache = false;
};

// Whether this tmasim was built with NVRTC (the CUDA toolkit at build time).
bool cuda_compiler_available();

// `arch`: "sm_90" or "sm_100". `cache_dir` "" means $TMASIM_CACHE_DIR, else ~/.cache/tmasim.
CudaCompile compile_cuda_to_ptx(const std::string& source_path, const std::string& source,
                                const std::string& arch, const std::vector<std::string>& defines,
                                const std::string& cache_dir = "");

}  // namespace tmasim::ptx
