#pragma once
// `tmasim run DIR -j N`: the batch's scenarios in up to N child processes at once (the
// SystemC kernel is one per process, so threads cannot share it). Rows come back in input
// order whatever order the children finish in, so the table is the one -j 1 prints.
#include <functional>
#include <string>
#include <vector>

#include "cli/batch_run.h"

namespace tmasim::cli {

// Runs run_one(inputs[i], options) for every i, `jobs` at a time (jobs 1: in this process),
// and calls `done(i, row)` in increasing i as soon as rows 0..i are all in.
std::vector<BatchRow> run_rows(const std::vector<BatchInput>& inputs, const BatchOptions& options, int jobs,
                               const std::function<void(size_t, const BatchRow&)>& done);

// One row as one line of JSON, and back: how a worker hands its row to the parent, and a
// Slurm array task its rows to `tmasim sweep --collect` (sweep_slurm.h). row_from_text:
// false for text that is not a whole row.
std::string row_to_text(const BatchRow& row);
bool row_from_text(const std::string& text, BatchRow& row);

// The order -j hands scenarios to workers: by the work the model's estimate counts
// (scenarios/work_estimate.h), largest first, input order among equals; rows still come
// back in input order.
std::vector<size_t> longest_first(const std::vector<BatchInput>& inputs);

// All cores this process may use (at least 1): the default of -j.
int default_jobs();

// The GPUs a device batch's workers may each take, as CUDA_VISIBLE_DEVICES entries: that
// variable's own list where it is set (empty entries dropped), else one index per GPU the
// NVIDIA driver lists under `driver_gpus_dir` (Linux: /proc/driver/nvidia/gpus), read without
// initialising CUDA, which a process that forks must not. Empty: none seen.
std::vector<std::string> visible_gpus(const char* cuda_visible_devices,
                                      const std::string& driver_gpus_dir = "/proc/driver/nvidia/gpus");

}  // namespace tmasim::cli
