#include "device/run/run_device.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/emit/codegen.h"
#include "device/launch/cuda_driver.h"
#include "device/launch/gpu_session.h"
#include "device/emit/kernel_abi.h"
#include "device/launch/kernel_launch.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/sanitizer/sanitizer_ops.h"
#include "device/launch/trace_records.h"
#include "scenarios/layout.h"
#include "scenarios/values.h"

#ifndef TMASIM_VERSION
#define TMASIM_VERSION "unknown"
#endif

namespace tmasim {

using namespace tmasim::device;

namespace {

std::string seconds_text(double s) {
    const double tenths = s * 10.0;
    return std::fabs(tenths - std::round(tenths)) < 1e-9 ? fmt::format("{:.1f}", s)
                                                          : fmt::format("{:g}", s);
}

// The op, iteration and CTA of a hang report: "op #7 mbarrier.wait (label), iteration [2], cta 1".
std::string hang_site(const Scenario& s, const DeviceStatus& st, const std::vector<int64_t>& iters) {
    const Op* op = s.find_op(st.hang_op);
    std::string where = fmt::format("op #{} {}", st.hang_op, op ? to_string(op->kind) : std::string("?"));
    if (op && !op->label.empty()) where += fmt::format(" ({})", op->label);
    if (!iters.empty()) where += fmt::format(", iteration [{}]", fmt::join(iters, ", "));
    if (s.launch.num_ctas() > 1) where += fmt::format(", cta {}", st.hang_cta);
    if (s.launch.cluster_size() > 1) where += fmt::format(" (rank {})", st.hang_cta % s.launch.cluster_size());
    return where;
}

// barrier.cluster.wait cannot time out; the kernel reports a wait that nothing can complete
// (the thread never arrived) instead of executing it.
Diagnostic cluster_wait_diagnostic(const Scenario& s, const DeviceStatus& st, Diagnostic d) {
    d.rule = "cluster.deadlock";
    d.message = fmt::format(
        "hang at {}: warp {} waits on the cluster barrier without a cluster.arrive since its last wait; "
        "barrier.cluster.wait waits for every non-exited thread of the cluster, the waiting one included, so "
        "it can never return (the kernel reported it instead of executing it, and the thread exited) "
        "[PTX 9.7.13.3; semantics.md F33]",
        hang_site(s, st, d.iters), st.hang_warp);
    d.detail = {{"warp", std::to_string(st.hang_warp)},
                {"lane", std::to_string(st.hang_lane)},
                {"threads_stopped", std::to_string(st.hang_threads)}};
    return d;
}

Diagnostic hang_diagnostic(const Scenario& s, const DeviceStatus& st, double watchdog_s) {
    Diagnostic d;
    d.outcome = Outcome::hang;
    d.rule = "mbarrier.wait_timeout";
    d.op = st.hang_op;
    d.cta = st.hang_cta;
    d.iters.assign(st.hang_iters, st.hang_iters + std::clamp(st.hang_niters, 0, kMaxLoopDepth));
    if (st.hang_kind == kHangClusterWaitUnarrived) return cluster_wait_diagnostic(s, st, d);
    std::string barrier = fmt::format("#{}", st.hang_barrier);
    if (st.hang_barrier >= 0 && static_cast<size_t>(st.hang_barrier) < s.barriers.size()) {
        const BarrierDecl& b = s.barriers[static_cast<size_t>(st.hang_barrier)];
        barrier = b.array == 0 ? b.name : fmt::format("{}[{}]", b.name, st.hang_barrier_index);
    }
    d.message = fmt::format("hang at {}: watchdog expired after {} s waiting for barrier {} parity {}",
                            hang_site(s, st, d.iters), seconds_text(watchdog_s), barrier, st.hang_parity);
    d.detail = {{"barrier", barrier},
                {"parity", std::to_string(st.hang_parity)},
                {"warp", std::to_string(st.hang_warp)},
                {"lane", std::to_string(st.hang_lane)},
                {"waited_ns", std::to_string(st.hang_waited_ns)},
                {"threads_timed_out", std::to_string(st.hang_threads)}};
    return d;
}

Diagnostic fault_diagnostic(const CudaError& e) {
    Diagnostic d;
    d.outcome = Outcome::fault;
    d.rule = "device.cuda_error";
    d.message = fmt::format("kernel fault: {}: {} (reported by {})", e.name(), e.message(), e.call());
    d.detail = {{"cuda_error", e.name()}, {"cuda_message", e.message()}, {"call", e.call()}};
    return d;
}

// wgmma is an sm_90a instruction (Blackwell has tcgen05 instead): elsewhere it would trap.
void require_wgmma_support(const Scenario& s, const GpuInfo& gpu) {
    for (const Op* op : s.all_ops())
        if (op->kind == OpKind::wgmma_mma_async && gpu.cc_major != 9)
            throw DeviceUnavailable(fmt::format("scenario uses wgmma, which exists on sm_90a only; this GPU is {} ({})",
                                                gpu.name, gpu.sm()));
}

void add_kernel_times(Provenance& p, double kernel_ms, const std::vector<CtaSpan>& spans) {
    p.extra["kernel_time_ns"] = std::to_string(std::llround(kernel_ms * 1e6));
    int64_t first = -1, last = -1;
    std::string per_cta;
    for (const CtaSpan& c : spans) {
        if (!per_cta.empty()) per_cta += ' ';
        per_cta += fmt::format("{}-{}", c.entry_ns, c.exit_ns);
        if (c.entry_ns >= 0) first = first < 0 ? c.entry_ns : std::min(first, c.entry_ns);
        last = std::max(last, c.exit_ns);
    }
    if (first >= 0 && last >= first) p.extra["kernel_span_ns"] = std::to_string(last - first);
    p.extra["cta_span_ns"] = per_cta;
}

}  // namespace

RunResult run_device(const Scenario& s, const DeviceOptions& options) {
    if (s.kernel) return run_kernel_device(s, options);  // a real kernel: device/run/kernel_run.h
    const CudaDriver& driver = CudaDriver::get();  // throws the "no CUDA driver" error
    GpuSession gpu(driver);
    require_architecture(s.arch, gpu.info());
    require_wgmma_support(s, gpu.info());
    const std::string target = fmt::format("sm_{}{}a", gpu.info().cc_major, gpu.info().cc_minor);

    // Trace words in shared memory where they fit; a sanitized build keeps them in global
    // memory, as the kernel its report's line map is read against (sanitize_run.cpp).
    const TraceWordsIn words_in = options.line_info ? TraceWordsIn::global
                                                    : trace_words_in(plan_trace_words(s, options.trace, gpu.info()));
    const std::string source = generate_kernel_source(s, options.trace, words_in,
                                                      options.shared_dump ? SharedDump::copy_out : SharedDump::skip);
    const CompileResult compiled = compile_cuda(options.line_info ? with_line_directives(source) : source, target,
                                                options.cache_dir, options.line_info);
    if (!compiled.ok)
        throw std::runtime_error("device: the generated kernel did not compile:\n" + compiled.log);

    RunResult result;
    result.provenance = provenance_for(s, "device");
    Provenance& p = result.provenance;
    p.gpu = gpu.info().name;
    p.sm_clock_mhz = gpu.info().sm_clock_mhz;
    p.driver = gpu.info().driver;
    p.cuda = gpu.info().cuda;
    p.extra = {{"sm", target}, {"nvrtc", nvrtc_version()},
               {"watchdog_s", seconds_text(options.watchdog_seconds)},
               {"trace_level", to_string(options.trace)}};
    if (options.line_info) p.extra["line_info"] = "1";
    if (!options.shared_dump) p.extra["shared_dump"] = "off";
    if (options.warm_launches > 0) p.extra["warm_launches"] = std::to_string(options.warm_launches);
    if (options.on_provenance) options.on_provenance(p);

    KernelLaunch launch(gpu, s, options.watchdog_seconds, options.trace, words_in);
    launch.prepare(compiled.cubin);
    try {
        launch.run(options.warm_launches);
    } catch (const CudaError& e) {
        // The context is unusable now: no memory to read back, no trace.
        result.outcome = Outcome::fault;
        result.diagnostics.push_back(fault_diagnostic(e));
        return result;
    }

    const DeviceStatus st = launch.status();
    const std::vector<TraceRecord> records = launch.trace_records();
    result.events = decode_trace(records);
    add_kernel_times(p, launch.kernel_ms(), cta_spans(records, s.launch.num_ctas()));
    if (launch.trace_capacity() > 0) {
        p.extra["trace_words_per_warp"] = std::to_string(launch.trace_capacity());
        p.extra["trace_words_in"] = launch.trace_words_in_shared() ? "shared" : "global";
    }
    if (st.hang_flag) {
        result.outcome = Outcome::hang;
        result.diagnostics.push_back(hang_diagnostic(s, st, options.watchdog_seconds));
    }
    result.memory = launch.global_memory();
    if (!st.hang_flag && options.shared_dump) {
        std::vector<MemoryImage> shared = launch.shared_memory();
        result.memory.insert(result.memory.end(), shared.begin(), shared.end());
    }
    // After a hang too: the snapshots taken before it are flagged, the others are not.
    std::vector<MemoryImage> snapshots = launch.snapshots();
    result.memory.insert(result.memory.end(), snapshots.begin(), snapshots.end());
    return result;
}

}  // namespace tmasim
