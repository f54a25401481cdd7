// tmasim bench executor-overhead: the device executor's kernels against hand-written ones
// (device/bench/bench_executor.h). Exit 0 when every judged row meets the issue-9 targets, 1 when
// one misses, 2 when it could not run (no GPU).
// tmasim bench kernel-overhead: real kernels of the catalog against their timing rewrites
// (device/bench/kernel_bench.h). Exit 0 when every row's rewritten(none)/untouched is at most
// 1.05, 1 when one is not, 2 when it could not run.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "device/bench/bench_executor.h"
#include "device/bench/kernel_bench.h"

namespace tmasim::cli {

namespace {

void add_kernel_overhead_command(CLI::App* bench, Action& action) {
    auto o = std::make_shared<device::KernelBenchOptions>();
    CLI::App* sub = bench->add_subcommand(
        "kernel-overhead",
        "The catalog GEMM and two pipelines (scenarios/catalog/kernels) as written and rewritten for timing at --trace "
        "none and all, in one process on one GPU: median times and the ratios rewritten(none)/untouched (target <= 1.05) "
        "and rewritten(all)/untouched, and what each rewrite inserted");
    sub->add_option("--case", o->cases, "Run only these cases")->check(CLI::IsMember(device::kernel_bench_case_names()));
    sub->add_option("--ctas", o->ctas, "CTA counts (the GEMM runs clusters of 2, at least 2 CTAs)")->capture_default_str();
    sub->add_option("--work", o->work, "Each CTA's work: the catalog kernel's tiles, batches or k-blocks times this")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    sub->add_option("--reps", o->reps, "Timed launches per kernel")->capture_default_str();
    sub->add_option("--warmup", o->warmup, "Untimed launches per kernel first")->capture_default_str();
    sub->add_option("--watchdog", o->watchdog_s, "Seconds a launch may take before it counts as hung")->capture_default_str();
    sub->add_option("--scenarios", o->scenario_dir, "Where the kernel scenarios are")->capture_default_str();
    sub->add_option("--cache-dir", o->cache_dir, "Where NVRTC's PTX of the .cu kernels is cached");
    sub->callback([o, &action] {
        action = [o] { return device::run_kernel_overhead(*o, std::cout) == 0 ? kOk : kMismatch; };
    });
}

}  // namespace

void add_bench_command(CLI::App& app, Action& action) {
    CLI::App* bench = app.add_subcommand("bench", "Benchmarks that need a GPU");
    bench->require_subcommand(1);
    auto o = std::make_shared<device::BenchOptions>();
    CLI::App* sub = bench->add_subcommand(
        "executor-overhead",
        "Each scenarios/catalog/bench case as the executor's untraced kernel (--trace none), its traced kernel "
        "(--trace all) and the hand-written kernel of device/reference/, in one process on one GPU: median "
        "times, bandwidths, and the ratios untraced/reference bandwidth and traced/untraced time");
    sub->add_option("--case", o->cases, "Run only these cases")->check(CLI::IsMember(device::bench_case_names()));
    sub->add_option("--ctas", o->ctas, "CTA counts (the cluster case runs half as many clusters of 2)")
        ->capture_default_str();
    sub->add_option("--tiles", o->tiles, "16 KiB tiles per CTA (a multiple of 8)")->capture_default_str();
    sub->add_option("--reps", o->reps, "Timed launches per variant")->capture_default_str();
    sub->add_option("--warmup", o->warmup, "Untimed launches per variant first")->capture_default_str();
    sub->add_option("--scenarios", o->scenario_dir, "Where the bench scenarios are")->capture_default_str();
    sub->add_option("--cache-dir", o->cache_dir, "Where compiled kernels are cached");
    sub->add_option("--keep-kernels", o->keep_dir,
                    "Write each timed kernel's source and cubin here as <case>_<ctas>_<variant>.cu/.cubin "
                    "(to compare variants' machine code with cuobjdump -sass)");
    sub->add_option("--variant", o->variant_files,
                    "Also time this kernel source (a kept kernel edited by hand, same parameters; first line "
                    "`// traced`: run with the trace buffer)")
        ->check(CLI::ExistingFile);
    sub->add_flag("--experiments", o->experiments,
                  "Also time variants (timing only): the traced kernel without its word stores, without its "
                  "op clock reads, with clock reads that have no memory clobber, without the shuffle of a "
                  "`thread N` run's words, without the __syncwarp after a barrier, without the clock reads "
                  "inside a `thread N` run's branch; the untraced kernel "
                  "without the wait's watchdog");
    sub->callback([o, &action] {
        action = [o] { return device::run_executor_overhead(*o, std::cout) == 0 ? kOk : kMismatch; };
    });
    add_kernel_overhead_command(bench, action);
}

}  // namespace tmasim::cli
