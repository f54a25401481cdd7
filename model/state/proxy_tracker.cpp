#include "model/state/proxy_tracker.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::model {

ProxyTracker::ProxyTracker(int num_threads, int64_t smem_bytes, int num_barriers, bool cp_agents)
    : threads_(num_threads),
      cp_agents_(cp_agents),
      cp_base_(cp_agents ? num_threads : num_threads + num_barriers),
      tma_base_(cp_agents ? 2 * num_threads : num_threads),
      clock_(cp_agents ? 2 * num_threads + num_barriers : num_threads + num_barriers + 1, 0),
      rows_(1, Row{VectorClock(clock_.size(), 0), static_cast<uint32_t>(clock_.size())}),
      row_(clock_.size(), 0),
      granule_count_(static_cast<size_t>((smem_bytes + kGranule - 1) / kGranule)),
      live_block_((clock_.size() + kBlockAgents - 1) / kBlockAgents, 0) {}

uint32_t ProxyTracker::new_row() {
    if (free_rows_.empty()) {
        rows_.emplace_back();
        return static_cast<uint32_t>(rows_.size() - 1);
    }
    const uint32_t r = free_rows_.back();
    free_rows_.pop_back();
    return r;
}

void ProxyTracker::forget_acquire() {
    drop(last_acquire_.from);
    drop(last_acquire_.to);
    last_acquire_.from = last_acquire_.to = kNoRow;
}

void ProxyTracker::forget_release() {
    drop(last_release_.row);
    last_release_ = {};
}

void ProxyTracker::make_live(size_t block) {
    live_block_[block] = 1;
    ++live_generation_;
    live_spans_.clear();
    for (size_t b = 0; b < live_block_.size(); ++b) {
        if (!live_block_[b]) continue;
        const size_t first = b * kBlockAgents, end = std::min(first + kBlockAgents, clock_.size());
        if (!live_spans_.empty() && live_spans_.back().second == first)
            live_spans_.back().second = end;
        else
            live_spans_.emplace_back(first, end);
    }
}

uint32_t ProxyTracker::tick(int agent) {
    if (!cp_agents_ && agent == cp_base_)
        throw std::logic_error("ProxyTracker: a cp.async agent signals in a tracker made without cp.async agents");
    const size_t block = static_cast<size_t>(agent) / kBlockAgents;
    if (block < live_block_.size() && !live_block_[block]) make_live(block);
    return ++clock_.at(agent);  // the own entry of the agent's row is its clock
}

uint32_t ProxyTracker::least_known(int agent) const {
    uint32_t least = std::numeric_limits<uint32_t>::max();
    for (int t = 0; t < threads_; ++t) least = std::min(least, known(t, agent));
    return least;
}

void ProxyTracker::make_fence_state() {
    if (!fences_.empty()) return;
    fences_.resize(static_cast<size_t>(threads_));
    cp_waited_.assign(static_cast<size_t>(threads_), 0);
    known_at_fence_.resize(static_cast<size_t>(threads_));
}

void ProxyTracker::cp_async_waited(int thread, uint32_t time) {
    make_fence_state();
    cp_waited_.at(thread) = std::max(cp_waited_.at(thread), time);
}

void ProxyTracker::materialize_granules() {
    if (granules_.empty()) granules_.resize(granule_count_);
}

void ProxyTracker::throw_outside(int64_t granule) const {
    // The std::out_of_range the granule vector's at() threw before it was made lazily, with
    // the same text (a fault's message quotes it).
    std::vector<Granule>(granule_count_).at(static_cast<size_t>(granule));
    throw std::logic_error("ProxyTracker::throw_outside: granule inside shared memory");
}

void ProxyTracker::generic_write(int thread, int64_t offset, int64_t bytes, int op) {
    uint32_t t = tick(thread);
    materialize_granules();
    const int64_t first = offset / kGranule;
    int64_t g = first;
    for (; g * kGranule < offset + bytes; ++g) granules_.at(g) = Granule{Proxy::generic, thread, t, op};
    if (g > first) {
        generic_first_ = generic_end_ == 0 ? first : std::min(generic_first_, first);
        generic_end_ = std::max(generic_end_, g);
    }
}

uint32_t ProxyTracker::async_write(int64_t offset, int64_t bytes, int op, int agent) {
    const uint32_t t = agent >= 0 ? tick(agent) : 0;
    // One range check and a fill: a TMA landing marks 64 granules per 256-byte chunk.
    const int64_t first = offset / kGranule, end = (offset + bytes + kGranule - 1) / kGranule;
    if (first >= end) return t;
    // Out of range: the std::out_of_range the per-granule at() threw, at the same granule.
    const int64_t size = static_cast<int64_t>(granule_count_);
    if (first < 0 || end > size) throw_outside(first < 0 ? first : std::max(first, size));
    // Only a generic granule is ever read back (check_async_read): an async write need only
    // overwrite the granules generic writes reached. A streaming CTA's threads write none, and
    // filling 16 bytes per 4 landed was a tenth of a full-chip run.
    const int64_t from = std::max(first, generic_first_), to = std::min(end, generic_end_);
    if (from < to) std::fill(granules_.begin() + from, granules_.begin() + to, Granule{Proxy::async, agent, t, op});
    return t;
}

