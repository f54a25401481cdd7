#pragma once
// Generic-to-async proxy ordering in one CTA's shared memory (semantics.md B11-B12, B16).
//
// Every thread has a logical clock, and a vector clock of what it has synchronised with
// (CTA syncs, mbarrier release-arrive -> acquire-wait). Each 4-byte granule remembers
// its last writer, the writer's proxy and the writer's clock. When the async proxy reads
// a granule whose last write was generic, the read is safe only if a fence.proxy.async
// sits on the causality path from the write to the issue:
//   (a) the writer fenced after the write, and a sync edge leaving the writer after that
//       fence reached the issuer before the issue (the writer == issuer case included), or
//   (b) the issuer fenced at a point where the write was already visible to it
//       (a fence before the sync that brought the write does not count).
//
// Besides the CTA's threads, the clocks have slots for the agents that write shared
// memory asynchronously: each thread's cp.async unit (its LDGSTS copies are generic
// writes, landing later) and the TMA completions of each mbarrier. An agent's writes
// become known to a thread the way PTX makes them visible: cp.async through that
// thread's group waits (or its cp.async.mbarrier.arrive), TMA bytes through the mbarrier
// phase their complete_tx belongs to. A thread that fences after its group wait covers
// its cp.async data (B14), which is rule (a) with the fence seeing the agent's write.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tmasim::model {

using VectorClock = std::vector<uint32_t>;

enum class Proxy { none, generic, async };

// Generic writes read by the async proxy without a fence on the causality path.
struct ProxyViolation {
    int64_t first_byte = 0;     // CTA shared-memory byte offsets of the unsafe granules
    int64_t last_byte = 0;
    std::vector<int> threads;   // writers, ascending
    std::vector<int> ops;       // ops that wrote them, ascending
};

class ProxyTracker {
public:
    static constexpr int64_t kGranule = 4;

    // `cp_agents` false: the program has no cp.async op, so no thread's cp.async unit ever
    // writes or signals, and its entries would be zero in every clock. They get no slots
    // then (one shared slot that never ticks stands for them): a full-chip stream's clocks
    // were half zeros (132 of 260 entries live), copied, joined and compared at every wait
    // and sync, 1 KB each, cold at 132 CTAs.
    ProxyTracker(int num_threads, int64_t smem_bytes, int num_barriers = 0, bool cp_agents = true);

    // Agent slots: a thread's own id, its cp.async unit, an mbarrier's TMA completions.
    // With cp agents the clock is [threads][cp agents][TMA agents], without them
    // [threads][TMA agents][the one never-ticking cp slot].
    int cp_agent(int thread) const { return cp_agents_ ? cp_base_ + thread : cp_base_; }
    int tma_agent(int barrier) const { return tma_base_ + barrier; }
    // Advances an agent's clock (one asynchronous write or signal) and returns the time.
    uint32_t advance(int agent) { return tick(agent); }
    uint32_t time_of(int agent) const { return clock_.at(agent); }
    // The least time of `agent` any thread of the CTA has synchronised with.
    uint32_t least_known(int agent) const;
    // Whether `thread` has synchronised with `agent` at `time` or later.
    bool knows(int thread, int agent, uint32_t time) const { return known(thread, agent) >= time; }
    // The thread's cp.async wait covered its copies landed up to agent time `time`: a
    // later fence of the thread covers them (B14). Visibility itself is tracked per copy
    // (AsyncWriteRegistry), since a wait covers whole groups, not a time.
    void cp_async_waited(int thread, uint32_t time);

