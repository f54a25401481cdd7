#pragma once
// What a single lane's blocked wait finds its warp-mates doing. The generated kernel runs an
// op `by` one thread (thread N, elected) in a branch the other lanes skip; they go on to the
// next op that is not such a branch. When that op is `by` a predicate, they wait in its
// warp-wide vote (__ballot_sync) for the lane still suspended in try_wait, and the lane
// resumes late: calibrate/mbarrier_blocked_wake, mbarrier_lane_wait_resume_cycles. A CTA
// sync or a whole-warp op there does not delay it (calibrate/mbarrier_wake).
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

// True when, after op `op_id` of `program`, the next op that is not by one thread (skipping
// into loop bodies and around the op's own loop) is by a predicate. Loop counts are not
// evaluated: a loop's body is taken to run once more after its last op, and once at least.
bool next_shared_op_is_vote(const std::vector<Op>& program, int op_id);

}  // namespace tmasim::model
