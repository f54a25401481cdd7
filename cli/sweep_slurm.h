#pragma once
// A sweep as a Slurm job array, for sweeps that outgrow one machine.
//
// `tmasim sweep FILE --slurm DIR` writes
//   DIR/points/<id>.yaml   every point's scenario
//   DIR/sweep.json         the sweep's name, size, fingerprint and run options
//   DIR/sweep.sbatch       the job array: task i runs `tmasim sweep --task DIR --index i`,
//                          which runs its points (per_task of them) on the model and writes
//   DIR/rows/<id>.json     each point's row (batch_parallel.h's row_to_text) and
//   DIR/traces/<id>.jsonl  its trace; DIR/logs/<i>.out is the task's output.
// `tmasim sweep FILE --collect DIR` re-expands FILE, refuses a DIR written from another
// expansion (the sweep or its template changed since), and prints the table and CSV that a
// local run prints: a point's row is made by the same run_one either way.
#include <string>
#include <vector>

#include "cli/batch_run.h"
#include "cli/sweep_expand.h"

namespace tmasim::cli {

// Slurm's default MaxArraySize is 1001 (indices 0..1000); larger sweeps put several points
// in a task.
constexpr size_t kMaxArrayTasks = 1000;

// The run options a sweep's points all run with (tmasim sweep --arch, --l2, --trace; the
// last two defined with tmasim run's, cli/model_run_flags.h).
struct SweepRunOptions {
    std::string arch;           // the model's arch config ("": the scenario's default)
    std::string l2 = "inputs";  // what the launch finds in L2
    std::string trace;          // which ops the predicted kernel times ("": none)
};

struct SlurmSweepOptions {
    SweepRunOptions run;
    size_t per_task = 0;  // points per array task; 0: as few as keep the array within kMaxArrayTasks
};

// How every point of a sweep runs, here or in an array task: on the model with `run`'s
// options (by default the untraced kernel, the inputs in L2), seed 0; traces under
// `trace_dir` ("": none).
BatchOptions sweep_run_options(const SweepRunOptions& run, const std::string& trace_dir);

// Writes DIR (which must not exist or be empty) and prints how to submit and collect.
// Throws std::invalid_argument for a DIR it cannot use.
void write_slurm_sweep(const Sweep& sweep, const std::string& dir, const SlurmSweepOptions& options,
                       std::ostream& out);

// One array task: runs its points and writes their rows and traces. Returns the exit code of
// its points taken together (batch_exit_code), 2 if a row cannot be written.
int run_slurm_task(const std::string& dir, size_t task_index, std::ostream& out);

// The rows the tasks wrote, one per point of `sweep` (an error row where a task wrote
// none). Throws std::invalid_argument when DIR was not written for this expansion.
std::vector<BatchRow> collect_slurm_rows(const Sweep& sweep, const std::string& dir);

}  // namespace tmasim::cli
