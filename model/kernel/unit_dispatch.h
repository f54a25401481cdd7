#pragma once
// The PTX front end's one dispatch on the op table: each instruction a unit sees goes to its
// family's handler (model/kernel/unit_*.cpp), a switch over OpFamily with no default, as
// WarpProcess::exec is the op front end's (model/ops/warp_dispatch.cpp).
#include <cstdint>

#include "model/kernel/decoder.h"
#include "scenarios/ir.h"

namespace tmasim::model::kernel {

class KernelWarp;

void dispatch_unit(KernelWarp& kw, const DInst& d, const UnitInstruction& u, const Op& op, uint32_t exec);

}  // namespace tmasim::model::kernel
