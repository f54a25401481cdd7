#pragma once
// What a sweep's table says about time: which parameter moved the model's predicted kernel
// time, and by how much. A table of 72 rows hides it; a sweep whose time no parameter moves
// (everything in L2, say) says so instead of leaving the reader to find out.
#include <string>
#include <vector>

#include "cli/batch_run.h"
#include "cli/sweep_expand.h"

namespace tmasim::cli {

// For each parameter of two or more values: the largest ratio of kernel cycles between two
// points that differ in that parameter alone (both with a span). Lines, the largest first:
//   what moved the time (kernel cycles between points that differ in one parameter):
//     ctas        x3.10  5210 cycles at ctas=1 to 16150 at ctas=132 (stages=2 mib=64)
//     stages      x1.00  no change
// Empty when no two such points have a span.
std::string sweep_time_effects(const Sweep& sweep, const std::vector<BatchRow>& rows);

}  // namespace tmasim::cli