void ProxyTracker::fence_proxy_async(int thread) {
    const uint32_t t = tick(thread);
    make_fence_state();
    const uint32_t cp_seen = std::max(cp_waited_[thread], known(thread, cp_agent(thread)));
    fences_.at(thread).push_back(Fence{t, cp_seen});
    known_at_fence_[thread] = row_of(thread);
}

namespace {
// Eight entries at a time through unaliased pointers, which -O2 turns into vector max
// instructions: a CTA sync joins every thread's clock of every agent.
void join_entries(uint32_t* __restrict to, const uint32_t* __restrict add, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (size_t j = 0; j < 8; ++j) to[i + j] = std::max(to[i + j], add[i + j]);
    for (; i < n; ++i) to[i] = std::max(to[i], add[i]);
}
}  // namespace

void ProxyTracker::join_live(VectorClock& into, const VectorClock& from) const {
    if (&into == &from) return;
    for (const auto& [first, end] : live_spans_) join_entries(into.data() + first, from.data() + first, end - first);
}

VectorClock ProxyTracker::row_of(int agent) const {
    VectorClock row = row_clock(agent);
    row[agent] = clock_[agent];
    return row;
}

void ProxyTracker::cta_sync(const std::vector<int>& threads) {
    for (int t : threads) tick(t);  // first: a block made live by these ticks is joined too
    // Each distinct row once (most threads share one), then the own clocks.
    std::vector<uint32_t> joined;
    bool ascending = true;
    for (size_t i = 0; i < threads.size(); ++i) {
        const uint32_t row = row_.at(threads[i]);
        if (i > 0 && threads[i] <= threads[i - 1]) ascending = false;
        if (std::find(joined.begin(), joined.end(), row) == joined.end()) joined.push_back(row);
    }
    if (joined.size() == 1 && ascending) {
        // Every thread is on one row, and if nothing else (but the memos) holds it, the join
        // is that row with the own clocks raised: done in place, not in a new 532-byte row.
        // (The join of one row into zeros is the row: it is zero outside the live blocks.)
        const uint32_t r = joined.front();
        const uint32_t memo_refs = (last_acquire_.from == r) + (last_acquire_.to == r) + (last_release_.row == r);
        if (rows_[r].refs == threads.size() + memo_refs) {
            if (last_acquire_.from == r || last_acquire_.to == r) forget_acquire();
            if (last_release_.row == r) forget_release();
            VectorClock& row = rows_[r].clock;
            for (int t : threads) row[t] = std::max(row[t], clock_[t]);
            return;
        }
    }
    const uint32_t all = new_row();
    VectorClock& clock = rows_[all].clock;
    clock.assign(clock_.size(), 0);
    for (const uint32_t row : joined) join_live(clock, rows_[row].clock);
    for (int t : threads) clock[t] = std::max(clock[t], clock_[t]);
    for (int t : threads) point(t, all);
}

VectorClock ProxyTracker::known_by(const std::vector<int>& threads) const {
    VectorClock all = empty_clock();
    for (int t : threads) {
        join_live(all, row_clock(t));
        all[t] = std::max(all[t], clock_[t]);
    }
    return all;
}

void ProxyTracker::release_into(int thread, VectorClock& accumulated) {
    tick(thread);
    if (accumulated.size() != clock_.size()) {
        accumulated = empty_clock();
        forget_release();
    }
    const uint32_t row = row_.at(thread);
    const bool joined_before = last_release_.into == &accumulated && last_release_.row == row &&
                               last_release_.live_generation == live_generation_;
    if (!joined_before) {
        join_live(accumulated, rows_[row].clock);
        hold(row);
        drop(last_release_.row);
        last_release_ = ReleaseMemo{&accumulated, row, live_generation_};
    }
    accumulated[thread] = std::max(accumulated[thread], clock_[thread]);
}

void ProxyTracker::acquire(int thread, const VectorClock& released) { acquire_each(&thread, 1, released); }

void ProxyTracker::acquire_each(const int* threads, size_t count, const VectorClock& released) {
    if (released.size() != clock_.size()) return;
    bool memo_holds_released = false;  // last_acquire_.released == released, known in this call
    for (size_t i = 0; i < count; ++i) {
        const int thread = threads[i];
        // The threads of a warp acquire one phase one after another, from one row: they
        // share the first one's result (its blocks went live then; they stay live).
        if (last_acquire_.from != kNoRow && last_acquire_.from == row_.at(thread) &&
            (memo_holds_released || last_acquire_.released == released)) {
            point(thread, last_acquire_.to);
            memo_holds_released = true;
            continue;
        }
        acquire_new(thread, released);
        memo_holds_released = true;
    }
}

