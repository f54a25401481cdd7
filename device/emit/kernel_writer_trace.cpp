// The op stream and its trace words: each op's branch and clock reads, runs of one-thread
// ops in one branch, the words' registers and stores, and what a hang leaves.
#include <algorithm>

#include <fmt/format.h>

#include "device/emit/kernel_writer.h"

namespace tmasim::device {

namespace {
// Lanes of a warp are not in lockstep (independent thread scheduling): another lane's generic
// shared-memory write is visible to a later op of this lane only past a __syncwarp. The
// model orders a warp's ops for all its lanes, so the kernel says so after every generic
// shared write (compute-sanitizer's racecheck found the missing one: races/shared_waw_synced).
bool warp_sync_after(const Op& op) { return op_has(op.kind, kWritesShared) && !op_has(op.kind, kAsync); }
}  // namespace

namespace {
// Barriers after which the warp goes on issuing until an instruction that needs the barrier
// (SASS BAR.SYNC.DEFER_BLOCKING): a clock read right after bar.sync was up to 315 cycles
// early on an H100, a store or __syncwarp in between held it until the release
// (device/scripts/probes/sync_clock_probe.cu).
bool defers_blocking(OpKind k) {
    return k == OpKind::sync || k == OpKind::bar_sync || k == OpKind::cluster_wait || k == OpKind::cluster_sync;
}
}  // namespace

bool KernelWriter::joins_one_thread_run(const Op& op) const {
    // One thread runs it (the warp's elected lane, or thread N), and nothing in it needs the
    // warp after its branch (scenarios/trace_level.h, the rule the model times such runs by).
    return joins_one_thread_branch(op) && threads_of(op).setup.empty();
}

// Per-thread cp.async the tracer does not time, or a written-out loop of nothing else: a
// warp issues them back to back, and nothing in them waits.
bool KernelWriter::untimed_copy_work(const Op& op) const {
    if (op.kind == OpKind::loop)
        return unrolls(op) && std::all_of(op.body.begin(), op.body.end(),
                                          [&](const Op& o) { return untimed_copy_work(o); });
    return op.kind == OpKind::cp_async && plan_.words(op) == 0;
}

void KernelWriter::emit_op(const Op& op, bool end_later) {
    const Threads t = threads_of(op);
    const int words = plan_.words(op);
    current_op_ = &op;
    line(fmt::format("// op {}: {} by {}{}", op.id, to_string(op.kind),
                     op.by.kind == Selector::Kind::predicate ? std::string("a predicate") : op.by.text(),
                     words > 0 ? "" : " (not timed)"));
    for (const std::string& s : t.setup) line(s);
    // A timed op reads %clock64 after its branch (and before it, when the op before it was not
    // timed); the words wait in registers and are stored together at the next loop boundary,
    // every 16 words, or at a hang or the exit: a store between two ops costs the kernel far
    // more than one after them (device/scripts/probes/trace_store_probe.cu). The warp's elected
    // lane stores them: the warp has reconverged after each op's branch, so every lane read the
    // same clock, and an `elected` run's words are already in that lane.
    if (words == 2) line(read_word("trace_clock64()", "begins"));
    open(fmt::format("if ({})", t.exec));
    emit_op_body(op, t);
    close();
    if (words > 0 && !end_later) emit_end_clock(op);
    if (warp_sync_after(op)) line("__syncwarp(__activemask());");
    if (op.kind == OpKind::shared_snapshot) line(fmt::format("++snap_next_{};", op.id));
}

// The clock read that ends a timed op, ordered after what it times.
void KernelWriter::emit_end_clock(const Op& op) {
    if (defers_blocking(op.kind)) hold_clock_after_barrier();
    // A load's op ends when its data arrived: the clock read waits on the loaded value.
    const bool is_load = op.kind == OpKind::shared_load || op.kind == OpKind::global_load;
    line(read_word(is_load ? "read_clock64_after(load_sink)" : "trace_clock64()", "ends"));
}

void KernelWriter::emit_ops(const std::vector<Op>& ops) {
    for (size_t i = 0; i < ops.size();) {
        if (ops[i].kind == OpKind::loop) {
            emit_loop(ops[i++]);
            continue;
        }
        // An `elected` run: ops the plan folds into the next one, or untimed ones; a `thread N`
        // run: ops after its first all timed (one word each) or none.
        size_t end = i + 1;
        const int later_words = plan_.words(ops[i]) > 0 ? 1 : 0;
        const bool elected = ops[i].by.kind == Selector::Kind::elected;
        const auto links = [&](const Op& before, const Op& next) {
            if (elected)
                return plan_.timed.is_folded(before) ||
                       (plan_.words(before) == 0 && plan_.words(next) == 0 && !plan_.timed.is_folded(next));
            return plan_.words(next) == later_words;
        };
        if (joins_one_thread_run(ops[i]))
            while (end < ops.size() && joins_one_thread_run(ops[end]) && ops[end].by.kind == ops[i].by.kind &&
                   ops[end].by.n == ops[i].by.n && links(ops[end - 1], ops[end]))
                ++end;
        if (end - i >= 2) {
            emit_one_thread_run(ops, i, end);
            i = end;
            continue;
        }
        // A timed CTA barrier followed by copies the tracer does not time (the refill of an
        // LDGSTS pipeline): its hold and end clock come after their issue, which then need
        // not wait for the release. Held right after the barrier, the one-CTA LDGSTS stream
        // ran 1.13-1.15x slower traced than untraced, held after the stage's 8 copies 1.05
        // (H200, bench executor-overhead --variant). The end is still read after the release;
        // the copies' issue, untimed either way, moves from the next timed op into the barrier.
        const Op& op = ops[i];
        size_t copies_end = i + 1;
        if ((op.kind == OpKind::sync || op.kind == OpKind::bar_sync) && plan_.words(op) == 1)
            while (copies_end < ops.size() && untimed_copy_work(ops[copies_end])) ++copies_end;
        if (copies_end == i + 1) {
            emit_op(op);
            ++i;
            continue;
        }
        emit_op(op, true);
        for (size_t k = i + 1; k < copies_end; ++k)
            if (ops[k].kind == OpKind::loop) emit_loop(ops[k]); else emit_op(ops[k]);
        current_op_ = &op;
        line(fmt::format("// op {}: the barrier's end, after the untimed copies that follow it", op.id));
        emit_end_clock(op);
        i = copies_end;
    }
}

// Ops one thread runs back to back (`elected`: the arrive_expect_tx and the copy of a
// producer) share one branch, as a hand-written kernel has them: a clock read between them,
// by the whole warp, split it in two, and the two branches and their reconvergence cost the
// one-CTA TMA stream 12% on an H100 (traced with and without timing those two ops).
// - `elected`: the run is timed as a whole, by one clock read after the branch: the last op
//   ends there, the ones before it are folded into it (timed_ops: no word; their events sit
//   where the run began). Each clock read inside the branch (compiled to a uniform-register
//   S2UR before the copy's issue) cost the one-CTA TMA stream about 10% of its untraced time
//   on an H100, a shuffle of the words to lane 0 40% (`bench executor-overhead --experiments`,
//   2026-11-26). The elected lane stores the warp's words, so nothing moves between lanes.
// - `thread N`: the running thread reads the clock after each op; the words are shuffled
//   from lane N % 32 to the storing lane, and the other warps read the clock after the branch.
void KernelWriter::emit_one_thread_run(const std::vector<Op>& ops, size_t begin, size_t end) {
    const Threads t = threads_of(ops[begin]);
    const bool elected = ops[begin].by.kind == Selector::Kind::elected;
    const std::string name = fmt::format("trun_{}", ops[begin].id);
    line(fmt::format("// ops {} to {}: by {}, one branch", ops[begin].id, ops[end - 1].id, ops[begin].by.text()));
    // An elected run is timed by its last op (the others are folded), a `thread N` run by each.
    const Op& timed_op = elected ? ops[end - 1] : ops[begin];
    current_op_ = &timed_op;
    const bool timed = plan_.words(timed_op) > 0;
    if (plan_.words(timed_op) == 2) line(read_word("trace_clock64()", "begins"));
    // Zeroed: a lane outside the branch must not hand the compiler an undefined value to fold.
    if (timed && !elected) line(fmt::format("unsigned {}[{}] = {{}};", name, end - begin));
    if (!elected || !emit_guarded_run(ops, begin, end, t.exec)) {
        open(fmt::format("if ({})", t.exec));
        for (size_t i = begin; i < end; ++i) {
            emit_run_op_comment(ops[i], timed && (!elected || i + 1 == end));
            open("");
            emit_op_body(ops[i], threads_of(ops[i]));
            close();
            const bool is_load = ops[i].kind == OpKind::shared_load || ops[i].kind == OpKind::global_load;
            if (timed && !elected)
                line(fmt::format("{}[{}] = (unsigned){};", name, i - begin,
                                 is_load ? "read_clock64_after(load_sink)" : "trace_clock64_in_branch()"));
        }
        close();
    }
    if (!timed) return;
    if (elected) {
        const Op& last = ops[end - 1];
        const bool load_last = last.kind == OpKind::shared_load || last.kind == OpKind::global_load;
        current_op_ = &last;
        line(read_word(load_last ? "read_clock64_after(load_sink)" : "trace_clock64()", "ends (the run's end)"));
        return;
    }
    line(fmt::format("const unsigned {}_after = (unsigned)trace_clock64();", name));
    const std::string lane = t.record_lane == "lane" ? std::to_string(ops[begin].by.n % 32) : t.record_lane;
    for (size_t i = begin; i < end; ++i) {
        current_op_ = &ops[i];
        line(read_word(fmt::format("(({}) ? trace_take(warp_mask, {}[{}], {}) : {}_after)", t.warp_records, name,
                                   i - begin, lane, name),
                       "ends"));
    }
}

// The clock read after a barrier must wait for its release. A store does (the warp issues it
// only then), and words kept in shared memory have to be stored anyway: stored here, by the
// lane whose clock is recorded, they hold its read at no extra cost (an H100's one-CTA TMA
// stream: traced/untraced 1.09 with a __syncwarp, 1.03 with the store, `bench
// executor-overhead`, 2026-11-26). Words in global memory wait for the loop's end instead,
// where the warp stores them in one instruction (emit_word_stores), and a __syncwarp holds
// the read: on the one-CTA cp.async stream (whose words are in global memory) neither hold
// costs anything measurable (no hold at all, timed with --variant: 1.242, the store: 1.247);
// its store instructions are its cost.
void KernelWriter::hold_clock_after_barrier() {
    if (pending_ > 0 && words_in_ == TraceWordsIn::shared) {
        line("// the words so far, stored now: the store holds the clock read until the barrier's release");
        store_pending_words(WordStorers::whole_warp);
    } else {
        line("trace_after_barrier();  // the clock read waits for the barrier's release");
    }
}

void KernelWriter::emit_run_op_comment(const Op& op, bool own_word) {
    line(fmt::format("// op {}: {}{}", op.id, to_string(op.kind),
                     own_word ? "" : plan_.timed.is_folded(op) ? " (folded into the run)" : " (not timed)"));
}

// An elected run whose every op has a guarded form (a producer's arrive_expect_tx and its
// copy): the elected lane's guard goes into each instruction, and no branch is left for the
// compiler to keep or predicate (ptx_wrappers_guarded.cpp says what that choice cost). Every
// lane evaluates the operands, so a body with a run-time index check (which could trap on a
// lane that does not issue) keeps the branch.
bool KernelWriter::emit_guarded_run(const std::vector<Op>& ops, size_t begin, size_t end, const std::string& exec) {
    const size_t mark = out_.size();
    const int indent = indent_;
    const bool timed = plan_.words(ops[end - 1]) > 0;
    guard_ = fmt::format("run_guard_{}", ops[begin].id);
    open("");
    line(fmt::format("const bool {} = {};  // the elected lane: its instructions are guarded, not branched", guard_,
                     exec));
    bool every_op_guarded = true;
    for (size_t i = begin; i < end && every_op_guarded; ++i) {
        emit_run_op_comment(ops[i], timed && i + 1 == end);
        const size_t body = out_.size();
        open("");
        emit_op_body(ops[i], threads_of(ops[i]));
        close();
        const std::string text = out_.substr(body);
        every_op_guarded = text.find("PtxGuard{") != std::string::npos && text.find("checked_index") == std::string::npos &&
                           text.find("__trap") == std::string::npos;
    }
    close();
    guard_.clear();
    if (every_op_guarded) return true;
    out_.resize(mark);
    indent_ = indent;
    return false;
}

std::string KernelWriter::guard_arg() const { return guard_.empty() ? "" : "PtxGuard{" + guard_ + "}, "; }

void KernelWriter::advance_trace_words() {
    store_pending_words(WordStorers::whole_warp);
    if (segment_ > 0) line(fmt::format("tw += {};", words_in_ == TraceWordsIn::shared ? 4 * segment_ : segment_));
    segment_ = 0;
}

std::string KernelWriter::read_word(const std::string& clock, const char* what) {
    if (pending_ == kMaxPendingWords) store_pending_words(WordStorers::whole_warp);
    ++segment_;
    return fmt::format("tbuf[{}] = (unsigned){};  // op {} {}", pending_++, clock, current_op_->id, what);
}

void KernelWriter::emit_word_stores(WordStorers who) {
    if (pending_ == 0) return;
    // Words in global memory, with the whole warp here: lane j stores word j, all in one store
    // instruction (every lane read the same clocks). The number of store instructions is what
    // tracing the one-CTA cp.async stream cost on an H100: 1.25x its untraced time with one
    // store per word, 1.02 with no stores in its loop (`bench executor-overhead --variant`,
    // 2026-11-26). Elsewhere (a wait's hang path, where only some lanes are, or words in shared
    // memory) the elected lane stores them one by one.
    // Lane j picks word j with selp (ptx_wrappers.cpp selp_b32), not a `?:` chain: that one
    // compiled to a divergent branch tree that cost each such store ~1000 cycles (H200: the
    // op holding it took 930-1100 cycles more than the model's, 5 of 5 in the fitting traces).
    if (who == WordStorers::whole_warp && words_in_ == TraceWordsIn::global && pending_ > 1) {
        std::string picks = "{ unsigned word = tbuf[0];";
        for (int j = 1; j < pending_; ++j) picks += fmt::format(" word = selp_b32(tbuf[{0}], word, lane == {0});", j);
        line(picks + fmt::format(" if (lane < {}) st_global_u32(tw + {} + lane, word); }}", pending_, segment_ - pending_));
        return;
    }
    std::string stores = "if (lane == (int)leader_lane) {";
    for (int j = 0; j < pending_; ++j) {
        const int64_t index = segment_ - pending_ + j;
        stores += words_in_ == TraceWordsIn::shared ? fmt::format(" st_shared_u32(tw + {}u, tbuf[{}]);", 4 * index, j)
                                                    : fmt::format(" st_global_u32(tw + {}, tbuf[{}]);", index, j);
    }
    line(stores + " }");
}

void KernelWriter::store_pending_words(WordStorers who) {
    emit_word_stores(who);
    pending_ = 0;
}

void KernelWriter::emit_hang_trace() {
    // The words so far are stored (the op's begin word among them, if it has one); the header
    // names the word the op would have ended in.
    emit_word_stores(WordStorers::elected_lane);
    const bool in_shared = words_in_ == TraceWordsIn::shared;
    line(fmt::format("trace_hang(trace_hdr, entry_clock, entry_ns, start_clock, leader_lane, "
                     "(unsigned)(tw - tw_first){} + {}u);",
                     in_shared ? " / 4u" : "", segment_));
    if (in_shared)
        line(fmt::format("trace_copy_words(tw_region, tw_first, (unsigned)(tw - tw_first) / 4u + {}u, __activemask());",
                         segment_));
}

}  // namespace tmasim::device
