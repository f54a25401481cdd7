// One emitter per op family: the lines between an op's two timer reads (kernel_writer.cpp
// writes the predicate, the timers and the trace record around them).
#include <cstdint>

#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "scenarios/enums.h"

namespace tmasim::device {

namespace {

bool is_constant_one(const Expr& e) { return e.is_constant() && e.eval_int({}) == 1; }

const char* const kRankWords[] = {"", "1d", "2d", "3d", "4d", "5d"};

}  // namespace

// The device's one dispatch on the op table: a family without a case here is a compiler
// error (-Werror=switch). Each family's emitter tells its own ops apart.
void KernelWriter::emit_op_body(const Op& op, const Threads& t) {
    switch (op_family(op.kind)) {
    case OpFamily::barrier:
        if (!op.cta.empty()) return emit_remote_mbarrier(op);
        return emit_local_barrier(op);
    case OpFamily::barrier_wait: return emit_wait(op);
    case OpFamily::cta_sync:
        if (op.by.kind != Selector::Kind::all)
            fail(op, "sync (barrier.sync 0) must be executed by all threads; a subset would "
                     "wait forever");
        // The plain bar.sync a hand-written __syncthreads() is; when timed, emit_op holds
        // the clock read after it until the barrier released.
        line("barrier_sync_aligned_0();");
        return;
    case OpFamily::named_barrier:
        // Not .aligned: producer and consumer warps reach their named barriers from
        // different branches of the kernel.
        line(fmt::format("{}((unsigned){}, (unsigned){});",
                         op.kind == OpKind::bar_sync ? "barrier_sync" : "barrier_arrive",
                         int_expr(op.barrier_id, op, "id"), int_expr(op.count, op, "count")));
        return;
    case OpFamily::fence:
        if (op.kind == OpKind::fence_proxy_async) return emit_fence_proxy_async(op);
        line("fence_mbarrier_init_release_cluster();");
        return;
    case OpFamily::async_copy: return emit_async_copy(op);
    case OpFamily::bulk_group:
        if (op_has(op.kind, kWait)) return emit_wait_group(op, op.kind == OpKind::bulk_wait_group_read);
        line("cp_async_bulk_commit_group();");
        return;
    case OpFamily::per_thread: return emit_per_thread(op);
    case OpFamily::snapshot: return emit_snapshot(op);
    case OpFamily::cp_async: return emit_cp_async_family(op);
    case OpFamily::compute: return emit_compute(op, t);
    case OpFamily::loop: break;  // emit_loop handles loops
    case OpFamily::cluster_barrier: return emit_cluster_barrier(op);
    case OpFamily::st_async: return emit_st_async(op);
    case OpFamily::tensormap: return emit_tensormap_op(op);
    case OpFamily::wgmma: return emit_wgmma(op);
    case OpFamily::layout: return emit_layout_op(op);
    case OpFamily::kernel_memory: break;  // a kernel's own PTX instruction: the device runs the kernel as it is
    }
    fail(op, "op kind not supported by the device backend");
}

// mbarrier.init/inval/arrive/arrive_expect_tx/expect_tx on this CTA's own barrier.
void KernelWriter::emit_local_barrier(const Op& op) {
    const std::string bar = barrier_addr(op.barrier, op).addr;
    if (op.kind == OpKind::mbarrier_init) {
        line(fmt::format("mbarrier_init_shared_cta_b64({}, (unsigned){});", bar, int_expr(op.count, op, "count")));
    } else if (op.kind == OpKind::mbarrier_inval) {
        line(fmt::format("mbarrier_inval_shared_cta_b64({});", bar));
    } else if (op.kind == OpKind::mbarrier_arrive) {
        // Default count 1 uses the sm_80 form; an explicit count needs the sm_90 one.
        if (op.count.empty() || is_constant_one(op.count))
            line(fmt::format("mbarrier_arrive_shared_cta_b64({});", bar));
        else
            line(fmt::format("mbarrier_arrive_shared_cta_b64({}, (unsigned){});", bar, int_expr(op.count, op, "count")));
    } else if (op.kind == OpKind::mbarrier_arrive_expect_tx) {
        line(fmt::format("mbarrier_arrive_expect_tx_shared_cta_b64({}{}, (unsigned){});", guard_arg(), bar,
                         int_expr(op.bytes, op, "bytes")));
    } else {
        line(fmt::format("mbarrier_expect_tx_relaxed_cta_shared_cta_b64({}, (unsigned){});", bar,
                         int_expr(op.bytes, op, "bytes")));
    }
}

// The TMA unit's ops, by their keys in the op table: rows (gather4/scatter4), coordinates
// of a tensor map (tensor copies), or a global tensor and a byte count (bulk copies).
void KernelWriter::emit_async_copy(const Op& op) {
    if (op_takes_key(op.kind, "rows")) return emit_tma_gather4_scatter4(op);
    if (op.kind == OpKind::tma_reduce) return emit_tma_reduce(op);
    if (op_takes_key(op.kind, "coords")) return emit_tma(op);
    if (op.kind == OpKind::bulk_reduce) return emit_bulk_reduce(op);
    if (op.kind == OpKind::bulk_prefetch) return emit_bulk_prefetch(op);
    emit_bulk(op, op.kind == OpKind::bulk_load);
}

void KernelWriter::emit_wait(const Op& op) {
    const SharedAddr bar = barrier_addr(op.barrier, op);
    line(fmt::format("const unsigned parity = (unsigned){} & 1u;", int_expr(op.parity, op, "parity")));
    // The fast path is a probe and a branch not taken, as a hand-written wait's.
    open(fmt::format("if (__builtin_expect(!mbarrier_wait_parity_fast({}, parity), 0))", bar.addr));
    // The wait's site, into the thread's hang context (kernel_abi.cpp WaitHangContext).
    std::string site = fmt::format("hang_ctx.op = {}; hang_ctx.niters = {}; hang_ctx.barrier = {}; "
                                   "hang_ctx.barrier_index = (int){};",
                                   op.id, loop_vars_.size(), bar.decl, bar.elem_index);
    for (size_t d = 0; d < loop_vars_.size() && d < 4; ++d) site += fmt::format(" hang_ctx.iters[{0}] = it[{0}];", d);
    // A traced warp stores the words it holds first (a hang needs them; the warp waits anyway),
    // then the call does the rest, as for an untraced one: a hang block in the kernel after the
    // call kept the multicast stream at 0.85 of the hand-written speed (kernel_abi.cpp).
    if (level_ != TraceLevel::none) emit_word_stores(WordStorers::elected_lane);  // some lanes only
    const bool words_in_shared = level_ != TraceLevel::none && words_in_ == TraceWordsIn::shared;
    line(hang_context_fill());
    line(site + fmt::format(" hang_ctx.hang_word = (unsigned)(tw - tw_first){} + {}u;", words_in_shared ? " / 4u" : "",
                            segment_));
    line(fmt::format("mbarrier_wait_parity_or_exit({}, parity, watchdog_ns, &hang_ctx);", bar.addr));
    close();
}

KernelWriter::MapUse KernelWriter::map_of(const Op& op) const {
    const TensorMap* map = s_.find_map(op.map);
    if (!map) fail(op, "map names no tensor map");
    const GlobalTensor* tensor = s_.find_global(map->tensor);
    if (!tensor) fail(op, "tensor map names no global tensor");
    return {map, static_cast<size_t>(map - s_.tensormaps.data()), tensor};
}

std::string KernelWriter::fastest_first_coords(const Op& op, size_t rank) const {
    if (rank < 1 || rank > 5) fail(op, "tensor rank must be 1..5 for cp.async.bulk.tensor");
    if (op.coords.size() != rank) fail(op, "coords must have one entry per tensor dimension");
    // IR coordinates are outermost first; PTX wants the fastest-moving dimension first.
    std::string coords;
    for (size_t i = rank; i-- > 0;)
        coords += fmt::format(", (int){}", int_expr(op.coords[i], op, "coords"));
    return coords;
}

void KernelWriter::emit_tma(const Op& op) {
    const MapUse m = map_of(op);
    const size_t rank = m.tensor->shape.size();
    const std::string coords = fastest_first_coords(op, rank);
    const std::string map = map_operand(m);
    if (op.kind == OpKind::tma_load && !op.multicast.empty()) {
        // The same box into every CTA of the 16-bit ctaMask, each at dst's offset, each
        // signalling the barrier at the same offset.
        line(fmt::format("{}({}{}, {}{}, {}, (unsigned short){});", multicast_tensor_wrapper_name(static_cast<int>(rank)),
                         guard_arg(), buffer_addr(op.dst, op).addr, map, coords, barrier_addr(op.barrier, op).addr,
                         int_expr(op.multicast, op, "multicast")));
    } else if (op.kind == OpKind::tma_load) {
        line(fmt::format("cp_async_bulk_tensor_{}_shared_cluster_global_tile_mbarrier({}{}, {}{}, {});",
                         kRankWords[rank], guard_arg(), buffer_addr(op.dst, op).addr, map, coords,
                         barrier_addr(op.barrier, op).addr));
    } else if (op.kind == OpKind::tma_prefetch) {
        line(fmt::format("cp_async_bulk_prefetch_tensor_{}_l2_global_tile({}{});",
                         kRankWords[rank], map, coords));
    } else {
        line(fmt::format("cp_async_bulk_tensor_{}_global_shared_cta_tile_bulk_group({}{}, {});",
                         kRankWords[rank], map, coords, buffer_addr(op.src, op).addr));
    }
}

void KernelWriter::emit_bulk(const Op& op, bool load) {
    const GlobalTensor* g = s_.find_global(op.global);
    if (!g) fail(op, "global names no global tensor");
    const size_t gi = static_cast<size_t>(g - s_.globals.data());
    const std::string offset =
        op.global_offset.empty() ? "0ll" : int_expr(op.global_offset, op, "offset");
    const std::string global_ptr =
        fmt::format("global{} + {} * {}ll", gi, offset, dtype_size(g->type));
    const std::string bytes = "(unsigned)" + int_expr(op.bytes, op, "bytes");
    if (load && !op.multicast.empty())
        line(fmt::format("cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster({}{}, {}, {}, {}, "
                         "(unsigned short){});",
                         guard_arg(), buffer_addr(op.dst, op).addr, global_ptr, bytes, barrier_addr(op.barrier, op).addr,
                         int_expr(op.multicast, op, "multicast")));
    else if (load)
        line(fmt::format("cp_async_bulk_shared_cluster_global_mbarrier({}{}, {}, {}, {});",
                         guard_arg(), buffer_addr(op.dst, op).addr, global_ptr, bytes,
                         barrier_addr(op.barrier, op).addr));
    else
        line(fmt::format("cp_async_bulk_global_shared_cta_bulk_group({}, {}, {});", global_ptr,
                         buffer_addr(op.src, op).addr, bytes));
}

void KernelWriter::emit_bulk_prefetch(const Op& op) {
    const GlobalTensor* g = s_.find_global(op.global);
    if (!g) fail(op, "global names no global tensor");
    const size_t gi = static_cast<size_t>(g - s_.globals.data());
    const std::string offset =
        op.global_offset.empty() ? "0ll" : int_expr(op.global_offset, op, "offset");
    line(fmt::format("cp_async_bulk_prefetch_l2_global(global{} + {} * {}ll, (unsigned){});", gi,
                     offset, dtype_size(g->type), int_expr(op.bytes, op, "bytes")));
}

void KernelWriter::emit_wait_group(const Op& op, bool read_only) {
    const char* name = read_only ? "cp_async_bulk_wait_group_read" : "cp_async_bulk_wait_group";
    if (op.n.empty() || op.n.is_constant()) {
        const int64_t n = op.n.empty() ? 0 : op.n.eval_int({});
        if (n < 0 || n > 63) fail(op, "n must be in 0..63");
        line(fmt::format("{}<{}>();", name, n));
    } else {
        line(fmt::format("cp_async_bulk_wait_group_dynamic({}, {});", int_expr(op.n, op, "n"),
                         read_only ? "true" : "false"));
    }
}

}  // namespace tmasim::device

