#pragma once
// Which PTX instructions the model's units see, and as which op of the op table
// (scenarios/op_table.h): memory accesses of shared and global memory, async copies and
// their groups, mbarriers, CTA and cluster barriers, fences, st.async, tensor maps, wgmma.
// Everything else (ALU, control flow, warp collectives, param/local/const accesses) stays in
// the executing warp. A kernel scenario's ops are these instructions, in PTX order; the
// device backend times them at the same places.
#include <optional>

#include "ptx/module.h"
#include "scenarios/op_table.h"

namespace tmasim::ptx {

// The op an instruction is, or nullopt for an instruction no unit sees.
std::optional<OpKind> unit_op_kind(const Instruction& ins);

// The state space an ld/st/atom/red/cp instruction names as its n-th space modifier
// ("shared::cta" counts as "shared"): "shared", "shared::cluster", "global", "local",
// "param", "const", or "" (generic) when it names none.
std::string memory_space(const Instruction& ins, int nth = 0);

}  // namespace tmasim::ptx
