#pragma once
// `tmasim bench executor-overhead`: each case of scenarios/catalog/bench/ run in one process
// on one GPU as the executor's untraced kernel (trace level none), its traced kernel (all)
// and the hand-written reference kernel of device/reference/, on the same buffers and tensor
// maps, at several CTA counts. A benchmark: it prints what it measured and judges nothing
// but the issue-9 targets it names.
#include <ostream>
#include <string>
#include <vector>

namespace tmasim::device {

struct BenchOptions {
    std::string scenario_dir = "scenarios/catalog/bench";
    std::vector<std::string> cases;          // empty: all
    std::vector<int> ctas = {1, 16, 66, 132};  // the cluster case runs ceil(n / 2) clusters of 2
    int tiles = 512;                         // per CTA; a multiple of 8, at most 512
    int warmup = 3;
    int reps = 25;  // timed launches of each variant; the median counts (a one-CTA run of 50 us moves by several %)
    std::string cache_dir;
    // Variants of the traced and the untraced kernel, each leaving out or changing one piece
    // (a clock read, the word stores, the words' place, the wait's watchdog: bench_executor.cpp),
    // to see where tracing's cost lies; timing only.
    bool experiments = false;
    // Where each kernel timed is kept as `<case>_<ctas>_<variant>.cu` and `.cubin` (empty: not
    // kept), so two variants' machine code can be compared (`cuobjdump -sass`) when their times differ.
    std::string keep_dir;
    // Kernel sources timed as further variants of every case run (a kept kernel edited by hand:
    // the same parameters); a source whose first line is `// traced` runs with the trace buffer.
    std::vector<std::string> variant_files;
};

// Prints the GPU, then per case and CTA count the three times, bandwidths and the lines
// `untraced/reference bandwidth: <ratio>` and `traced/untraced time: <ratio>`, then a table.
// Returns the number of (case, CTA count) rows at 1 or 132 CTAs that miss a target
// (untraced/reference bandwidth >= 0.95, traced/untraced time <= 1.10).
int run_executor_overhead(const BenchOptions& options, std::ostream& out);

// The names of the cases, in the order they run.
std::vector<std::string> bench_case_names();

// The reference kernel's full source for a case (common.cuh, then the case's file), with
// TMASIM_TILES defined first. Throws std::invalid_argument for an unknown case.
std::string reference_kernel_source(const std::string& name, int tiles);

}  // namespace tmasim::device
