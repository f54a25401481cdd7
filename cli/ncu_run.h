#pragma once
// `tmasim run FILE --backend device --ncu`: the same run, under Nsight Compute, printing the
// hardware's shared-memory bank-conflict and wavefront counters and its global requests and
// sectors of the scenario's kernel,
// so the model's bank-conflict counts can be compared with the hardware's.
#include <string>
#include <vector>

namespace tmasim::cli {

// The counters asked for (l1tex shared-memory loads and stores; global requests and sectors).
extern const char* const kNcuMetrics[];
extern const int kNcuMetricCount;

// Runs `ncu --clock-control none -k <kernel> --metrics ... --csv --log-file <tmp>` over this
// binary with `inner_args` (a device run of one scenario that must not fork: ncu profiles
// the process it starts), then prints "ncu: <metric> = <value>" per counter. Returns the
// inner run's exit code; throws std::runtime_error when ncu is missing, fails or reports
// no kernel. ncu is $TMASIM_NCU, else `ncu` on PATH, else /usr/local/cuda/bin/ncu.
int run_under_ncu(const std::vector<std::string>& inner_args);

// "metric -> value" from ncu's --csv output (quoted fields, one row per metric).
std::vector<std::pair<std::string, std::string>> parse_ncu_csv(const std::string& text);

}  // namespace tmasim::cli