    // `thread` may be a cp.async agent: its landing copies are generic writes.
    void generic_write(int thread, int64_t offset, int64_t bytes, int op);
    // Bytes the async proxy wrote (a TMA load landing); `agent` signs them when >= 0.
    // Returns the agent's time of the write (0 without an agent).
    uint32_t async_write(int64_t offset, int64_t bytes, int op, int agent = -1);
    // Whether [offset, offset + bytes) lies in shared memory (async_write does not throw).
    bool covers(int64_t offset, int64_t bytes) const {
        return offset >= 0 && bytes >= 0 && offset + bytes <= static_cast<int64_t>(granule_count_) * kGranule;
    }
    void fence_proxy_async(int thread);
    // barrier.sync among `threads`: each one's clock becomes the join of all of theirs.
    void cta_sync(const std::vector<int>& threads);
    // Release-arrive: folds the thread's clock into `accumulated` (the barrier phase's).
    void release_into(int thread, VectorClock& accumulated);
    // Acquire (a wait that returned true): the thread learns `released`.
    void acquire(int thread, const VectorClock& released);
    // acquire(t, released) for each of `count` threads in order, with the same result. The
    // threads of a warp wait acquire one phase one after another: after the first, the
    // memo's clock is known to be `released` itself, so its ~1 KB is not compared again per
    // thread (a full-chip stream compared it 2M times).
    void acquire_each(const int* threads, size_t count, const VectorClock& released);

    // Async-proxy read of [offset, offset+bytes) issued by `issuer` now.
    std::optional<ProxyViolation> check_async_read(int issuer, int64_t offset, int64_t bytes) const;
    // Whether a generic access `thread` made while its clock was below `stamp` (the stamp
    // SharedAccessHistory gives it: the thread's clock then, plus one) has fence.proxy.async
    // on its causality path to an async-proxy write `issuer` issues now: the same (a) and (b)
    // as for a write read by the async proxy (B12's write-after-read half).
    bool access_is_fenced(int issuer, int thread, uint32_t stamp) const;
    // Whether `thread` fenced (fence.proxy.async) at or after its clock reached `stamp`.
    bool fenced_since(int thread, uint32_t stamp) const;

    // The join of what `threads` know (a converged warp's knowledge, semantics.md C22).
    VectorClock known_by(const std::vector<int>& threads) const;

    int num_threads() const { return threads_; }
    VectorClock empty_clock() const { return VectorClock(clock_.size(), 0); }

private:
    struct Granule {
        Proxy proxy = Proxy::none;
        int thread = -1;
        uint32_t time = 0;
        int op = -1;
    };
    struct Fence {
        uint32_t time = 0;      // the fencing thread's clock at the fence
        uint32_t cp_seen = 0;   // what it knew of its own cp.async agent then
    };
    uint32_t tick(int agent);
    bool write_is_fenced(int issuer, const Granule& g) const;
    // Joins only the entries of live agent blocks: exact whenever `from` is zero outside
    // them, which holds for every clock this tracker made (an agent's entries are zero
    // everywhere until it ticks). A streaming CTA's cp.async agents never tick, and skipping
    // their half of each clock halves a CTA sync, which joins every thread's clock.
    void join_live(VectorClock& into, const VectorClock& from) const;
    void make_live(size_t block);
    static constexpr size_t kBlockAgents = 8;

