#pragma once
// A sweep's results: one row per point, the same whether the points ran here (-j N) or as
// a Slurm job array (--collect), wall time aside.
#include <ostream>
#include <string>
#include <vector>

#include "cli/batch_run.h"
#include "cli/sweep_expand.h"

namespace tmasim::cli {

// The table: point id, one column per parameter, expected, got, result, the model's kernel
// span in cycles and ns, wall time, why; then batch_run's final line
// "N scenarios: A agree, B disagree, C skipped".
void print_sweep_table(const Sweep& sweep, const std::vector<BatchRow>& rows, std::ostream& out);

// The same as CSV (RFC 4180 quoting), header
// point,<params...>,expected,got,result,kernel_cycles,kernel_ns,why,wall_s
// with wall_s last: every column before it is the same for every run of one sweep.
std::string sweep_csv(const Sweep& sweep, const std::vector<BatchRow>& rows);

// Writes sweep_csv to `path`; throws std::runtime_error when it cannot.
void write_sweep_csv(const Sweep& sweep, const std::vector<BatchRow>& rows, const std::string& path);

}  // namespace tmasim::cli
