#include "device/launch/gpu_session.h"
#include "device/launch/device_unavailable.h"

#include <cstdint>
#include <fstream>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::device {

namespace {

// The driver API reports the CUDA version, not the kernel module's; Linux has it here.
std::string kernel_module_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string first;
    if (!in || !std::getline(in, first)) return "unknown";
    std::smatch m;
    if (std::regex_search(first, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) return m.str(1);
    return "unknown";
}

}  // namespace

std::string GpuInfo::sm() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

// sm_90a code runs on cc 9.0 only and sm_100a code on cc 10.0 only, so an sm_100 scenario
// (whose kernel uses sm_100a instructions) cannot fall back to a Hopper.
void require_architecture(const std::string& arch, const GpuInfo& gpu) {
    if (arch == "sm_100" && gpu.cc_major != 10)
        throw DeviceUnavailable(fmt::format("scenario needs sm_100 (Blackwell); this GPU is {} ({})",
                                            gpu.name, gpu.sm()));
    if (gpu.cc_major < 9)
        throw DeviceUnavailable(fmt::format(
            "the device backend needs compute capability 9.0 or newer (Hopper: TMA, mbarrier "
            "tx-count); this GPU is {} ({})",
            gpu.name, gpu.sm()));
}

GpuSession::GpuSession(const CudaDriver& driver) : drv_(driver) {
    const CUresult init = drv_.cuInit(0);
    if (init != CUDA_SUCCESS)
        throw DeviceUnavailable(fmt::format(
            "the CUDA driver is present but cuInit failed ({}: {}): no usable NVIDIA GPU; use "
            "--backend model",
            drv_.error_name(init), drv_.error_string(init)));
    int count = 0;
    drv_.check(drv_.cuDeviceGetCount(&count), "cuDeviceGetCount");
    if (count < 1)
        throw DeviceUnavailable("no CUDA device found: the device backend needs an NVIDIA GPU; "
                                "use --backend model");
    drv_.check(drv_.cuDeviceGet(&dev_, 0), "cuDeviceGet");

    char name[256] = {};
    drv_.check(drv_.cuDeviceGetName(name, sizeof name - 1, dev_), "cuDeviceGetName");
    info_.name = name;
    auto attr = [&](CUdevice_attribute a, const char* what) {
        int v = 0;
        drv_.check(drv_.cuDeviceGetAttribute(&v, a, dev_), what);
        return v;
    };
    info_.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute(cc major)");
    info_.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute(cc minor)");
    info_.sm_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "cuDeviceGetAttribute(clock rate)") / 1000;
    info_.max_smem_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                "cuDeviceGetAttribute(max shared memory opt-in)");
    info_.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "cuDeviceGetAttribute(SM count)");
    info_.smem_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                             "cuDeviceGetAttribute(shared memory per SM)");
    info_.reserved_smem_per_block = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
                                         "cuDeviceGetAttribute(reserved shared memory per block)");
    info_.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                                    "cuDeviceGetAttribute(threads per SM)");
    info_.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                                   "cuDeviceGetAttribute(blocks per SM)");
    int version = 0;
    drv_.check(drv_.cuDriverGetVersion(&version), "cuDriverGetVersion");
    info_.cuda = fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
    info_.driver = kernel_module_version();

    drv_.check(drv_.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    drv_.check(drv_.cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

GpuSession::~GpuSession() {
    // Results ignored: after a fault every call here fails, and there is nothing to do.
    for (CUdeviceptr p : allocations_) drv_.cuMemFree(p);
    for (CUmodule m : modules_) drv_.cuModuleUnload(m);
    if (ctx_) drv_.cuDevicePrimaryCtxRelease(dev_);
}

// The session's constructor throws what a run would for this machine; Hopper is the oldest
// GPU any scenario runs on (require_architecture's floor).
void require_device() {
    const GpuSession session(CudaDriver::get());
    require_architecture("sm_90", session.info());
}

CUfunction GpuSession::load_kernel(const std::vector<char>& cubin, const char* name) {
    CUmodule module = nullptr;
    drv_.check(drv_.cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData");
    modules_.push_back(module);
    CUfunction f = nullptr;
    drv_.check(drv_.cuModuleGetFunction(&f, module, name), "cuModuleGetFunction");
    return f;
}

CUmodule GpuSession::load_ptx(const std::string& ptx, const std::string& what, bool line_info) {
    // The JIT's messages (an instruction this GPU lacks, a PTX version the driver predates).
    std::vector<char> error_log(16384, 0), info_log(16384, 0);
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_GENERATE_LINE_INFO};
    void* values[] = {error_log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(error_log.size() - 1)), info_log.data(),
                      reinterpret_cast<void*>(static_cast<uintptr_t>(info_log.size() - 1)),
                      reinterpret_cast<void*>(static_cast<uintptr_t>(1))};
    CUmodule module = nullptr;
    // The image is NUL-terminated PTX text: std::string's c_str().
    const CUresult rc = drv_.cuModuleLoadDataEx(&module, ptx.c_str(), line_info ? 5 : 4, options, values);
    if (rc != CUDA_SUCCESS)
        throw std::runtime_error(fmt::format("device: the driver cannot load {} (cuModuleLoadDataEx: {}: {}){}{}", what,
                                             drv_.error_name(rc), drv_.error_string(rc), error_log[0] ? ":\n" : "",
                                             error_log.data()));
    modules_.push_back(module);
    return module;
}

CUdeviceptr GpuSession::alloc(size_t bytes, bool zero) {
    CUdeviceptr p = 0;
    bytes = bytes == 0 ? 1 : bytes;
    drv_.check(drv_.cuMemAlloc(&p, bytes), "cuMemAlloc");
    allocations_.push_back(p);
    if (zero) drv_.check(drv_.cuMemsetD8(p, 0, bytes), "cuMemsetD8");
    return p;
}

void GpuSession::upload(CUdeviceptr dst, const void* src, size_t bytes) {
    if (bytes) drv_.check(drv_.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void GpuSession::download(void* dst, CUdeviceptr src, size_t bytes) {
    if (bytes) drv_.check(drv_.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

}  // namespace tmasim::device
