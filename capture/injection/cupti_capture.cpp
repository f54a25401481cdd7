// libtmasim_capture.so: the driver loads it into a program through CUDA_INJECTION64_PATH (CUPTI's
// injection entry point, InitializeInjection), so a program is captured as it is: no relinking,
// no LD_PRELOAD, a statically linked CUDA runtime included. CUPTI's callback API sees every
// driver entry point however it was reached (the runtime's launches, cuGetProcAddress pointers,
// cudaGetDriverEntryPoint, as CuTe encodes its tensor maps), where an interposer on exported
// symbols would miss those. What it writes (docs/capture.md, "The raw capture"):
//   raw/launches.jsonl  one line per captured launch: entry, grid, block, cluster, shared, each
//                       param's bytes, the device allocations its params and maps reach with the
//                       hashes of their bytes before and after, the tensor maps it was given
//   raw/data/<hash>.bin each distinct allocation content once (inputs shared by launches)
//   raw/ptx/<n>.ptx     PTX a program JIT-loads (cuModuleLoadData, cuLibraryLoadData)
//   raw/images.txt      the ELF files mapped into the process (where the fatbins' PTX lies)
// It depends on nothing of tmasim: the tool reads these files (capture/launch_records.h).
#include <cuda.h>
#include <cupti.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "capture/injection/capture_records.h"

namespace {

using tmasim_capture::Region;
using tmasim_capture::Recorder;

Recorder* g_recorder = nullptr;
std::mutex g_mutex;
thread_local int t_runtime_depth = 0;     // inside a runtime launch call
thread_local int t_driver_launches = 0;   // driver launches seen inside it
thread_local bool t_inside_capture = false;

// The device allocation `ptr` lies in, if it is one: base and size (cuMemGetAddressRange).
bool device_range(uint64_t ptr, Region& out) {
    if (ptr == 0) return false;
    unsigned int type = 0;
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, static_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS)
        return false;
    if (type != CU_MEMORYTYPE_DEVICE) return false;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (cuMemGetAddressRange(&base, &size, static_cast<CUdeviceptr>(ptr)) != CUDA_SUCCESS) return false;
    out.base = base;
    out.size = size;
    return true;
}

struct LaunchArgs {
    CUfunction f = nullptr;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
    unsigned shared = 0;
    void** params = nullptr;
    void** extra = nullptr;
};

// Each param's bytes: from kernelParams (a pointer per param) or from the packed buffer
// `extra` names (CU_LAUNCH_PARAM_BUFFER_POINTER), at the offsets cuFuncGetParamInfo gives.
bool read_params(const LaunchArgs& a, tmasim_capture::LaunchRecord& r) {
    const uint8_t* buffer = nullptr;
    if (!a.params && a.extra) {
        for (void** e = a.extra; *e != CU_LAUNCH_PARAM_END; e += 2)
            if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = static_cast<const uint8_t*>(e[1]);
    }
    for (size_t i = 0;; ++i) {
        size_t offset = 0, size = 0;
        if (cuFuncGetParamInfo(a.f, i, &offset, &size) != CUDA_SUCCESS) break;
        const uint8_t* p = a.params ? static_cast<const uint8_t*>(a.params[i]) : buffer ? buffer + offset : nullptr;
        if (!p) {
            r.refused = "the launch passes its params neither as kernelParams nor as a param buffer";
            return false;
        }
        r.params.push_back({offset, std::vector<uint8_t>(p, p + size)});
    }
    return true;
}

void capture_launch(const LaunchArgs& a) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_recorder || !g_recorder->wants_more()) return;
    t_inside_capture = true;
    // The runtime may launch a CUkernel (context-independent loading) where a CUfunction is
    // expected: its function in the current context names it then.
    LaunchArgs args = a;
    const char* name = nullptr;
    CUresult named = cuFuncGetName(&name, args.f);
    if (named != CUDA_SUCCESS || !name) {
        CUfunction in_context = nullptr;
        if (cuKernelGetFunction(&in_context, reinterpret_cast<CUkernel>(args.f)) == CUDA_SUCCESS) {
            args.f = in_context;
            named = cuFuncGetName(&name, args.f);
        }
    }
    g_recorder->note_device();
    if (named != CUDA_SUCCESS || !name) {
        g_recorder->note_unnamed_launch(static_cast<int>(named));
        t_inside_capture = false;
        return;
    }
    if (!g_recorder->wants(name)) {
        t_inside_capture = false;
        return;
    }
    tmasim_capture::LaunchRecord r;
    r.entry = name;
    for (int d = 0; d < 3; ++d) r.grid[d] = a.grid[d], r.block[d] = a.block[d], r.cluster[d] = a.cluster[d];
    r.dynamic_shared = a.shared;
    // Everything queued before the launch has finished when its inputs are read.
    r.sync_before = cuCtxSynchronize();
    if (read_params(args, r)) {
        std::set<uint64_t> bases;
        auto reach = [&](uint64_t ptr) {
            Region g;
            if (device_range(ptr, g) && bases.insert(g.base).second) r.regions.push_back(g);
        };
        for (const auto& p : r.params)
            for (size_t at = 0; at + 8 <= p.bytes.size(); at += 8) {
                uint64_t v = 0;
                std::memcpy(&v, p.bytes.data() + at, 8);
                reach(v);
            }
        g_recorder->match_tensor_maps(r);
        for (const auto& m : r.maps) reach(m.global_address);
        for (auto& g : r.regions) g.before = g_recorder->store_device_bytes(g.base, g.size);
    }
    t_inside_capture = false;
    g_recorder->begin(std::move(r));
}

