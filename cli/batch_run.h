#pragma once
// Batch mode of `tmasim run`: many scenarios (directories walked recursively), each run on
// one backend, its trace written under an output directory and optionally diffed against a
// trace of the same relative name, then one summary table.
//
// Verdict per scenario:
//   agree     its outcome meets `expect` (PASS, or "not checked" where the backend cannot
//             observe it, e.g. a hazard on the device)
//   disagree  it does not (FAIL); with --diff-against, also a scenario expected `ok` whose
//             final memory differs from the reference's while both ran ok
//   skipped   the run cannot happen here (device: no CUDA driver, no GPU, a GPU other than
//             the scenario's arch); nothing ran
//   error     no verdict: the file does not load, the kernel does not build, a trace
//             cannot be written
// Exit code (commands.h): 1 if any scenario disagrees; else 2 if any error or if nothing
// ran at all (every scenario skipped: e.g. no CUDA driver); else 0. Scenarios skipped for
// their arch (sm_100 on a Hopper) do not fail a batch in which others ran.
#include <cstdint>
#include <string>
#include <vector>

#include "device/run/run_device.h"
#include "model/run/run_model.h"
#include "traces/sanitizer_verdicts.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {

struct BatchOptions {
    std::string backend;     // "model" or "device"
    std::string output_dir;  // "": write no traces
    std::string diff_dir;    // "": no diff
    ModelOptions model;
    DeviceOptions device;
    // Device batch with -j: the GPU of each worker (CUDA_VISIBLE_DEVICES), one worker per GPU.
    std::vector<std::string> worker_gpus;
    bool quiet = false;      // no progress lines, only the table
    bool json = false;       // stdout: one JSON document (run_json.h); progress lines go to stderr
    std::string sanitize;    // device: the compute-sanitizer tool each run goes under ("": none)
    std::string sanitizer;   // its path (find_compute_sanitizer)
    int jobs = 1;            // model: scenarios run at once, in child processes (batch_parallel.h)
    TraceWriteOptions trace_write;  // which memory bytes the traces hold
};

// One scenario file and the name its trace gets: the path relative to the directory
// argument it was found under, or the file name for a file argument.
struct BatchInput {
    std::string path;
    std::string rel;  // "guide/bulk_add_one_1d.yaml"
};

// Directories are walked recursively for *.yaml, skipping every path component named
// `invalid` (scenarios meant to fail loading); order: arguments in order, each sorted.
// Throws std::invalid_argument for a path that is neither, or two inputs with one name.
std::vector<BatchInput> collect_scenarios(const std::vector<std::string>& args);

struct BatchRow {
    enum class Verdict { agree, disagree, skipped, error };
    std::string rel;
    std::string expected = "-";  // expect.outcome
    std::string got = "-";       // the run's outcome; "-" when nothing ran
    Verdict verdict = Verdict::error;
    std::string result;          // PASS, FAIL, not checked, skipped, error
    std::string why;             // one line for every row that is not a plain PASS
    double wall_s = 0;
    // The model's kernel span (its provenance's kernel_span_cycles, kernel_span_ns); -1: none.
    int64_t kernel_cycles = -1, kernel_ns = -1;
    // --diff-against only
    bool diffed = false;
    std::string memory;          // "match", "DIFFER", "no reference"
    double timing_median = 0, timing_p90 = 0;
    size_t timing_paired = 0;
    // --sanitize only: the model's hazards (the reference trace's with --diff-against when it
    // is the model's, else the scenario's `expect`) against the sanitizer's, per hazard. A
    // sanitizer-only hazard makes the row disagree: the model missed it.
    bool sanitized = false;
    std::vector<HazardVerdict> hazards;
};

BatchRow run_one(const BatchInput& input, const BatchOptions& options);

// Refuses (std::invalid_argument) a batch whose outputs would write over what it reads: a
// scenario, a kernel source, a --diff-against reference (cli/io/output_guard.h). run_batch
// calls it before anything runs.
void check_batch_outputs(const std::vector<BatchInput>& inputs, const BatchOptions& options);

// Runs every input, printing a progress line per scenario, then the table and the final
// line "N scenarios: A agree, B disagree, C skipped"; returns the exit code.
int run_batch(const std::vector<BatchInput>& inputs, const BatchOptions& options);

// The table and the final line, then with --sanitize the line
// "agree: <n>, model-only: <n>, sanitizer-only: <n>" over every row's hazards (exposed for tests).
void print_batch_table(const std::vector<BatchRow>& rows, bool diffed, std::ostream& out);
// The table's last line: "<N> <what>: A agree, B disagree, C skipped[, D errors]".
std::string verdict_counts(const std::vector<BatchRow>& rows, const std::string& what);
int batch_exit_code(const std::vector<BatchRow>& rows);

}  // namespace tmasim::cli
