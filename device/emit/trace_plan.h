#pragma once
// What a traced kernel stores, decided once for the code generator and the decoder alike.
//
// Each warp owns a region of the trace buffer: a WarpTraceHeader (kernel_abi.h), then one
// clock word (the low 32 bits of %clock64) per timed op instance, in program order. A timed op stores its end
// clock; its begin is the word before it when the op before it in program order was timed
// too (a loop body's first op: when both the op before the loop and the body's last op are),
// otherwise it stores a begin word first. At level `all` every op is timed, so each stores
// one word; at `waits` only the waits are, each storing two. Every warp stores the words of
// every timed op, also one its threads skip (`elected`, `thread N`): that read is where its
// next op begins. Ops folded into a run of cp.async (scenarios/trace_level.h timed_ops) store
// nothing: their events repeat the word the run began at. The words' address advances at run time only at loop boundaries; between
// two advances the offsets are constants. The buffer has room for every word (the kernel
// checks nothing), or the run is refused.
#include <cstdint>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/trace_level.h"

namespace tmasim::device {

struct TracePlan {
    std::vector<int> words_of_op;  // by Op::id: 0 (not timed), 1 (end) or 2 (begin, end)
    TimedOps timed;                // which ops are timed, and which are folded into a run
    int words(const Op& op) const {
        return op.id >= 0 && static_cast<size_t>(op.id) < words_of_op.size() ? words_of_op[static_cast<size_t>(op.id)] : 0;
    }
};

TracePlan plan_trace(const Scenario& s, TraceLevel level);

// One timed (or folded) op instance of one CTA, in program order: its op, loop indices and
// first word (a folded one: the word after the run's begin, none of its own).
struct TracedInstance {
    const Op* op = nullptr;
    std::vector<int64_t> iters;
    // The loop variables at this instance, for an op whose selector names them (which warps
    // record it changes with the iteration); empty for any other.
    Expr::IntEnv env;
    int64_t first_word = 0;
    bool folded = false;
};
// The instances CTA `cta` stores words for, and in total how many words that is.
std::vector<TracedInstance> traced_instances(const Scenario& s, const TracePlan& plan, int cta,
                                             int64_t* total_words = nullptr);
// Words one warp region must hold: the most any CTA stores.
int64_t trace_words_per_warp(const Scenario& s, const TracePlan& plan);

// The trace buffer of a launch: per warp (CTA-major), a header of kTraceHeaderWords, then
// `capacity` clock words, the most any warp stores, rounded up to 16 bytes; `stride` 32-bit
// words from one region to the next. Throws std::runtime_error when the buffer would pass
// 1 GiB.
struct TraceBufferLayout {
    int64_t capacity = 0;
    int64_t stride = 0;
    int64_t warps = 0;
    int64_t bytes() const { return warps * stride * 4; }
    static int64_t padded(int64_t words) { return (words + 3) / 4 * 4; }
};
TraceBufferLayout trace_buffer_layout(const Scenario& s, const TracePlan& plan);

// What the GPU allows that keeping the words in shared memory depends on (cuDeviceGetAttribute).
struct SmLimits {
    int sm_count = 0;
    int64_t smem_per_sm = 0;         // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    int64_t reserved_per_block = 0;  // RESERVED_SHARED_MEMORY_PER_BLOCK (the runtime's 1 KiB)
    int64_t max_smem_optin = 0;      // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
};

// Where the warps keep their words while the kernel runs. In shared memory, after the
// scenario's buffers, when every warp's words fit there without lowering the CTAs an SM must
// hold for the launch: a store to shared memory costs the kernel next to nothing, where one
// to global memory per op made an H100's one-CTA TMA stream 1.4x slower and its cp.async
// stream 3.4x (each warp copies its words to its region at exit). Else straight into the
// regions in global memory, as for every kernel that issues cp.async (its copies fill shared
// memory through the path the stores would take). The kernel aligns its dynamic shared memory
// to 1024 bytes itself.
struct TraceWordPlace {
    bool in_shared = false;
    int64_t ring_offset = 0;      // from the aligned base: warp w's words at + w * padded(capacity) * 4
    int64_t smem_bytes = 0;       // dynamic shared memory of the traced launch
    int64_t untraced_smem_bytes = 0;
};
TraceWordPlace place_trace_words(const Scenario& s, const TraceBufferLayout& layout, const SmLimits& sm);

}  // namespace tmasim::device