void finish_launch() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_recorder || !g_recorder->pending()) return;
    t_inside_capture = true;
    g_recorder->finish(cuCtxSynchronize());
    t_inside_capture = false;
}

void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    const bool enter = cb->callbackSite == CUPTI_API_ENTER;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        if (!enter) return finish_launch();
        ++t_driver_launches;
        const auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
        LaunchArgs a;
        a.f = p->f;
        a.grid[0] = p->gridDimX, a.grid[1] = p->gridDimY, a.grid[2] = p->gridDimZ;
        a.block[0] = p->blockDimX, a.block[1] = p->blockDimY, a.block[2] = p->blockDimZ;
        a.shared = p->sharedMemBytes;
        a.params = p->kernelParams;
        a.extra = p->extra;
        return capture_launch(a);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        if (!enter) return finish_launch();
        ++t_driver_launches;
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
        const CUlaunchConfig* c = p->config;
        LaunchArgs a;
        a.f = p->f;
        a.grid[0] = c->gridDimX, a.grid[1] = c->gridDimY, a.grid[2] = c->gridDimZ;
        a.block[0] = c->blockDimX, a.block[1] = c->blockDimY, a.block[2] = c->blockDimZ;
        a.shared = c->sharedMemBytes;
        for (unsigned i = 0; i < c->numAttrs; ++i)
            if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
                a.cluster[0] = c->attrs[i].value.clusterDim.x;
                a.cluster[1] = c->attrs[i].value.clusterDim.y;
                a.cluster[2] = c->attrs[i].value.clusterDim.z;
            }
        a.params = p->kernelParams;
        a.extra = p->extra;
        return capture_launch(a);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled: {
        if (enter || *static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) return;
        const auto* p = static_cast<const cuTensorMapEncodeTiled_params*>(cb->functionParams);
        tmasim_capture::EncodedMap m;
        std::memcpy(m.bytes, p->tensorMap, sizeof m.bytes);
        m.dtype = p->tensorDataType;
        m.global_address = reinterpret_cast<uint64_t>(p->globalAddress);
        for (cuuint32_t d = 0; d < p->tensorRank; ++d) {
            m.dims.push_back(p->globalDim[d]);
            m.box.push_back(p->boxDim[d]);
            m.element_strides.push_back(p->elementStrides[d]);
            if (d + 1 < p->tensorRank) m.strides.push_back(p->globalStrides[d]);
        }
        m.interleave = p->interleave, m.swizzle = p->swizzle, m.l2_promotion = p->l2Promotion, m.oob_fill = p->oobFill;
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_recorder) g_recorder->note_tensor_map(m);
        return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData:
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData: {
        if (!enter) return;
        const void* image = cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData
                                ? static_cast<const cuModuleLoadData_params*>(cb->functionParams)->image
                            : cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx
                                ? static_cast<const cuModuleLoadDataEx_params*>(cb->functionParams)->image
                                : static_cast<const cuLibraryLoadData_params*>(cb->functionParams)->code;
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_recorder) g_recorder->note_module_image(image);
        return;
    }
    default: return;
    }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (t_inside_capture) return;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_recorder) g_recorder->count_callback(domain, cbid);
    }
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return on_driver(cbid, cb);
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
    // Runtime launches must reach the driver's launch, where they are captured; one that does
    // not is counted, so the capture says it missed launches instead of staying silent.
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (t_runtime_depth++ == 0) t_driver_launches = 0;
        return;
    }
    if (--t_runtime_depth == 0 && t_driver_launches == 0) {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_recorder) g_recorder->note_missed_runtime_launch(cb->functionName);
    }
}

void at_exit() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_recorder) g_recorder->close();
}

}  // namespace

extern "C" int InitializeInjection(void) {
    const char* dir = std::getenv("TMASIM_CAPTURE_DIR");
    if (!dir) return 0;
    g_recorder = new Recorder(dir, std::getenv("TMASIM_CAPTURE_KERNEL"), std::getenv("TMASIM_CAPTURE_LIMIT"));
    CUpti_SubscriberHandle subscriber;
    if (cuptiSubscribe(&subscriber, on_callback, nullptr) != CUPTI_SUCCESS) {
        std::fprintf(stderr, "tmasim capture: cuptiSubscribe failed (another CUPTI tool attached?)\n");
        return 0;
    }
    const CUpti_CallbackId driver_ids[] = {
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,     CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled, CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData,
        CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx, CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData};
    for (CUpti_CallbackId id : driver_ids) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    const CUpti_CallbackId runtime_ids[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
        CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000};
    for (CUpti_CallbackId id : runtime_ids) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    std::atexit(at_exit);
    return 1;
}
