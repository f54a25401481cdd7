#pragma once
// Internal to codegen: writes the kernel body op by op. Split over kernel_writer.cpp
// (skeleton, loops, selectors, expressions, shared addresses), kernel_writer_trace.cpp (the
// op stream: each op's branch and its trace words), kernel_writer_ops.cpp (one
// emitter per op kind), kernel_writer_thread_ops.cpp (the per-thread accesses and the
// cp.async family) and kernel_writer_reduce_ops.cpp (reductions, gather4 and scatter4),
// kernel_writer_cluster_ops.cpp (remote barriers, cluster barrier, st.async),
// kernel_writer_tensormap_ops.cpp (tensor maps in global memory) and
// kernel_writer_wgmma.cpp (warpgroup MMA: accumulators, descriptors, mma_async) and
// kernel_writer_snapshot.cpp (shared.snapshot's copy into the snapshot area).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/emit/codegen.h"
#include "device/emit/snapshot_plan.h"
#include "device/emit/trace_plan.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/layout.h"

namespace tmasim::device {

// The instruction suffix for an access of `width` bytes: b8, b16, b32, v2_b32, v4_b32
// (nullptr for any other width).
const char* width_suffix(int64_t width);

class KernelWriter {
public:
    KernelWriter(const Scenario& s, TraceLevel level, TraceWordsIn words_in, SharedDump dump);
    std::string kernel();  // the __global__ function, prologue to shared dump

private:
    // Who executes an op and who writes its trace record.
    struct Threads {
        std::string exec;        // predicate: this thread executes the op
        std::string recorder;    // predicate (within exec): this thread stores the op's clock words
        std::string record_lane; // the recording lane (the decoder knows it from the selector)
        std::string rank;        // rank among the executing threads (thread order)
        std::string count;       // number of executing threads
        std::string warp_records;  // warp-uniform predicate: this warp records the op
        std::vector<std::string> setup;  // lines every thread runs before the op's branch
    };
    // A shared address: 32-bit shared::cta value, plus what a hang report needs.
    struct SharedAddr {
        std::string addr;         // unsigned expression (smem_base + offset)
        std::string offset;       // byte offset from the aligned base
        int decl = -1;            // barrier: index into Scenario::barriers
        std::string elem_index;   // element index expression ("0" when not an array)
    };

    void line(const std::string& text);
    void open(const std::string& text);   // line + "{" and indent
    void close(const std::string& tail = "");

    void emit_params();
    void emit_prologue();
    void emit_ops(const std::vector<Op>& ops);
    // `end_later`: a timed CTA barrier whose hold and end clock come after the untimed copies
    // that follow it (emit_ops, untimed_copy_work).
    void emit_op(const Op& op, bool end_later = false);
    bool untimed_copy_work(const Op& op) const;
    void emit_end_clock(const Op& op);  // a timed op's closing clock read, with its hold
    // Consecutive one-thread ops (kernel_writer_trace.cpp): whether `op` may join such a run,
    // and the run ops[begin, end) in one branch.
    bool joins_one_thread_run(const Op& op) const;
    void emit_one_thread_run(const std::vector<Op>& ops, size_t begin, size_t end);
    // An elected run as guarded instructions, no branch (ptx_wrappers_guarded.cpp); false,
    // with nothing written, where an op of it has no guarded form or its body could trap.
    bool emit_guarded_run(const std::vector<Op>& ops, size_t begin, size_t end, const std::string& exec);
    // "PtxGuard{...}, " while a guarded run is written, else "": the first argument of a wrapper
    // that has a guarded form.
    std::string guard_arg() const;
    void emit_run_op_comment(const Op& op, bool own_word);
    void hold_clock_after_barrier();
    std::string hang_context_fill() const;  // the wait's slow path: the context's constants, once
    void emit_loop(const Op& op);
    bool unrolls(const Op& loop) const;
    void emit_unrolled_loop(const Op& loop);
    void emit_epilogue();
    // The trace words (trace_plan.h): the line that reads one into the pending registers;
    // the stores of the pending ones (emit_word_stores leaves them pending, for a branch that
    // exits); moving the pointer past the segment stored so far; what a thread that stops at
    // a hang in the current op stores before it exits.
    std::string read_word(const std::string& clock, const char* what);  // what: "begins" or "ends"
    // Who stores the words: the elected lane, one store per word (anywhere), or, with the whole
    // warp present and the words in global memory, lane j word j in one store instruction.
    enum class WordStorers { elected_lane, whole_warp };
    void emit_word_stores(WordStorers who);
    void store_pending_words(WordStorers who);
    void advance_trace_words();
    void emit_hang_trace();
    static constexpr int kMaxPendingWords = 16;
    static constexpr int64_t kMaxUnrolledCount = 16;  // loops written out: constant count up to this,
    static constexpr int64_t kMaxUnrolledOps = 64;    // straight-line bodies, ops in all up to this

