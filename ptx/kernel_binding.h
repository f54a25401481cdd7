#pragma once
// Binds a kernel scenario to its kernel: reads its .ptx (or compiles its .cu with NVRTC),
// parses it, finds the entry, checks every param against the PTX's `.param` list (count, size,
// alignment) and the launch against the entry's directives, and lists the kernel's ops: the
// instructions the model's units see (ptx/instruction_kinds.h), one Op each, in PTX order,
// labelled "<ptx file>:<line>" with their `.loc` source line. Everything it refuses is a
// ScenarioError naming both sides: the scenario's key (file:line:col) and the PTX's place.
#include <functional>
#include <string>

#include "ptx/module.h"
#include "scenarios/ir.h"

namespace tmasim::ptx {

// Fills s.kernel->ptx_text / ptx_file and s.program; a scenario without `kernel:` is left as
// it is. Throws ScenarioError.
void bind_kernel(Scenario& s, const std::string& cache_dir = "");

// The bound kernel's module and entry, parsed again from s.kernel->ptx_text (what the
// backends run). Throws ScenarioError when the scenario is not bound.
struct BoundKernel {
    Module module;
    const Function* entry = nullptr;
    // The functions the entry calls (directly or not) that have a body, entry first: the
    // instructions the kernel's ops come from, in this order.
    std::vector<const Function*> functions;
};
BoundKernel parse_bound_kernel(const Scenario& s);

// The op list bind_kernel gives a kernel: one Op per unit instruction of `k.functions`, ids
// from 0 in that order.
std::vector<Op> kernel_ops(const BoundKernel& k, const std::string& ptx_file);
// Each unit instruction of `k.functions`, its op kind and the op id kernel_ops gives it.
void for_each_unit_instruction(const BoundKernel& k,
                               const std::function<void(const Function&, const Instruction&, OpKind, int op_id)>& visit);

// "t1.cu:17:10": the outermost point of the `.loc` chain of `ins`, its file by base name; "".
std::string source_of(const Module& m, const Function& f, const Instruction& ins);

}  // namespace tmasim::ptx
