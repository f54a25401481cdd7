#include "device/kernels/kernel_module_launch.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "device/kernels/ptx_timing.h"
#include "device/launch/tensor_map_encode.h"
#include "scenarios/values.h"

namespace tmasim::device {

namespace {
constexpr int kSharedBytesWithoutOptIn = 48 * 1024;  // what a function may use without opting in
constexpr int kPortableClusterSize = 8;          // sm_90's portable limit (cuda.h)
}  // namespace

KernelScenarioLaunch::KernelScenarioLaunch(GpuSession& gpu, const Scenario& s, const ptx::Function& entry)
    : gpu_(gpu), s_(s), entry_(entry) {}

void KernelScenarioLaunch::prepare() {
    dims_ = launch_dims(s_.launch);
    ParamSources sources;
    for (const GlobalTensor& g : s_.globals) {
        globals_.push_back(gpu_.alloc(static_cast<size_t>(g.size_bytes()), false));
        init_.push_back(initial_bytes(g));
        sources.global_address[g.name] = globals_.back();
    }
    for (const TensorMap& m : s_.tensormaps) {
        const GlobalTensor* g = s_.find_global(m.tensor);
        if (!g) throw ScenarioError(m.loc, "tensormaps." + m.name, "names no global tensor: " + m.tensor);
        CUtensorMap encoded{};
        encode_tensor_map(gpu_.driver(), m, *g, globals_.at(static_cast<size_t>(g - s_.globals.data())), &encoded);
        static_assert(sizeof(CUtensorMap) == sizeof(TensorMapBytes), "a CUtensorMap is 128 bytes");
        TensorMapBytes bytes;
        std::memcpy(bytes.data(), &encoded, bytes.size());
        sources.tensor_map[m.name] = bytes;
    }
    params_ = build_param_buffer(s_, entry_, sources);
    for (size_t off : params_.offsets) param_pointers_.push_back(params_.bytes.data() + off);
    reset_memory();
}

LoadedKernel KernelScenarioLaunch::load(const std::string& ptx, const std::string& what, bool has_timing_variable,
                                        bool line_info) {
    const CudaDriver& drv = gpu_.driver();
    LoadedKernel k;
    k.what = what;
    const CUmodule module = gpu_.load_ptx(ptx, what, line_info);
    drv.check(drv.cuModuleGetFunction(&k.fn, module, entry_.name.c_str()), "cuModuleGetFunction");
    if (has_timing_variable) {
        size_t bytes = 0;
        drv.check(drv.cuModuleGetGlobal(&k.timing_variable, &bytes, module, kTimingVariable), "cuModuleGetGlobal");
        if (bytes != sizeof(CUdeviceptr))
            throw std::runtime_error(fmt::format("device: {} has a {}-byte {}; the rewrite declares 8", what, bytes, kTimingVariable));
    }
    int max_threads = 0;
    drv.check(drv.cuFuncGetAttribute(&k.static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.fn), "cuFuncGetAttribute(shared size)");
    drv.check(drv.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.fn), "cuFuncGetAttribute(max threads)");
    const Launch& l = s_.launch;
    if (l.block > max_threads)
        throw ScenarioError(l.loc, "launch.block", fmt::format("{} threads per block; {} of {} allows at most {} (its registers "
                                                               "per thread or its .maxntid)", l.block, what, entry_.name,
                                                               max_threads));
    const int64_t total = k.static_shared + l.dynamic_shared;
    const GpuInfo& info = gpu_.info();
    if (total > info.max_smem_optin)
        throw ScenarioError(l.loc, "launch.dynamic_shared",
                            fmt::format("{} bytes of dynamic and {} of static shared memory ({}) make {}; {} allows {} per block",
                                        l.dynamic_shared, k.static_shared, what, total, info.name, info.max_smem_optin));
    // The attribute bounds the dynamic part alone, up to the opt-in limit less the static part
    // (cuda.h, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): the dynamic size is what it needs.
    if (total > kSharedBytesWithoutOptIn) {
        const CUresult rc = drv.cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                   static_cast<int>(l.dynamic_shared));
        if (rc != CUDA_SUCCESS)
            throw ScenarioError(l.loc, "launch.dynamic_shared",
                                fmt::format("the driver refuses {} bytes of dynamic shared memory for {}: {}: {}", l.dynamic_shared,
                                            what, drv.error_name(rc), drv.error_string(rc)));
    }
    if (dims_.cluster_size() > kPortableClusterSize) {
        const CUresult rc = drv.cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        if (rc != CUDA_SUCCESS)
            throw ScenarioError(l.loc, "launch.cluster",
                                fmt::format("clusters of {} CTAs need a non-portable cluster size, which the driver refuses for {}: "
                                            "{}: {}", dims_.cluster_size(), what, drv.error_name(rc), drv.error_string(rc)));
    }
    return k;
}