void ProxyTracker::acquire_new(int thread, const VectorClock& released) {
    // A clock from elsewhere may know agents that never ticked here: their blocks go live.
    for (size_t b = 0; b < live_block_.size(); ++b) {
        if (live_block_[b]) continue;
        const size_t first = b * kBlockAgents, end = std::min(first + kBlockAgents, released.size());
        uint32_t any = 0;  // an OR without early exit: a block is 8 entries, and it vectorizes
        for (size_t i = first; i < end; ++i) any |= released[i];
        if (any) make_live(b);
    }
    // The own entry stays the thread's clock (known()); the row's entry for the thread is
    // what others of this row know of it, which the release may raise. A freed row's
    // buffer takes the copy: a fresh 532-byte clock per wait was an allocation of a cold
    // block at 132 CTAs.
    const uint32_t from = row_.at(thread);
    const uint32_t joined = new_row();
    rows_[joined].clock = rows_[from].clock;
    join_live(rows_[joined].clock, released);
    // The memo: `from` and `joined` held by it, the released clock copied into its buffer.
    hold(from);
    hold(joined);
    forget_acquire();
    last_acquire_.from = from;
    last_acquire_.to = joined;
    last_acquire_.released.assign(released.begin(), released.end());
    point(thread, joined);
}

bool ProxyTracker::write_is_fenced(int issuer, const Granule& g) const {
    // (a) the writer's first fence after the write, then a sync edge from after it. A
    // cp.async write is the issuing thread's once its fence has seen the copy land.
    if (fences_.empty()) return false;  // no thread fenced yet: neither (a) nor (b) can hold
    const bool by_cp_unit = is_cp_agent(g.thread);
    const int owner = by_cp_unit ? g.thread - cp_base_ : g.thread;
    const auto& wf = fences_[owner];
    auto first_after = std::find_if(wf.begin(), wf.end(), [&](const Fence& f) {
        return by_cp_unit ? f.cp_seen >= g.time : f.time > g.time;
    });
    if (first_after != wf.end() && known(issuer, owner) >= first_after->time) return true;
    // (b) the issuer fenced while the write was already visible to it.
    const auto& at_fence = known_at_fence_[issuer];
    return !at_fence.empty() && at_fence[g.thread] >= g.time;
}

bool ProxyTracker::fenced_since(int thread, uint32_t stamp) const {
    if (fences_.empty() || thread < 0 || thread >= threads_) return false;
    const auto& tf = fences_[thread];
    return !tf.empty() && tf.back().time >= stamp;
}

bool ProxyTracker::access_is_fenced(int issuer, int thread, uint32_t stamp) const {
    if (fences_.empty() || thread < 0 || thread >= threads_) return false;
    // (a) the accessing thread fenced after the access, and the issuer learned that fence.
    const auto& tf = fences_[thread];
    auto first_after = std::find_if(tf.begin(), tf.end(), [&](const Fence& f) { return f.time >= stamp; });
    if (first_after != tf.end() && known(issuer, thread) >= first_after->time) return true;
    // (b) the issuer fenced while it already knew the access (a release after it).
    const auto& at_fence = known_at_fence_[issuer];
    return !at_fence.empty() && at_fence[thread] >= stamp;
}

std::optional<ProxyViolation> ProxyTracker::check_async_read(int issuer, int64_t offset,
                                                             int64_t bytes) const {
    if (bytes <= 0) return std::nullopt;
    if (granules_.empty()) {
        // No generic write yet: nothing to report, unless the range leaves shared memory, where
        // the granule vector's at() throws as it always did (its text names its size).
        const int64_t first = offset / kGranule, last = (offset + bytes - 1) / kGranule;
        const int64_t size = static_cast<int64_t>(granule_count_);
        if (first < 0 || last >= size) throw_outside(first < 0 ? first : std::max(first, size));
        return std::nullopt;
    }
    std::optional<ProxyViolation> v;
    std::set<int> threads, ops;
    for (int64_t g = offset / kGranule; g * kGranule < offset + bytes; ++g) {
        const Granule& gr = granules_.at(g);
        if (gr.proxy != Proxy::generic || write_is_fenced(issuer, gr)) continue;
        if (!v) {
            v = ProxyViolation{};
            v->first_byte = std::max(offset, g * kGranule);
        }
        v->last_byte = std::min(offset + bytes, (g + 1) * kGranule) - 1;
        threads.insert(gr.thread);
        ops.insert(gr.op);
    }
    if (v) {
        v->threads.assign(threads.begin(), threads.end());
        v->ops.assign(ops.begin(), ops.end());
    }
    return v;
}

std::string format_id_ranges(const std::vector<int>& ids) {
    std::string out;
    for (size_t i = 0; i < ids.size();) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += j == i ? fmt::format("{}", ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace tmasim::model
