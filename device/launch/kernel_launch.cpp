#include "device/launch/kernel_launch.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device/emit/snapshot_plan.h"
#include "device/launch/tensor_map_encode.h"
#include "device/launch/trace_records.h"
#include "scenarios/layout.h"
#include "scenarios/values.h"

namespace tmasim::device {

namespace {
SmLimits sm_limits(const GpuInfo& info) {
    return {info.sm_count,       info.smem_per_sm,        info.reserved_smem_per_block,
            info.max_smem_optin, info.max_threads_per_sm, info.max_blocks_per_sm};
}
}  // namespace

TraceWordPlace plan_trace_words(const Scenario& s, TraceLevel level, const GpuInfo& gpu) {
    return place_trace_words(s, trace_buffer_layout(s, plan_trace(s, level)), sm_limits(gpu));
}

TraceWordsIn trace_words_in(const TraceWordPlace& place) {
    return place.in_shared ? TraceWordsIn::shared : TraceWordsIn::global;
}

KernelLaunch::KernelLaunch(GpuSession& gpu, const Scenario& s, double watchdog_seconds, TraceLevel level,
                           TraceWordsIn words_in)
    : gpu_(gpu), s_(s), watchdog_seconds_(watchdog_seconds), level_(level), words_in_(words_in) {}

void KernelLaunch::prepare(const std::vector<char>& cubin) {
    const CudaDriver& drv = gpu_.driver();
    fn_ = gpu_.load_kernel(cubin, kKernelName);

    for (const GlobalTensor& g : s_.globals) globals_.push_back(gpu_.alloc(static_cast<size_t>(g.size_bytes()), false));
    maps_.resize(s_.tensormaps.size());
    for (size_t i = 0; i < s_.tensormaps.size(); ++i) {
        const TensorMap& m = s_.tensormaps[i];
        const GlobalTensor* g = s_.find_global(m.tensor);
        if (!g) throw std::runtime_error("tensor map " + m.name + " names no global tensor");
        encode_tensor_map(drv, m, *g, globals_[static_cast<size_t>(g - s_.globals.data())], &maps_[i]);
        // A map in global memory is a copy of the encoding in a 128-byte object (64-byte
        // aligned: cuMemAlloc aligns to at least 256), written before the launch.
        if (m.location == MapLocation::global) global_maps_.push_back(gpu_.alloc(sizeof(CUtensorMap), false));
    }
    upload_initial_memory();

    // One region per warp (trace_plan.h), pre-filled with 0xff (clear_output_buffers): all ones
    // reads as "never written" (a warp without exit, no hang). A buffer too large is refused here.
    trace_plan_ = plan_trace(s_, level_);
    trace_layout_ = trace_buffer_layout(s_, trace_plan_);
    trace_ = gpu_.alloc(static_cast<size_t>(trace_layout_.bytes()), false);
    status_ = gpu_.alloc(sizeof(DeviceStatus), false);
    const auto ctas = static_cast<size_t>(s_.launch.num_ctas());
    dump_bytes_ = static_cast<size_t>(plan_shared_dump(s_).bytes_per_cta) * ctas;
    snapshot_bytes_ = static_cast<size_t>(plan_snapshots(s_).bytes_per_cta) * ctas;
    dump_ = gpu_.alloc(dump_bytes_, false);
    snapshot_area_ = gpu_.alloc(snapshot_bytes_, false);
    clear_output_buffers();
    watchdog_ns_ = static_cast<unsigned long long>(std::max(0.0, watchdog_seconds_) * 1e9);

    // The kernel aligns its dynamic shared memory up to 1024 bytes itself; a traced kernel
    // keeps its clock words in shared memory after the scenario's buffers when they fit.
    const GpuInfo& info = gpu_.info();
    words_ = place_trace_words(s_, trace_layout_, sm_limits(info));
    if (words_in_ == TraceWordsIn::shared && !words_.in_shared)
        throw std::runtime_error("the kernel keeps its trace words in shared memory, where they do not fit");
    if (words_.untraced_smem_bytes > info.max_smem_optin)
        throw std::runtime_error(fmt::format(
            "scenario needs {} bytes of shared memory per CTA (layout + 1024 for alignment); "
            "{} allows {}",
            words_.untraced_smem_bytes, info.name, info.max_smem_optin));
    drv.check(drv.cuFuncSetAttribute(fn_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(words_.smem_bytes)),
              "cuFuncSetAttribute(max dynamic shared memory)");
}

void KernelLaunch::run(int warm_launches) {
    for (int i = 0; i < warm_launches; ++i) {
        launch(fn_, true);
        upload_initial_memory();
        clear_output_buffers();
    }
    kernel_ms_ = launch(fn_, true);
}

void KernelLaunch::upload_initial_memory() {
    for (size_t i = 0; i < s_.globals.size(); ++i) {
        const std::vector<uint8_t> bytes = initial_bytes(s_.globals[i]);
        gpu_.upload(globals_[i], bytes.data(), bytes.size());
    }
    // A kernel may rewrite a map in global memory (tensormap.replace): put the encoding back.
    size_t object = 0;
    for (size_t i = 0; i < s_.tensormaps.size(); ++i)
        if (s_.tensormaps[i].location == MapLocation::global)
            gpu_.upload(global_maps_.at(object++), &maps_[i], sizeof(CUtensorMap));
}

// Zeroed status, dump and snapshots: a snapshot slot's taken-flag stays 0 unless the kernel
// copied its snapshot.
void KernelLaunch::clear_output_buffers() {
    const CudaDriver& drv = gpu_.driver();
    drv.check(drv.cuMemsetD8(trace_, 0xff, static_cast<size_t>(trace_layout_.bytes())), "cuMemsetD8(trace)");
    drv.check(drv.cuMemsetD8(status_, 0, sizeof(DeviceStatus)), "cuMemsetD8(status)");
    if (dump_bytes_) drv.check(drv.cuMemsetD8(dump_, 0, dump_bytes_), "cuMemsetD8(dump)");
    if (snapshot_bytes_) drv.check(drv.cuMemsetD8(snapshot_area_, 0, snapshot_bytes_), "cuMemsetD8(snapshots)");
}

CUfunction KernelLaunch::load_other(const std::vector<char>& cubin, const char* name) {
    CUfunction f = gpu_.load_kernel(cubin, name);
    gpu_.driver().check(gpu_.driver().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                         static_cast<int>(words_.smem_bytes)),
                        "cuFuncSetAttribute(max dynamic shared memory)");
    return f;
}