namespace tmasim::device {

// compute: elements [first, end) of a shared buffer, element e to the executing thread of
// rank (e - first) mod k. Integer buffers evaluate fn in 64-bit and wrap to the type; float
// buffers evaluate in float32 (the kernel is compiled with --fmad=false, so every operation
// rounds once, as the model's Expr::eval_float does) and round to nearest even to f16/bf16.
void KernelWriter::emit_compute(const Op& op, const Threads& t) {
    const SharedBuffer* buf = s_.find_shared(op.buffer.name);
    if (!buf) fail(op, "buffer names no shared buffer");
    if (op.fn.empty()) fail(op, "compute needs fn");
    const SharedAddr addr = buffer_addr(op.buffer, op);
    const int64_t n = buf->num_elements();
    const bool is_float = dtype_is_float(buf->type);

    const std::string first = op.range_start.empty() ? "0ll" : int_expr(op.range_start, op, "start");
    const std::string count = op.range_count.empty()
                                  ? fmt::format("({}ll - first)", n)
                                  : int_expr(op.range_count, op, "count");
    const bool constant_range = (op.range_start.empty() || op.range_start.is_constant()) &&
                                (op.range_count.empty() || op.range_count.is_constant());
    if (constant_range) {
        const int64_t f = op.range_start.empty() ? 0 : op.range_start.eval_int({});
        const int64_t c = op.range_count.empty() ? n - f : op.range_count.eval_int({});
        if (f < 0 || c < 0 || f + c > n)
            fail(op, fmt::format("element range [{}, {}) is outside the buffer ({} elements)", f,
                                 f + c, n));
    }
    auto var = [&](const std::string& v) -> std::string {
        if (v == "x") return "x";
        if (v == "idx") return "idx";
        return var_cxx(v, op, is_float);
    };
    const std::string fn = op.fn.to_cxx(var, is_float);

    line(fmt::format("const long long first = {};", first));
    line(fmt::format("const long long end = first + {};", count));
    if (!constant_range) line(fmt::format("if (first < 0 || end < first || end > {}ll) __trap();", n));

    std::string elem_type, load, store;
    switch (buf->type) {
    case DType::i32:
        elem_type = "int";
        load = "(long long)elems[e]";
        store = "(int)(unsigned)(long long)({})";  // 64-bit result wrapped to 32 bits
        break;
    case DType::u8:
        elem_type = "unsigned char";
        load = "(long long)elems[e]";
        store = "(unsigned char)(long long)({})";
        break;
    case DType::f32:
        elem_type = "float";
        load = "elems[e]";
        store = "(float)({})";
        break;
    case DType::f16:
        elem_type = "unsigned short";
        load = "f16_bits_to_f32(elems[e])";
        store = "f32_to_f16_bits_rne((float)({}))";
        break;
    case DType::bf16:
        elem_type = "unsigned short";
        load = "bf16_bits_to_f32(elems[e])";
        store = "f32_to_bf16_bits_rne((float)({}))";
        break;
    }
    line(fmt::format("{0}* const elems = ({0}*)(smem + {1});", elem_type, addr.offset));
    // A constant range fits an int: 32-bit index arithmetic, as a hand-written loop has.
    const char* index_type = constant_range && n <= INT32_MAX ? "int" : "long long";
    open(fmt::format("for ({0} e = ({0})(first + {1}); e < ({0})end; e += ({0})({2}))", index_type, t.rank, t.count));
    if (is_float) {
        line(fmt::format("const float x = {};", load));
        line("const float idx = (float)e;");
    } else {
        line(fmt::format("const long long x = {};", load));
        line("const long long idx = e;");
    }
    line("(void)x; (void)idx;");
    line("elems[e] = " + fmt::format(fmt::runtime(store), fn) + ";");
    close();
}

}  // namespace tmasim::device