void KernelScenarioLaunch::set_timing_buffer(const LoadedKernel& k, CUdeviceptr buffer) {
    if (!k.timing_variable) throw std::logic_error("set_timing_buffer: a module without the timing variable");
    gpu_.upload(k.timing_variable, &buffer, sizeof buffer);
}

void KernelScenarioLaunch::reset_memory() {
    for (size_t i = 0; i < globals_.size(); ++i) gpu_.upload(globals_[i], init_[i].data(), init_[i].size());
}

KernelLaunchResult KernelScenarioLaunch::launch(const LoadedKernel& k, double watchdog_s) {
    const CudaDriver& drv = gpu_.driver();
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = dims_.cluster[0];
    attr.value.clusterDim.y = dims_.cluster[1];
    attr.value.clusterDim.z = dims_.cluster[2];
    CUlaunchConfig cfg{};
    cfg.gridDimX = dims_.grid[0];
    cfg.gridDimY = dims_.grid[1];
    cfg.gridDimZ = dims_.grid[2];
    cfg.blockDimX = dims_.block[0];
    cfg.blockDimY = dims_.block[1];
    cfg.blockDimZ = dims_.block[2];
    cfg.sharedMemBytes = static_cast<unsigned>(s_.launch.dynamic_shared);
    cfg.hStream = nullptr;
    // A kernel compiled with .reqnctapercluster has its cluster already; the attribute then
    // repeats the same extent, which the driver accepts.
    cfg.attrs = dims_.cluster_size() > 1 ? &attr : nullptr;
    cfg.numAttrs = dims_.cluster_size() > 1 ? 1 : 0;

    KernelLaunchResult r;
    CUevent start = nullptr, stop = nullptr;
    auto failed = [&](KernelLaunchResult::Status st, CUresult rc, const char* call) {
        // Results ignored: after a fault every call fails, and the events are all there is to free.
        drv.cuEventDestroy(start);
        drv.cuEventDestroy(stop);
        r.status = st;
        r.call = call;
        r.error_name = drv.error_name(rc);
        r.error_message = drv.error_string(rc);
        return r;
    };
    drv.check(drv.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    drv.check(drv.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    drv.check(drv.cuEventRecord(start, nullptr), "cuEventRecord");
    void** params = param_pointers_.empty() ? nullptr : param_pointers_.data();
    const CUresult launched = drv.cuLaunchKernelEx(&cfg, k.fn, params, nullptr);
    if (launched != CUDA_SUCCESS) return failed(KernelLaunchResult::Status::refused, launched, "cuLaunchKernelEx");
    drv.check(drv.cuEventRecord(stop, nullptr), "cuEventRecord");
    // Poll rather than synchronize: a kernel that spins forever must not hold this thread.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::max(0.0, watchdog_s));
    for (;;) {
        const CUresult q = drv.cuEventQuery(stop);
        if (q == CUDA_SUCCESS) break;
        if (q != CUDA_ERROR_NOT_READY) return failed(KernelLaunchResult::Status::fault, q, "cuEventQuery");
        if (std::chrono::steady_clock::now() >= deadline) {
            r.status = KernelLaunchResult::Status::hang;  // the events stay: destroying them now could wait
            return r;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    float ms = 0;
    drv.check(drv.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    drv.cuEventDestroy(start);
    drv.cuEventDestroy(stop);
    r.ms = ms;
    return r;
}

std::vector<MemoryImage> KernelScenarioLaunch::global_memory() {
    std::vector<MemoryImage> out;
    for (size_t i = 0; i < s_.globals.size(); ++i) {
        MemoryImage m;
        m.name = s_.globals[i].name;
        m.space = "global";
        m.bytes.resize(init_[i].size());
        gpu_.download(m.bytes.data(), globals_[i], m.bytes.size());
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace tmasim::device
