#include "device/run/run_device.h"

#include <cmath>
#include <memory>
#include <regex>

#include <fmt/format.h>

#include "device/launch/cuda_driver.h"
#include "device/launch/gpu_session.h"
#include "device/kernels/kernel_module_launch.h"
#include "device/kernels/kernel_timing.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/kernels/ptx_timing.h"
#include "ptx/kernel_binding.h"

namespace tmasim::device {

namespace {

// As op scenarios write it: "1.0", "0.2", "0.25".
std::string watchdog_text(double s) {
    const double tenths = s * 10.0;
    return std::fabs(tenths - std::round(tenths)) < 1e-9 ? fmt::format("{:.1f}", s) : fmt::format("{:g}", s);
}

Diagnostic kernel_launch_diagnostic(const Scenario& s, const LoadedKernel& k, const KernelLaunchResult& lr) {
    Diagnostic d;
    d.outcome = Outcome::fault;
    d.rule = "device.cuda_error";
    d.detail = {{"cuda_error", lr.error_name}, {"cuda_message", lr.error_message}, {"call", lr.call}};
    if (lr.status == KernelLaunchResult::Status::refused) {
        const SourceLoc& at = s.launch.loc;
        d.message = fmt::format("the device refused to launch {} ({} at {}:{}:{}, launch): {}: {}: {}", k.what, launch_text(s.launch),
                                at.file, at.line, at.col, lr.call, lr.error_name, lr.error_message);
        d.detail["key"] = "launch";
    } else {
        d.message = fmt::format("kernel fault: {}: {} (reported by {})", lr.error_name, lr.error_message, lr.call);
    }
    return d;
}

Diagnostic kernel_hang_diagnostic(double watchdog_s) {
    Diagnostic d;
    d.outcome = Outcome::hang;
    d.rule = "device.kernel_timeout";
    d.message = fmt::format("hang: the kernel did not finish within the watchdog ({} s); a real kernel's waits cannot time out, "
                            "so the device names no instruction (the model's run does) and reads no memory back",
                            watchdog_text(watchdog_s));
    d.detail = {{"watchdog_s", watchdog_text(watchdog_s)}};
    return d;
}

}  // namespace

void require_ptx_targets(const std::vector<std::string>& targets, int cc_major, int cc_minor, const std::string& gpu) {
    const int cc = cc_major * 10 + cc_minor;
    static const std::regex sm(R"(sm_(\d+)([af]?))");
    for (const std::string& t : targets) {
        std::smatch m;
        if (!std::regex_match(t, m, sm)) continue;  // texmode_unified, map_f64_to_f32, debug
        const int want = std::stoi(m.str(1));
        const std::string kind = m.str(2);
        const bool runs = kind == "a" ? cc == want : kind == "f" ? cc_major == want / 10 && cc >= want : cc >= want;
        if (!runs)
            throw DeviceUnavailable(fmt::format("the kernel's PTX targets {}, which {}; this GPU is {} (sm_{})", t,
                                                kind == "a" ? fmt::format("runs on compute capability {}.{} only", want / 10, want % 10)
                                                            : fmt::format("needs compute capability {}.{} or newer", want / 10, want % 10),
                                                gpu, cc));
    }
}

RunResult run_kernel_device(const Scenario& s, const DeviceOptions& o) {
    const CudaDriver& driver = CudaDriver::get();
    // Released, not destroyed, after a hang: freeing memory or unloading a module would wait
    // for the kernel that never ends. The process's exit ends it.
    auto gpu = std::make_unique<GpuSession>(driver);
    require_architecture(s.arch, gpu->info());
    const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    require_ptx_targets(k.module.targets, gpu->info().cc_major, gpu->info().cc_minor, gpu->info().name);
    const int64_t threads = int64_t(s.launch.num_ctas()) * s.launch.block;
    const TimingRewrite rewrite = rewrite_for_timing(s, k, {o.trace, timing_records_per_thread(threads, o.trace)});

    RunResult result;
    result.provenance = provenance_for(s, "device");
    Provenance& p = result.provenance;
    p.gpu = gpu->info().name;
    p.sm_clock_mhz = gpu->info().sm_clock_mhz;
    p.driver = gpu->info().driver;
    p.cuda = gpu->info().cuda;
    p.extra = {{"sm", k.module.targets.empty() ? gpu->info().sm() : k.module.targets.front()},
               {"kernel_entry", k.entry->name},
               {"ptx_jit", "driver (cuModuleLoadDataEx)"},
               {"watchdog_s", watchdog_text(o.watchdog_seconds)},
               {"trace_level", to_string(o.trace)},
               {"shared_dump", "off"}};
    if (!s.kernel->cuda.empty()) p.extra["nvrtc"] = nvrtc_version();
    if (o.warm_launches > 0) p.extra["warm_launches"] = std::to_string(o.warm_launches);
    if (o.on_provenance) o.on_provenance(p);

    KernelScenarioLaunch launch(*gpu, s, *k.entry);
    launch.prepare();
    // line_info (a compute-sanitizer run): both keep the kernel's `.loc` lines, which its
    // report names (the rewrite keeps every `.loc`; device/sanitizer/sanitizer_ops.h for_kernel).
    const LoadedKernel plain = launch.load(s.kernel->ptx_text, "the kernel as written", false, o.line_info);
    const LoadedKernel timed = launch.load(rewrite.ptx, "the kernel rewritten for timing", true, o.line_info);
    const size_t timing_bytes = static_cast<size_t>(threads * rewrite.layout.thread_bytes());
    const CUdeviceptr buffer = gpu->alloc(timing_bytes, false);
    launch.set_timing_buffer(timed, buffer);

    // One launch from the declared memory; false when the run ends here (its outcome set).
    auto run = [&](const LoadedKernel& kernel, KernelLaunchResult& lr) {
        launch.reset_memory();
        if (kernel.timing_variable) driver.check(driver.cuMemsetD8(buffer, 0xff, timing_bytes), "cuMemsetD8(timing)");
        lr = launch.launch(kernel, o.watchdog_seconds);
        if (lr.status == KernelLaunchResult::Status::finished) return true;
        const bool hang = lr.status == KernelLaunchResult::Status::hang;
        if (hang) (void)gpu.release();  // see above: deliberately not destroyed
        if (kernel.timing_variable)
            throw std::runtime_error(fmt::format("device: {} {} where the kernel as written finished: a tmasim bug in the timing "
                                                 "rewrite (device/kernels/ptx_timing.cpp){}", kernel.what,
                                                 hang ? "hung" : "failed (" + lr.error_name + ": " + lr.error_message + ")",
                                                 o.trace == TraceLevel::none ? "" : "; --trace none inserts less"));
        result.outcome = hang ? Outcome::hang : Outcome::fault;
        result.diagnostics.push_back(hang ? kernel_hang_diagnostic(o.watchdog_seconds) : kernel_launch_diagnostic(s, kernel, lr));
        return false;
    };
    KernelLaunchResult lr;
    for (int i = 0; i < o.warm_launches; ++i)
        if (!run(plain, lr) || !run(timed, lr)) return result;
    KernelRunPieces pieces;
    if (!run(plain, lr)) return result;
    pieces.untouched_ms = lr.ms;
    pieces.memory = launch.global_memory();
    if (!run(timed, lr)) return result;
    pieces.rewritten_ms = lr.ms;
    pieces.rewritten_memory = launch.global_memory();
    pieces.timing.resize(timing_bytes);
    gpu->download(pieces.timing.data(), buffer, timing_bytes);
    add_kernel_run(result, s, rewrite, pieces, gpu->info().sm_clock_mhz);
    return result;
}

}  // namespace tmasim::device
