#pragma once
// One GPU, its primary context, one loaded module and the device allocations of a run.
// Everything is released when the session ends, so a run that throws leaks nothing
// (after a fault the context is dead and the releases fail quietly; the CLI runs each
// scenario in a child process for that reason).
#include <cuda.h>

#include <string>
#include <vector>

#include "device/launch/cuda_driver.h"

namespace tmasim::device {

struct GpuInfo {
    std::string name;        // "NVIDIA H200"
    int cc_major = 0, cc_minor = 0;
    int sm_clock_mhz = 0;
    int max_smem_optin = 0;  // bytes of shared memory one block may opt in to
    int sm_count = 0;
    int smem_per_sm = 0;          // bytes of shared memory per SM
    int reserved_smem_per_block = 0;  // bytes the runtime keeps in every block's share
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    std::string cuda;        // CUDA version the driver supports, "13.0"
    std::string driver;      // kernel module version, "580.159.04" ("unknown" if unreadable)
    std::string sm() const;  // "sm_90"
};

// Throws DeviceUnavailable unless `gpu` can run code for a scenario of architecture `arch`
// ("sm_90", "sm_100"): the backend needs Hopper or newer, and sm_100 features (tile::gather4,
// tile::scatter4) need a Blackwell: "scenario needs sm_100 (Blackwell); this GPU is NVIDIA
// H200 (sm_90)".
void require_architecture(const std::string& arch, const GpuInfo& gpu);

class GpuSession {
public:
    // Device 0. Throws DeviceUnavailable when there is no device, CudaError otherwise.
    explicit GpuSession(const CudaDriver& driver);
    ~GpuSession();
    GpuSession(const GpuSession&) = delete;
    GpuSession& operator=(const GpuSession&) = delete;

    const GpuInfo& info() const { return info_; }
    const CudaDriver& driver() const { return drv_; }

    // Loads one more module (a session may hold several) and returns its kernel `name`.
    CUfunction load_kernel(const std::vector<char>& cubin, const char* name);
    // Loads PTX text, which the driver JIT-compiles for this GPU (cuModuleLoadDataEx), and
    // returns the module. Throws std::runtime_error with the JIT's log, naming `what`.
    // line_info: the JIT keeps the PTX's `.loc` lines (CU_JIT_GENERATE_LINE_INFO), which a
    // compute-sanitizer report names; the code is the same.
    CUmodule load_ptx(const std::string& ptx, const std::string& what, bool line_info = false);
    CUdeviceptr alloc(size_t bytes, bool zero);  // at least 1 byte
    void upload(CUdeviceptr dst, const void* src, size_t bytes);
    void download(void* dst, CUdeviceptr src, size_t bytes);

private:
    const CudaDriver& drv_;
    CUdevice dev_ = 0;
    CUcontext ctx_ = nullptr;
    std::vector<CUmodule> modules_;
    std::vector<CUdeviceptr> allocations_;
    GpuInfo info_;
};

}  // namespace tmasim::device
