#pragma once
// `tmasim run DIR -j N`: the batch's scenarios in up to N child processes at once (the
// SystemC kernel is one per process, so threads cannot share it). Rows come back in input
// order whatever order the children finish in, so the table is the one -j 1 prints.
#include <functional>
#include <vector>

#include "cli/batch_run.h"

namespace tmasim::cli {

// Runs run_one(inputs[i], options) for every i, `jobs` at a time (jobs 1: in this process),
// and calls `done(i, row)` in increasing i as soon as rows 0..i are all in.
std::vector<BatchRow> run_rows(const std::vector<BatchInput>& inputs, const BatchOptions& options, int jobs,
                               const std::function<void(size_t, const BatchRow&)>& done);

// All cores this process may use (at least 1): the default of -j.
int default_jobs();

}  // namespace tmasim::cli
