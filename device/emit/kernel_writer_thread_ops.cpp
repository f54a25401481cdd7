// Emitters for the per-thread ops: shared.load/store and global.load (one volatile access
// per executing thread, its width picking the instruction) and the cp.async family.
//
// Every executing thread computes its own element index from tid/lane/warp. The validator
// has already checked, for every thread and loop iteration, that each access is in bounds
// and naturally aligned, so no run-time check sits between the op's timer reads (it would
// add cycles to exactly what a bank-conflict scenario measures).
#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "scenarios/enums.h"

namespace tmasim::device {

const char* width_suffix(int64_t width) {
    switch (width) {
    case 1: return "b8";
    case 2: return "b16";
    case 4: return "b32";
    case 8: return "v2_b32";
    case 16: return "v4_b32";
    default: return nullptr;
    }
}

namespace {

}  // namespace

int KernelWriter::access_width(const Op& op, int element_size) const {
    if (op.width.empty()) return element_size;
    if (!op.width.is_constant()) fail(op, "width must be a constant");
    const int64_t w = op.width.eval_int({});
    if (!width_suffix(static_cast<int>(w)) || w % element_size != 0)
        fail(op, fmt::format("width {} is not 1, 2, 4, 8 or 16 bytes of whole {}-byte elements", w,
                             element_size));
    return static_cast<int>(w);
}

// A generic pointer to element `index` of op.global.
std::string KernelWriter::global_element_ptr(const Op& op, const Expr& index, const char* key) const {
    const GlobalTensor* g = s_.find_global(op.global);
    if (!g) fail(op, "global names no global tensor");
    const size_t gi = static_cast<size_t>(g - s_.globals.data());
    return fmt::format("global{} + {} * {}ll", gi, int_expr(index, op, key), dtype_size(g->type));
}

// Loads fold every 32-bit word they read into load_sink with xor_b32_sink, which also makes
// the clock read that ends the op wait for the data: `complete` is when the value arrived,
// so a bank-conflicted load (more wavefronts) or an L2 miss shows as a longer op.
void KernelWriter::emit_shared_load(const Op& op) {
    const SharedBuffer* buf = s_.find_shared(op.buffer.name);
    if (!buf) fail(op, "buffer names no shared buffer");
    const int esize = dtype_size(buf->type);
    const int width = access_width(op, esize);
    const char* space = emit_shared_access_addr(op, esize);
    if (width <= 4) {
        line(fmt::format("xor_b32_sink(load_sink, ld_volatile_{}_{}(addr));", space, width_suffix(width)));
    } else if (width == 8) {
        line("unsigned d0, d1;");
        line(fmt::format("ld_volatile_{}_v2_b32(addr, d0, d1);", space));
        line("xor_b32_sink(load_sink, d0); xor_b32_sink(load_sink, d1);");
    } else {
        line("unsigned d0, d1, d2, d3;");
        line(fmt::format("ld_volatile_{}_v4_b32(addr, d0, d1, d2, d3);", space));
        line("xor_b32_sink(load_sink, d0); xor_b32_sink(load_sink, d1);");
        line("xor_b32_sink(load_sink, d2); xor_b32_sink(load_sink, d3);");
    }
}

// One access per executing thread: a shared buffer (here or in a peer CTA) or a global tensor.
void KernelWriter::emit_per_thread(const Op& op) {
    if (op.buffer.empty()) return emit_global_access(op);
    if (op_has(op.kind, kWritesShared)) return emit_shared_store(op);
    emit_shared_load(op);
}

void KernelWriter::emit_global_access(const Op& op) {
    const GlobalTensor* g = s_.find_global(op.global);
    if (!g) fail(op, "global names no global tensor");
    const int width = access_width(op, dtype_size(g->type));
    if (op_takes_key(op.kind, "value")) {  // global.store: `value` as shared.store writes it
        line(fmt::format("unsigned char* const dst = {};", global_element_ptr(op, op.index, "index")));
        line(fmt::format("const unsigned bits = {};", store_bits(op, g->type)));
        line(fmt::format("st_global<{}>(dst, {});", width,
                         dtype_size(g->type) == 1   ? "bits * 0x01010101u"
                         : dtype_size(g->type) == 2 ? "bits | (bits << 16)"
                                                    : "bits"));
        return;
    }
    line(fmt::format("const unsigned char* const src = {};", global_element_ptr(op, op.index, "index")));
    if (width <= 4) {
        line(fmt::format("xor_b32_sink(load_sink, ld_volatile_global_{}(src));", width_suffix(width)));
    } else if (width == 8) {
        line("unsigned d0, d1;");
        line("ld_volatile_global_v2_b32(src, d0, d1);");
        line("xor_b32_sink(load_sink, d0); xor_b32_sink(load_sink, d1);");
    } else {
        line("unsigned d0, d1, d2, d3;");
        line("ld_volatile_global_v4_b32(src, d0, d1, d2, d3);");
        line("xor_b32_sink(load_sink, d0); xor_b32_sink(load_sink, d1);");
        line("xor_b32_sink(load_sink, d2); xor_b32_sink(load_sink, d3);");
    }
}

// shared.store: `value` is evaluated once per thread exactly as compute evaluates fn for
// the buffer's type (64-bit integers wrapped to the type; float32 with one rounding per
// operation, then round to nearest even to f16/bf16), and its bits are repeated over every
// element the access covers.
void KernelWriter::emit_shared_store(const Op& op) {
    const SharedBuffer* buf = s_.find_shared(op.buffer.name);
    if (!buf) fail(op, "buffer names no shared buffer");
    if (op.value.empty()) fail(op, "shared.store needs value");
    const int esize = dtype_size(buf->type);
    const int width = access_width(op, esize);
    const char* space = emit_shared_access_addr(op, esize);
    line(fmt::format("const unsigned bits = {};", store_bits(op, buf->type)));
    // One element's bits repeated across a 32-bit word; narrower stores use its low bytes.
    if (esize == 1)
        line("const unsigned word = bits * 0x01010101u;");
    else if (esize == 2)
        line("const unsigned word = bits | (bits << 16);");
    else
        line("const unsigned word = bits;");
    if (width <= 4)
        line(fmt::format("st_volatile_{}_{}(addr, word);", space, width_suffix(width)));
    else if (width == 8)
        line(fmt::format("st_volatile_{}_v2_b32(addr, word, word);", space));
    else
        line(fmt::format("st_volatile_{}_v4_b32(addr, word, word, word, word);", space));
}

// `value` evaluated once per thread exactly as compute evaluates fn for the buffer's type
// (64-bit integers wrapped to the type; float32 with one rounding per operation, then round
// to nearest even to f16/bf16): the element's bits in the low bits of a 32-bit word.
std::string KernelWriter::store_bits(const Op& op, DType type) const {
    if (op.value.empty()) fail(op, "the op needs value");
    const bool is_float = dtype_is_float(type);
    const std::string value =
        op.value.to_cxx([&](const std::string& v) { return var_cxx(v, op, is_float); }, is_float);
    switch (type) {
    case DType::i32: return fmt::format("(unsigned)(long long)({})", value);
    case DType::u8: return fmt::format("(unsigned)(unsigned char)(long long)({})", value);
    case DType::f32: return fmt::format("__float_as_uint((float)({}))", value);
    case DType::f16: return fmt::format("(unsigned)f32_to_f16_bits_rne((float)({}))", value);
    case DType::bf16: return fmt::format("(unsigned)f32_to_bf16_bits_rne((float)({}))", value);
    }
    fail(op, "unknown element type");
}

// The `addr` line of a shared.load/store: this CTA's buffer element, or with `cta:` the
// same element in that rank's copy of the buffer (mapa; distributed shared memory).
// Returns the state space the access names ("shared" or "shared_cluster").
const char* KernelWriter::emit_shared_access_addr(const Op& op, int element_size) {
    const std::string local = fmt::format("{} + (unsigned)({} * {}ll)", buffer_addr(op.buffer, op).addr,
                                          int_expr(op.index, op, "index"), element_size);
    if (op.cta.empty()) {
        line(fmt::format("const unsigned addr = {};", local));
        return "shared";
    }
    line(fmt::format("const unsigned addr = {};", peer_addr(local, op, op.cta, "cta")));
    return "shared_cluster";
}

// cp.async and its groups: the copy, commit_group, wait_group N, wait_all, mbarrier.arrive.
void KernelWriter::emit_cp_async_family(const Op& op) {
    if (op.kind == OpKind::cp_async) return emit_cp_async(op);
    if (op.kind == OpKind::cp_async_mbarrier_arrive) return emit_cp_async_mbarrier_arrive(op);
    if (op.kind == OpKind::cp_async_wait_group) return emit_cp_async_wait_group(op);
    line(op.kind == OpKind::cp_async_wait_all ? "cp_async_wait_all();" : "cp_async_commit_group();");
}

void KernelWriter::emit_cp_async(const Op& op) {
    const GlobalTensor* g = s_.find_global(op.global);
    const SharedBuffer* buf = s_.find_shared(op.dst.name);
    if (!g || !buf) fail(op, "cp.async needs a global tensor and a shared buffer");
    if (!op.size.is_constant()) fail(op, "size must be a constant (cp-size is an immediate)");
    const int64_t size = op.size.eval_int({});
    if (size != 4 && size != 8 && size != 16) fail(op, "size must be 4, 8 or 16 bytes");
    if (op.cache != "ca" && op.cache != "cg") fail(op, "cache must be ca or cg");
    if (op.cache == "cg" && size != 16) fail(op, "cache cg copies 16 bytes only");
    line(fmt::format("const unsigned dst = {} + (unsigned)({} * {}ll);", buffer_addr(op.dst, op).addr,
                     int_expr(op.dst_index, op, "dst_index"), dtype_size(buf->type)));
    line(fmt::format("const unsigned char* const src = {};", global_element_ptr(op, op.src_index, "src_index")));
    if (op.src_size.empty())
        line(fmt::format("cp_async_{}_shared_global<{}>(dst, src);", op.cache, size));
    else
        line(fmt::format("cp_async_{}_shared_global<{}>(dst, src, (unsigned){});", op.cache, size,
                         int_expr(op.src_size, op, "src_size")));
}

void KernelWriter::emit_cp_async_wait_group(const Op& op) {
    if (op.n.empty() || !op.n.is_constant()) fail(op, "n must be a constant (an immediate in PTX)");
    const int64_t n = op.n.eval_int({});
    if (n < 0 || n > 63) fail(op, "n must be in 0..63");
    line(fmt::format("cp_async_wait_group<{}>();", n));
}

void KernelWriter::emit_cp_async_mbarrier_arrive(const Op& op) {
    line(fmt::format("cp_async_mbarrier_arrive{}_shared_cta_b64({});", op.noinc ? "_noinc" : "",
                     barrier_addr(op.barrier, op).addr));
}

}  // namespace tmasim::device