double KernelLaunch::run_other(CUfunction fn, bool traced) { return launch(fn, traced); }

double KernelLaunch::launch(CUfunction fn, bool traced) {
    const CudaDriver& drv = gpu_.driver();
    // Parameter order: see codegen.h.
    std::vector<void*> params;
    for (CUtensorMap& m : maps_) params.push_back(&m);
    for (CUdeviceptr& m : global_maps_) params.push_back(&m);
    for (CUdeviceptr& g : globals_) params.push_back(&g);
    params.push_back(&trace_);
    unsigned capacity = static_cast<unsigned>(trace_layout_.capacity);
    params.push_back(&capacity);
    const bool in_shared = traced && words_in_ == TraceWordsIn::shared;
    params.push_back(&status_);
    params.push_back(&dump_);
    params.push_back(&snapshot_area_);
    params.push_back(&watchdog_ns_);

    int cluster = 1;
    for (int c : s_.launch.cluster) cluster *= c;
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = static_cast<unsigned>(cluster);
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;

    CUlaunchConfig cfg{};
    cfg.gridDimX = static_cast<unsigned>(s_.launch.num_ctas());
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = static_cast<unsigned>(s_.launch.block);
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = static_cast<unsigned>(in_shared ? words_.smem_bytes : words_.untraced_smem_bytes);
    cfg.hStream = nullptr;
    cfg.attrs = cluster > 1 ? &attr : nullptr;
    cfg.numAttrs = cluster > 1 ? 1 : 0;
    // Events on the launch's stream: the kernel's time without context set-up or copies.
    CUevent start = nullptr, stop = nullptr;
    drv.check(drv.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    drv.check(drv.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    float ms = 0;
    try {
        drv.check(drv.cuEventRecord(start, nullptr), "cuEventRecord");
        drv.check(drv.cuLaunchKernelEx(&cfg, fn, params.data(), nullptr), "cuLaunchKernelEx");
        drv.check(drv.cuEventRecord(stop, nullptr), "cuEventRecord");
        drv.check(drv.cuCtxSynchronize(), "cuCtxSynchronize");
        drv.check(drv.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    } catch (...) {
        drv.cuEventDestroy(start);
        drv.cuEventDestroy(stop);
        throw;
    }
    drv.cuEventDestroy(start);
    drv.cuEventDestroy(stop);
    return ms;
}

DeviceStatus KernelLaunch::status() {
    if (!have_status_) {
        gpu_.download(&status_copy_, status_, sizeof status_copy_);
        have_status_ = true;
    }
    return status_copy_;
}

std::vector<TraceRecord> KernelLaunch::trace_records() {
    std::vector<uint32_t> buffer(static_cast<size_t>(trace_layout_.warps * trace_layout_.stride));
    gpu_.download(buffer.data(), trace_, buffer.size() * sizeof(uint32_t));
    return decode_warp_regions(s_, trace_plan_, trace_layout_, buffer, gpu_.info().sm_clock_mhz);
}

std::vector<MemoryImage> KernelLaunch::global_memory() {
    std::vector<MemoryImage> out;
    for (size_t i = 0; i < s_.globals.size(); ++i) {
        MemoryImage m;
        m.name = s_.globals[i].name;
        m.space = "global";
        m.bytes.resize(static_cast<size_t>(s_.globals[i].size_bytes()));
        gpu_.download(m.bytes.data(), globals_[i], m.bytes.size());
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<MemoryImage> KernelLaunch::shared_memory() {
    const SharedDumpPlan plan = plan_shared_dump(s_);
    const int ctas = s_.launch.num_ctas();
    std::vector<uint8_t> dump(static_cast<size_t>(plan.bytes_per_cta) * static_cast<size_t>(ctas));
    gpu_.download(dump.data(), dump_, dump.size());
    std::vector<MemoryImage> out;
    for (int cta = 0; cta < ctas; ++cta) {
        for (const SharedDumpEntry& e : plan.entries) {
            MemoryImage m;
            m.name = e.name;
            m.space = "shared";
            m.cta = cta;
            const auto* first = dump.data() + cta * plan.bytes_per_cta + e.dump_offset;
            m.bytes.assign(first, first + e.size);
            out.push_back(std::move(m));
        }
    }
    return out;
}

std::vector<MemoryImage> KernelLaunch::snapshots() {
    const SnapshotPlan plan = plan_snapshots(s_);
    std::vector<uint8_t> area(static_cast<size_t>(plan.bytes_per_cta) * static_cast<size_t>(s_.launch.num_ctas()));
    if (!area.empty()) gpu_.download(area.data(), snapshot_area_, area.size());
    return snapshot_images(s_, plan, area);
}

}  // namespace tmasim::device
