#pragma once
// What a traced kernel stores, decided once for the code generator and the decoder alike.
//
// Each warp owns a region of the trace buffer: a WarpTraceHeader (kernel_abi.h), then one
// 64-bit %clock64 word per timed op instance, in program order. A timed op stores its end
// clock; its begin is the word before it when the op before it in program order was timed
// too (a loop body's first op: when both the op before the loop and the body's last op are),
// otherwise it stores a begin word first. At level `all` every op is timed, so each stores
// one word; at `waits` only the waits are, each storing two. Every warp stores the words of
// every timed op, also one its threads skip (`elected`, `thread N`): that read is where its
// next op begins. The words' address advances at run time only at loop boundaries; between
// two advances the offsets are constants.
#include <cstdint>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/trace_level.h"

namespace tmasim::device {

struct TracePlan {
    std::vector<int> words_of_op;  // by Op::id: 0 (not timed), 1 (end) or 2 (begin, end)
    int64_t max_segment = 0;       // most words stored between two advances of the pointer
    int words(const Op& op) const {
        return op.id >= 0 && static_cast<size_t>(op.id) < words_of_op.size() ? words_of_op[static_cast<size_t>(op.id)] : 0;
    }
};

TracePlan plan_trace(const Scenario& s, TraceLevel level);

// One timed op instance of one CTA, in program order: its op, loop indices and first word.
struct TracedInstance {
    const Op* op = nullptr;
    std::vector<int64_t> iters;
    int64_t first_word = 0;
};
// The instances CTA `cta` stores words for, and in total how many words that is.
std::vector<TracedInstance> traced_instances(const Scenario& s, const TracePlan& plan, int cta,
                                             int64_t* total_words = nullptr);
// Words one warp region must hold: the most any CTA stores.
int64_t trace_words_per_warp(const Scenario& s, const TracePlan& plan);

// The trace buffer of a launch: per warp (CTA-major), a header of kTraceHeaderWords, then
// `capacity` clock words, then `max_segment` words of slack a segment may spill into when
// the region is full; `stride` 64-bit words from one region to the next. The capacity is
// what the warps store, bounded so that the whole buffer stays within 256 MiB.
struct TraceBufferLayout {
    int64_t capacity = 0;
    int64_t stride = 0;
    int64_t warps = 0;
    int64_t bytes() const { return warps * stride * 8; }
};
TraceBufferLayout trace_buffer_layout(const Scenario& s, const TracePlan& plan);

}  // namespace tmasim::device