    int threads_ = 0;
    bool cp_agents_ = true;
    int cp_base_ = 0;   // the first cp agent's slot (or the shared one's)
    int tma_base_ = 0;  // the first TMA agent's slot
    bool is_cp_agent(int agent) const {
        return cp_agents_ ? agent >= cp_base_ && agent < cp_base_ + threads_ : agent == cp_base_;
    }
    std::vector<uint32_t> clock_;                 // own logical time per agent
    // What agent t knows of agent u (u != t): rows_[row_[t]].clock[u]; of itself, its own
    // clock_[t]. Rows are shared, as in ClusterClock: a CTA sync gives every thread one row
    // and the threads of a warp that acquire one phase one after another share the result,
    // so a sync joins one row per distinct row and an acquire of the same release is an
    // index copy. A full-chip stream's 128 threads joining 128 rows at every sync and wait
    // were the model's largest cost. The rows are counted by hand and named by a 4-byte
    // index per agent: as 16-byte shared_ptrs, a warp's 32 were 8 lines to read and write at
    // each wait and a sync's 128 were 32, cold again at 132 CTAs.
    struct Row {
        VectorClock clock;
        uint32_t refs = 0;  // agents and memos that hold it; at 0 its index is free
    };
    std::vector<Row> rows_;
    std::vector<uint32_t> free_rows_;  // their clocks' buffers are reused by the next row
    std::vector<uint32_t> row_;        // per agent
    static constexpr uint32_t kNoRow = UINT32_MAX;
    uint32_t new_row();  // an unheld row (refs 0), its clock to be filled
    void hold(uint32_t r) { ++rows_[r].refs; }
    void drop(uint32_t r) {
        if (r != kNoRow && --rows_[r].refs == 0) free_rows_.push_back(r);
    }
    void point(int agent, uint32_t r) {  // held first: r may be the agent's row already
        hold(r);
        drop(row_[agent]);
        row_[agent] = r;
    }
    const VectorClock& row_clock(int agent) const { return rows_[row_.at(agent)].clock; }
    uint32_t known(int row, int agent) const {
        return row == agent ? clock_.at(agent) : row_clock(row).at(agent);
    }
    // A row with the own entry filled in, as the thread itself sees it.
    VectorClock row_of(int agent) const;
    // Per thread, made by the first fence or cp.async wait (make_fence_state); empty until
    // then, which write_is_fenced reads as no fence: a streaming CTA has neither, and 128
    // empty vectors of each kind were 6.5 KB of fresh memory per CTA at 132 CTAs.
    std::vector<std::vector<Fence>> fences_;      // ascending
    std::vector<uint32_t> cp_waited_;             // latest cp.async time the thread's waits covered
    std::vector<VectorClock> known_at_fence_;     // the thread's row at its latest fence
    void make_fence_state();
    // Made on the first generic write (until then every granule is Proxy::none): a streaming
    // CTA's threads write none, and 16 bytes per 4 of every CTA's shared memory was 34 MB of
    // a full-chip run's pages to fault in and fill.
    size_t granule_count_ = 0;
    std::vector<Granule> granules_;
    void materialize_granules();
    [[noreturn]] void throw_outside(int64_t granule) const;
    // [first, end) granules any generic_write reached (empty: none): the only ones whose
    // state an async write can change as check_async_read sees it.
    int64_t generic_first_ = 0, generic_end_ = 0;
    std::vector<uint8_t> live_block_;                     // per block of kBlockAgents agents
    std::vector<std::pair<size_t, size_t>> live_spans_;  // [first, end) agents of live blocks
    // The last acquire: agents on row `from` that learn `released` move to row `to`. Both
    // rows are held, so neither index can be reused for another row while cached.
    struct AcquireMemo {
        uint32_t from = kNoRow, to = kNoRow;
        VectorClock released;
    };
    AcquireMemo last_acquire_;
    void forget_acquire();
    // acquire's work when the memo does not apply; makes the new memo.
    void acquire_new(int thread, const VectorClock& released);
    // The last release_into: a TMA landing releases its barrier's TMA agent into the phase
    // once per 256-byte chunk (64 times a tile), joining the same row into the same clock.
    // Joins only raise entries, and that clock changes only by release_into or by being
    // cleared (then resized, which drops the memo), so joining the same row again, with
    // no other release_into and no block made live in between, changes nothing. A row
    // changes in place only in cta_sync, which drops the memos that hold it.
    struct ReleaseMemo {
        const VectorClock* into = nullptr;
        uint32_t row = kNoRow;  // held, so its index is not reused by another row
        uint64_t live_generation = 0;
    };
    ReleaseMemo last_release_;
    void forget_release();
    uint64_t live_generation_ = 0;  // make_live calls
};

// "0-63", "0-31,40,64-95": a compact list of thread ids for messages.
std::string format_id_ranges(const std::vector<int>& sorted_ids);

}  // namespace tmasim::model
