#pragma once
// From a compute-sanitizer report to trace diagnostics that name the scenario's ops.
//
// A sanitized run compiles the kernel with NVRTC's -lineinfo and #line directives
// (with_line_directives): each op's code is its own file `tmasim_op_<id>.cu` from the comment
// "// op <id>: <kind> by <threads>" (kernel_writer.cpp) that opens it, so a report names the op
// itself and stays readable when the generator's output changes; the rest of the kernel (its
// prologue, from the `extern "C" __global__` line, which is line 1, and everything from the
// comment "// Every op done") is file `tmasim_kernel.cu`, and every device function above it
// (the PTX wrappers, the tracer) is its own file `tmasim_wrapper_<name>.cu`. A
// `tmasim_kernel.cu` line inside an op (a report taken before op files) maps by the op comment
// that precedes it.
// The shared-memory accesses sit in inlined wrappers, and NVRTC's line table gives their
// own line with the call site as `inlined_at`; a tool that prints the inner location names
// a wrapper. Such a location maps to the one op whose code calls that wrapper (directly or
// through other wrappers); to several candidates when more ops call it; else the report's
// "Device Frame:" lines, where the tool prints the callers of inlined code, are tried.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "device/sanitizer/sanitizer_report.h"
#include "ptx/kernel_binding.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// The name NVRTC compiles the generated source under, and the file names the #line
// directives give its parts: the kernel, "tmasim_op_<id>.cu" per op, and
// "tmasim_wrapper_<name>.cu" per device function.
extern const char* const kKernelSourceName;
extern const char* const kKernelFileName;

// The generated source with the #line directives (the code is unchanged). Racecheck's hazard
// records carry no device frames, even with --show-backtrace device and wrappers kept out of
// line (tried on an H200): an access in a wrapper maps to the ops that call it.
std::string with_line_directives(const std::string& kernel_source);

class KernelLineMap {
public:
    explicit KernelLineMap(const std::string& kernel_source);
    // A kernel scenario's map: the device runs the kernel's own PTX, JIT-compiled with line
    // information, so a report names the kernel's source lines (its `.loc`s). A location maps
    // to the ops (ptx::kernel_ops order) whose `.loc` chain holds that file (by base name) and
    // line: one op for most lines, several for a line with more unit instructions or for an
    // inlined helper's line more ops reach. Nothing in it is the executor's own code.
    static KernelLineMap for_kernel(const ptx::BoundKernel& kernel);
    // The op whose code holds this line of `tmasim_kernel.cu` (1: the kernel's first line);
    // -1 for none.
    int op_at(int line) const;
    // The ops a reported access may be: one for a kernel line, or for a wrapper only one op
    // calls; several for a wrapper more ops call (when no device frame is in an op); none.
    std::vector<int> ops_of(const SanitizerLocation& at, const std::vector<SanitizerLocation>& frames) const;
    // ops_of's op when it is one, else -1.
    int op_of(const SanitizerLocation& at, const std::vector<SanitizerLocation>& frames) const;
    // A location in the executor's own code: a kernel line outside every op (the prologue,
    // the final barrier and shared-memory dump), or a wrapper no op calls.
    bool in_executor_code(const SanitizerLocation& at) const;

private:
    KernelLineMap() = default;
    std::vector<int> kernel_ops_at(const SanitizerLocation& at) const;

    bool kernel_scenario_ = false;
    std::map<std::pair<std::string, int>, std::set<int>> ops_at_source_;  // (file base name, line) -> ops
    std::vector<int> op_of_line_;                              // index: kernel line - 1
    std::map<std::string, std::set<int>> ops_calling_;         // wrapper name -> ops
    std::set<std::string> wrappers_;                           // every device function above the kernel
    std::string wrapper_named(const SanitizerLocation& at) const;
};

// One diagnostic per distinct (kind, hazard type, ops involved): rule
// `sanitizer.<tool>.<raw|war|waw|race|barrier|access|uninitialized|other>`, outcome fault
// for memcheck's invalid accesses and hazard for everything else, `op` the later access's op
// (-1 when unmapped), and `detail` with `tool`, `ops` (every access's op id in report order,
// "?" where unmapped), `threads` (the first record's threads, "(x,y,z)"), `blocks`,
// `records` (how many records were merged), `hazards` (analysis mode's counts, summed),
// `lines` (the kernel lines reported) and `address`; `executor_code` = "1" when every access
// is in the executor's own code (no scenario op: not compared with the model, no outcome).
// single_thread_ops: a kernel scenario's (RunResult::single_thread_ops of its model run),
// which threads ran an op; an op scenario's `by` says it.
std::vector<Diagnostic> sanitizer_diagnostics(const SanitizerReport& report, const std::string& tool,
                                              const KernelLineMap& lines, const Scenario& scenario,
                                              const std::map<int, int>* single_thread_ops = nullptr);

}  // namespace tmasim::device
