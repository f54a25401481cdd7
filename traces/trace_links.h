#pragma once
// What connects the events of one run, for the viewers (Chrome export, HTML report): each
// asynchronous copy from its issue to its last landing, the barrier transactions it
// completed, the phase flips, and the waits each flip released; and every barrier's
// tx-count and phase over time. Only the model sees the middle of that chain (its
// model-only events), so a device trace yields copies without landings and no barriers.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "traces/trace_writer.h"

namespace tmasim {

// One barrier phase completing, and the waits that were blocked on it when it did.
struct PhaseFlip {
    const TraceEvent* event = nullptr;  // model-only `phase_flip` (detail: barrier, phase)
    std::string barrier;
    int64_t phase = 0;                  // the phase that completed
    // wait_end events of the mbarrier waits this flip satisfied (link_trace says how).
    std::vector<const TraceEvent*> released;
};

// An asynchronous copy (an op execution with model-only copy events: tma_start,
// bytes_landed, complete_tx, bulk_read_done): in flight from its issue to its last event.
struct CopyFlight {
    const TraceEvent* issue = nullptr;  // the op's `issue` event; may be absent (nullptr)
    const TraceEvent* first = nullptr;  // the earliest event of the copy
    int64_t start = 0, end = 0;
    std::vector<const TraceEvent*> complete_tx;  // in time order
    std::vector<size_t> flips;                   // indexes into TraceLinks::flips, in time order
};

// A barrier's state after an event: tx_count and completed phases ("phase" counter).
struct BarrierSample {
    int64_t t = 0;
    int64_t tx_before = 0;  // complete_tx: the count before its bytes; a flip: tx_count
    int64_t tx_count = 0;
    int64_t phases_completed = 0;
};

struct TraceLinks {
    std::vector<CopyFlight> copies;  // by start time
    std::vector<PhaseFlip> flips;    // by time
    // (cta, barrier name) -> its samples in time order.
    std::map<std::pair<int, std::string>, std::vector<BarrierSample>> barriers;
};

// What each mbarrier wait execution waits for, from the scenario: (op, loop indices) ->
// (barrier instance "full[1]", parity). Traces do not carry it.
using WaitTargets = std::map<std::pair<int, std::vector<int64_t>>, std::pair<std::string, int64_t>>;
// Evaluates every mbarrier wait's barrier index and parity at each loop index the run
// reached; waits whose expressions need thread values (tid, warp) are left out.
WaitTargets wait_targets_of(const Scenario& scenario, const RunResult& result);

// `names` tells which wait_end events are mbarrier waits (op names "mbarrier.*wait*");
// without names no wait is linked. With `targets`, a wait is linked to the last flip of
// its barrier and parity before it returned (it may not have blocked); without, only a
// wait that was blocked when a flip happened is linked, to the last such flip of its CTA.
// The result points into `result`.
TraceLinks link_trace(const RunResult& result, const OpNames& names, const WaitTargets* targets = nullptr);

// "tma.load #4[0][1]": the op's name (or "op"), id and loop indices.
std::string op_label(const TraceEvent& e, const OpNames& names);

}  // namespace tmasim
