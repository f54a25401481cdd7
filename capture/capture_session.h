#pragma once
// `tmasim capture`: runs a program with the capture library injected (CUDA_INJECTION64_PATH:
// capture/injection/), then turns each launch it recorded into a kernel scenario with the
// GPU's output as its reference trace, so the launch replays on the model and diffs:
//   DIR/raw/...                   what the library recorded (inputs and outputs stored once each)
//   DIR/ptx/<file>.ptx            each kernel's PTX (from the JIT-loaded text or the fatbin)
//   DIR/capture_NNN_<kernel>.yaml one scenario per launch
//   DIR/reference/<same>.jsonl    the GPU's result, in the trace format, for --diff-against
#include <string>
#include <vector>

namespace tmasim::capture {

struct CaptureOptions {
    std::string dir;                   // -o
    std::vector<std::string> program;  // the command and its arguments
    std::string kernel;                // only launches whose entry contains this ("" all)
    long limit = -1;                   // at most this many launches (-1 all)
    std::string library;               // the injection library ("" finds it beside tmasim)
    std::string cuobjdump;             // "" finds it (CUDA_ROOT/bin, PATH)
};

struct CapturedRow {
    std::string name;     // the scenario's name
    std::string entry;
    std::string refused;  // "" when a scenario was written
};

struct CaptureSummary {
    int program_status = 0;  // the program's exit status (-1: killed by a signal)
    std::vector<CapturedRow> rows;
    std::vector<std::string> missed;  // runtime launches no driver launch callback saw
};

// Runs the program; returns its exit status. Throws std::runtime_error when it cannot start or
// the library is not found.
int run_captured_program(const CaptureOptions& o);
// Writes the scenarios, PTX and references for DIR/raw (what run_captured_program left, or a
// capture made elsewhere). `program` names the command in the scenarios' summaries.
CaptureSummary write_replays(const std::string& dir, const std::string& cuobjdump);
// Where the injection library is: `given`, $TMASIM_CAPTURE_LIB, or beside/under `tmasim_exe`'s
// folder (the build tree's capture/injection/, an install's lib/tmasim/). "" when none.
std::string find_capture_library(const std::string& given, const std::string& tmasim_exe);

}  // namespace tmasim::capture
