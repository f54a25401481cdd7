#include "device/run_device.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/codegen.h"
#include "device/cuda_driver.h"
#include "device/gpu_session.h"
#include "device/kernel_abi.h"
#include "device/kernel_launch.h"
#include "device/nvrtc_compiler.h"
#include "device/trace_records.h"
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

Diagnostic hang_diagnostic(const Scenario& s, const DeviceStatus& st, double watchdog_s) {
    Diagnostic d;
    d.outcome = Outcome::hang;
    d.rule = "mbarrier.wait_timeout";
    d.op = st.hang_op;
    d.cta = st.hang_cta;
    d.iters.assign(st.hang_iters, st.hang_iters + std::clamp(st.hang_niters, 0, kMaxLoopDepth));
    std::string barrier = fmt::format("#{}", st.hang_barrier);
    if (st.hang_barrier >= 0 && static_cast<size_t>(st.hang_barrier) < s.barriers.size()) {
        const BarrierDecl& b = s.barriers[static_cast<size_t>(st.hang_barrier)];
        barrier = b.array == 0 ? b.name : fmt::format("{}[{}]", b.name, st.hang_barrier_index);
    }
    std::string where = fmt::format("op #{} mbarrier.wait", st.hang_op);
    if (const Op* op = s.find_op(st.hang_op); op && !op->label.empty())
        where += fmt::format(" ({})", op->label);
    if (!d.iters.empty()) where += fmt::format(", iteration [{}]", fmt::join(d.iters, ", "));
    if (s.launch.num_ctas() > 1) where += fmt::format(", cta {}", st.hang_cta);
    d.message = fmt::format("hang at {}: watchdog expired after {} s waiting for barrier {} parity {}",
                            where, seconds_text(watchdog_s), barrier, st.hang_parity);
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

}  // namespace

RunResult run_device(const Scenario& s, const DeviceOptions& options) {
    const CudaDriver& driver = CudaDriver::get();  // throws the "no CUDA driver" error
    GpuSession gpu(driver);
    require_architecture(s.arch, gpu.info());
    const std::string target = fmt::format("sm_{}{}a", gpu.info().cc_major, gpu.info().cc_minor);

    const std::string source = generate_kernel_source(s);
    const CompileResult compiled = compile_cuda(source, target, options.cache_dir);
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
               {"watchdog_s", seconds_text(options.watchdog_seconds)}};

    KernelLaunch launch(gpu, s, options.watchdog_seconds);
    launch.prepare(compiled.cubin);
    try {
        launch.run();
    } catch (const CudaError& e) {
        // The context is unusable now: no memory to read back, no trace.
        result.outcome = Outcome::fault;
        result.diagnostics.push_back(fault_diagnostic(e));
        return result;
    }

    const DeviceStatus st = launch.status();
    result.events = decode_trace(launch.trace_records());
    if (st.trace_dropped > 0) p.extra["trace_dropped"] = std::to_string(st.trace_dropped);
    if (st.hang_flag) {
        result.outcome = Outcome::hang;
        result.diagnostics.push_back(hang_diagnostic(s, st, options.watchdog_seconds));
    }
    result.memory = launch.global_memory();
    if (!st.hang_flag) {
        std::vector<MemoryImage> shared = launch.shared_memory();
        result.memory.insert(result.memory.end(), shared.begin(), shared.end());
    }
    return result;
}

}  // namespace tmasim
