#pragma once
// `tmasim bench kernel-overhead`: what the timing rewrite (device/kernels/ptx_timing.h) costs real
// kernels. For each case (the catalog GEMM and two pipelines) at each CTA count, the kernel as
// written, its rewrite at trace level none and at all are launched in turn on the same
// tensors, maps and params, in one process on one GPU: warm-up launches of each, then rounds
// that run each once in a shuffled order; CUDA events around each launch; the medians and the
// ratios rewritten(none)/untouched (target <= 1.05) and rewritten(all)/untouched. This file is
// what needs no GPU: the cases, their scaling, and the report (kernel_bench_cases.cpp); what
// measures on the GPU is kernel_bench.cpp.
//
// Scaling. Each case is its catalog scenario with the grid set to the CTA count asked and the
// per-CTA work multiplied by `work` (a catalog kernel runs a few microseconds; a launch's
// CUDA-event time has a few microseconds of noise), the tensors grown to match:
//   tma_prefetch_pipeline, ldgsts_pipeline: each CTA walks `tiles` (param 2) tiles (batches)
//     of the tensors, which hold tiles * gridDim of them: grid [C], tiles 4 * work, every
//     tensor's outermost extent (rows, or ints) scaled to C * tiles of them;
//   gemm_ws_tma_wgmma: (M / 128) * (N / 128) CTAs in clusters of 2, so C / 2 clusters (at least
//     one: the 1-CTA row runs 2 CTAs) factored as M / 256 = the largest divisor of C / 2 up to
//     its square root and N / 128 = the rest (132 CTAs: M 1536, N 1408); K = 512 * work; A
//     [M, K], B [N, K], C [M, N], params m, n, k.
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::device {

struct KernelBenchOptions {
    std::string scenario_dir = "scenarios/catalog/kernels";
    std::vector<std::string> cases;    // empty: all
    std::vector<int> ctas = {1, 132};  // the GEMM runs clusters of 2: at least 2 CTAs
    int work = 16;                     // the per-CTA work of the catalog kernel, times this
    int warmup = 3;
    int reps = 25;
    double watchdog_s = 10.0;          // per launch
    std::string cache_dir;             // NVRTC's PTX cache ("" as the CLI)
};

// The cases, in the order they run: gemm_ws_tma_wgmma, tma_prefetch_pipeline, ldgsts_pipeline.
std::vector<std::string> kernel_bench_case_names();

// Case `name`'s catalog scenario (loaded from `dir`, not bound) scaled to `ctas` and `work` as
// above. Throws std::invalid_argument for an unknown case or a count below 1, and
// std::runtime_error when the scenario is not shaped as the scaling expects (a catalog edit).
Scenario kernel_bench_scenario(const std::string& name, const std::string& dir, int ctas, int work);

struct KernelBenchRow {
    std::string name;
    int ctas = 0;
    double untouched_ms = 0, none_ms = 0, all_ms = 0;  // medians
    double none_ratio() const { return none_ms / untouched_ms; }
    double all_ratio() const { return all_ms / untouched_ms; }
    bool meets_target() const { return none_ratio() <= 1.05; }
};

// The table at the end of the run: one line per row with its three medians, both ratios and
// whether rewritten(none)/untouched meets 1.05, then how many rows miss it.
std::string kernel_bench_table(const std::vector<KernelBenchRow>& rows);
int kernel_bench_misses(const std::vector<KernelBenchRow>& rows);

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double bench_median(std::vector<double> v);

// Prints the GPU, then per case and CTA count the three medians, both ratios and what each
// rewrite inserted, then the table. Returns the number of rows whose rewritten(none)/untouched
// misses 1.05. Throws DeviceUnavailable without a GPU, std::runtime_error for a launch that
// does not finish (the process then has to exit: a hung kernel still runs).
int run_kernel_overhead(const KernelBenchOptions& options, std::ostream& out);

}  // namespace tmasim::device