    // The body of one op, between the timer reads (kernel_writer_ops.cpp).
    void emit_op_body(const Op& op, const Threads& t);  // the one switch over the op families
    void emit_local_barrier(const Op& op);
    void emit_async_copy(const Op& op);
    void emit_wait(const Op& op);
    void emit_compute(const Op& op, const Threads& t);
    void emit_tma(const Op& op);  // tma.load, tma.store, tma.prefetch
    void emit_bulk(const Op& op, bool load);
    void emit_bulk_prefetch(const Op& op);
    void emit_wait_group(const Op& op, bool read_only);
    // kernel_writer_thread_ops.cpp
    void emit_shared_load(const Op& op);
    void emit_shared_store(const Op& op);
    void emit_per_thread(const Op& op);
    void emit_global_access(const Op& op);
    void emit_cp_async_family(const Op& op);
    void emit_cp_async(const Op& op);
    void emit_cp_async_wait_group(const Op& op);
    void emit_cp_async_mbarrier_arrive(const Op& op);
    int access_width(const Op& op, int element_size) const;
    const char* emit_shared_access_addr(const Op& op, int element_size);
    // kernel_writer_reduce_ops.cpp
    void emit_bulk_reduce(const Op& op);
    void emit_tma_reduce(const Op& op);
    void emit_tma_gather4_scatter4(const Op& op);
    // The map an op names, its index among the kernel's tensor-map parameters, its tensor.
    struct MapUse {
        const TensorMap* map;
        size_t index;
        const GlobalTensor* tensor;
    };
    MapUse map_of(const Op& op) const;
    // ", (int)c_fastest, ..., (int)c_outermost": IR coordinates reversed for PTX.
    std::string fastest_first_coords(const Op& op, size_t rank) const;
    std::string global_element_ptr(const Op& op, const Expr& index, const char* key) const;
    // The bits shared.store and st.async write for `value` into an element of `type`.
    std::string store_bits(const Op& op, DType type) const;
    // kernel_writer_cluster_ops.cpp
    bool cluster_launch() const;        // more than one CTA per cluster
    bool uses_cluster_barrier() const;  // the kernel tracks `cluster_arrived`
    std::string peer_addr(const std::string& local, const Op& op, const Expr& rank, const char* key) const;
    void emit_remote_mbarrier(const Op& op);
    void emit_cluster_barrier(const Op& op);
    void emit_st_async(const Op& op);
    void emit_fence_proxy_async(const Op& op);
    void emit_cluster_epilogue();
    // kernel_writer_tensormap_ops.cpp
    std::string map_operand(const MapUse& m) const;  // "&tmap<i>", or "(const void*)gmap<i>" in global memory
    int replace_ord(const Op& op, const TensorMap& map) const;
    void emit_tensormap_op(const Op& op);
    void emit_tensormap_replace(const Op& op, const MapUse& m, const std::string& staged_addr);
    // kernel_writer_wgmma.cpp
    int accumulator_index(const Op& op) const;
    void emit_wgmma_wrappers();   // before the kernel: the mma_async forms it uses
    void emit_wgmma_registers();  // prologue: one zeroed register array per accumulator
    void emit_wgmma_pins(int acc);
    void emit_wgmma(const Op& op);
    // layout.*, convert_layout (kernel_writer_layout_ops.cpp).
    void emit_layout_op(const Op& op);
    void emit_layout_registers();  // prologue: one zeroed word array per register tile
    void emit_lane_warp_coords(const LinearLayout& l);
    std::string shared_offset_cxx(const Op& op, const std::vector<int64_t>& shape) const;
    void emit_layout_vectors(const Op& op, bool to_side, bool is_store, bool global);
    void emit_layout_rename(const Op& op);
    void emit_layout_reduce(const Op& op);
    void emit_wgmma_mma(const Op& op);
    // kernel_writer_snapshot.cpp
    void emit_snapshot_counters();  // prologue: one instance counter per snapshot op
    void emit_snapshot(const Op& op);

    Threads threads_of(const Op& op) const;
    std::string int_expr(const Expr& e, const Op& op, const char* key) const;
    std::string var_cxx(const std::string& name, const Op& op, bool as_float) const;
    SharedAddr buffer_addr(const Ref& r, const Op& op) const;
    SharedAddr barrier_addr(const Ref& r, const Op& op) const;
    SharedAddr slot_addr(const Ref& r, const Op& op, const char* key) const;
    [[noreturn]] void fail(const Op& op, const std::string& what) const;

    const Scenario& s_;
    TraceLevel level_;
    TraceWordsIn words_in_;
    SharedDump dump_;
    TracePlan plan_;
    const Op* current_op_ = nullptr;
    int64_t segment_ = 0;  // words read since the pointer last advanced
    int pending_ = 0;      // of those, the last ones not stored yet (tbuf[0..pending_))
    SharedLayout layout_;
    SnapshotPlan snapshots_;
    std::string out_;
    int indent_ = 0;
    std::string guard_;  // the guard's C++ name while a guarded run is written
    std::vector<std::string> loop_vars_;  // YAML names of the enclosing loops, outermost first
    std::vector<Expr> loop_counts_;       // their counts, same order
    std::vector<std::optional<int64_t>> loop_values_;  // a written-out loop's value in this copy
    // Whether `index` stays in [0, count) for every value its variables can take (enclosing
    // loops of constant count, cta, rank): then it needs no run-time check.
    bool index_in_range(const Expr& index, int64_t count) const;
};

}  // namespace tmasim::device
