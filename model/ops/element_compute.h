#pragma once
// The `compute` op (scenarios/FORMAT.md): plain ld.shared / st.shared per element. The
// executing threads of the whole CTA, in thread order t_0..t_{k-1}, share the elements
// round-robin; this applies one warp's share and records each store as a generic write
// of its thread in the ProxyTracker.
#include <cstdint>
#include <vector>

#include "model/core/event_log.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class ElementCompute {
public:
    // Applies op.fn for `lanes` of `warp`; returns the most elements one lane handled.
    // Throws std::out_of_range when the element range leaves the buffer.
    // Each element access is checked for races with async writes, in-flight async reads
    // (store sources, wgmma operands) and peers' DSMEM accesses (SharedRaceCheck::generic),
    // reported at `site`.
    static int64_t apply(CtaModule& cta, const Op& op, const std::vector<int>& lanes,
                         const Expr::IntEnv& env, int warp, const EventSite& site);
};

}  // namespace tmasim::model
