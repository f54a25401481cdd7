#pragma once
// The model side of tensor maps in global memory (FORMAT.md "Tensor maps in global memory";
// semantics.md B15, C17): the five ops one warp runs (tensormap.stage, tensormap.replace,
// tensormap.cp_fenceproxy, fence.proxy.tensormap.release / .acquire) on the run's
// TensorMapStates, and what a TMA op checks when it issues on a map (use_at_issue).
//
// Reports: tensormap.no_release / tensormap.no_acquire (B15) at the TMA use;
// race.tensormap_in_use (C17) at a write of a map a TMA op still reads;
// race.tensormap_staged at a cp_fenceproxy whose warp has not synchronised with another
// thread's write of the staged copy (the guide's __syncwarp); tensormap.unstaged at a
// replace or copy of a staged copy that tensormap.stage never filled; the faults
// tensormap.invalid_fields and tensormap.outside_allocation at a use of fields that break
// an encode rule or reach past their tensor.
#include <memory>
#include <string>
#include <vector>

#include "model/core/event_log.h"
#include "model/state/tensormap_state.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;
class WarpProcess;
struct TimingParams;

class TensorMapWarpOps {
public:
    explicit TensorMapWarpOps(WarpProcess& warp);

    void exec(const Op& op, const std::vector<int>& lanes);

private:
    ThreadEvent event(const Op& op, int lane);
    KnowsFn knows_for(int thread) const;
    GlobalTensorMap& map_of(const Op& op);
    void replace(const Op& op, const std::vector<int>& lanes);
    void copy(const Op& op, const std::vector<int>& lanes);
    void check_staged(const Op& op, GlobalTensorMap& m, int lane);
    void check_not_in_flight(const Op& op, const std::string& map, int lane);

    WarpProcess& w_;
    CtaModule& cta_;
    const TimingParams& tp_;
};

// What a TMA op's thread reads when it issues on map `op.map` at `coords`: the map's fields
// now (checked against rule B15 for a map in global memory, and against its tensor's
// allocation and the op's shared buffer), and the token of its in-flight read (-1 for a
// parameter map). Reports and ends the run (RunAborted) on a fault.
struct TensorMapUse {
    std::shared_ptr<const MapFields> fields;
    int reader = -1;

    static TensorMapUse at_issue(CtaModule& cta, const Op& op, const EventSite& site, int thread,
                                 const std::vector<int64_t>& coords);
};

}  // namespace tmasim::model
