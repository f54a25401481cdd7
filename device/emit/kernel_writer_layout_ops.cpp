// The layout ops (layout.global_load/store, layout.shared_store/load, convert_layout) on
// the device. Every register tile is a per-thread array of 32-bit words, register r at
// byte r * element size; every op is unrolled over the thread's vectors
// (scenarios/layout_access.h) with constant register indices, so the arrays stay in
// registers and each vector is one ld/st instruction, as in the model's count.
//
// A thread's element of register r is regs(r) ^ lanes(lane) ^ warps(warp) (the linear
// layout's bases): the register part is a constant here, the lane and warp part is
// computed once per op. A store is made only by the holder whose lane and warp bits at
// zero bases are 0 (the first holder, as in the model; the loader refuses layouts whose
// non-zero bases are dependent, so no other duplicates exist).
#include <algorithm>

#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "scenarios/layout_ops.h"
#include "scenarios/layout_reduce.h"

namespace tmasim::device {

namespace {

// Bits of the lane (or warp) index whose bases are all zero: copies of lower indices.
int64_t zero_bits(const std::vector<Coords>& bases) {
    int64_t m = 0;
    for (size_t i = 0; i < bases.size(); ++i) {
        bool zero = true;
        for (int64_t v : bases[i]) zero = zero && v == 0;
        if (zero) m |= int64_t(1) << i;
    }
    return m;
}

// The register part of register r's coordinates.
Coords reg_part(const LinearLayout& l, int64_t r) { return l.element(r, 0, 0); }

std::string tile_var(const Scenario& s, const std::string& name) {
    return fmt::format("ltile{}", s.find_tile(name) - s.tiles.data());
}

}  // namespace

void KernelWriter::emit_layout_registers() {
    if (s_.tiles.empty()) return;
    line("// Register tiles (tiles:): this thread's registers of each, element r at byte r * size.");
    for (const TileDecl& t : s_.tiles) {
        const LinearLayout l = s_.tile_layout(t.name);
        const int64_t words = (l.num_regs() * dtype_size(t.type) + 3) / 4;
        line(fmt::format("unsigned {0}[{1}] = {{}}; (void){0};", tile_var(s_, t.name), words));
    }
}

// lc0, lc1: the lane and warp part of this thread's coordinates in layout `l`.
void KernelWriter::emit_lane_warp_coords(const LinearLayout& l) {
    line("long long lc0 = 0, lc1 = 0; (void)lc1;");
    const std::pair<const char*, const std::vector<Coords>*> parts[] = {{"lane", &l.lane}, {"warp", &l.warp}};
    for (const auto& [var, bases] : parts)
        for (size_t i = 0; i < bases->size(); ++i) {
            const Coords& b = (*bases)[i];
            if (std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; })) continue;
            std::string body;
            for (size_t d = 0; d < b.size(); ++d)
                if (b[d] != 0) body += fmt::format(" lc{} ^= {};", d, b[d]);
            line(fmt::format("if (({} >> {}) & 1){}", var, i, body));
        }
}

namespace {
// The C++ of register r's coordinate d: its constant register part XOR lc<d>.
std::string coord(const LinearLayout& l, int64_t r, size_t d) {
    return fmt::format("({}ll ^ lc{})", reg_part(l, r)[d], d);
}
}  // namespace

// The element offset of (i0, i1) in the op's shared buffer: its shared layout, or row-major.

std::string KernelWriter::shared_offset_cxx(const Op& op, const std::vector<int64_t>& shape) const {
    if (shape.size() == 1) return "i0";
    if (op.shared_layout.empty()) return fmt::format("(i0 * {}ll + i1)", shape[1]);
    const SharedLayoutSpec& sp = s_.find_layout(op.shared_layout)->smem;
    size_t inner = 1;
    if (sp.kind == SharedLayoutSpec::Kind::nvmma) inner = sp.transposed ? 0 : 1;
    else if (!sp.order.empty()) inner = size_t(sp.order[0]);
    const std::string row = inner == 1 ? "i0" : "i1", col = inner == 1 ? "i1" : "i0";
    const int64_t cols = shape[inner], rows = shape[1 - inner];
    if (sp.kind == SharedLayoutSpec::Kind::swizzled)
        return fmt::format("({0} * {2}ll + ((({1} / {3}) ^ (({0} / {4}) % {5})) * {3} + {1} % {3}))", row, col, cols,
                           sp.vec, sp.per_phase, sp.max_phase);
    const int64_t esize = dtype_size(s_.find_tile(op.tile)->type);
    const int64_t row_elems = sp.swizzle_bytes / esize, per_phase = 128 / sp.swizzle_bytes,
                  max_phase = sp.swizzle_bytes / 16;
    // Bytes: column block, row, 16-byte chunk XOR the row's phase, byte in the chunk.
    return fmt::format("((({1} / {2}) * {3}ll + {0} * {4}ll + ((((({1} % {2}) * {5}) / 16) ^ (({0} / {6}) % {7})) * 16) + "
                       "((({1} % {2}) * {5}) % 16)) / {5})",
                       row, col, row_elems, rows * sp.swizzle_bytes, sp.swizzle_bytes, esize, per_phase, max_phase);
}

// One instruction per vector of the thread's registers of `tile`, between registers and
// global memory or shared memory (`to_side`: convert_layout's destination).
void KernelWriter::emit_layout_vectors(const Op& op, bool to_side, bool is_store, bool global) {
    const std::string tile_name = to_side ? op.to_tile : op.tile;
    const TileDecl& tile = *s_.find_tile(tile_name);
    const LayoutOpView v = layout_op_view(s_, op, to_side);
    const LinearLayout& l = v.layout;
    const std::string t = tile_var(s_, tile_name);
    const char* suffix = width_suffix(v.plan.vec_bytes);
    if (!suffix) fail(op, "a vector that is not 1, 2, 4, 8 or 16 bytes");
    const int64_t zero_lanes = zero_bits(l.lane), zero_warps = zero_bits(l.warp), zero_regs = zero_bits(l.reg);
    emit_lane_warp_coords(l);
    if (is_store && (zero_lanes | zero_warps) != 0)
        line(fmt::format("const bool owner = (lane & {}) == 0 && (warp & {}) == 0;", zero_lanes, zero_warps));
    else
        line("const bool owner = true; (void)owner;");
    if (global) {
        const GlobalTensor* g = s_.find_global(op.global);
        line(fmt::format("const long long lbase = {};", int_expr(op.base, op, "base")));
        line(fmt::format("unsigned char* const gptr = global{};", g - s_.globals.data()));
    } else {
        line(fmt::format("const unsigned sbase = {};", buffer_addr(op.buffer, op).addr));
    }
    const int64_t esize = v.esize, words = v.plan.vec_bytes / 4;
    for (int64_t k = 0; k < v.plan.per_thread; ++k) {
        const int64_t r0 = k * v.plan.vec;
        if (is_store && (r0 & zero_regs) != 0) continue;  // a register copy of an earlier one
        open("");
        line(fmt::format("const long long i0 = {}; const long long i1 = {}; (void)i1;", coord(l, r0, 0),
                         tile.shape.size() > 1 ? coord(l, r0, 1) : "0ll"));
        const int64_t byte = r0 * esize, w = byte / 4, shift = (byte % 4) * 8;
        std::string operands;
        for (int64_t j = 0; j < words; ++j) operands += fmt::format(", {}[{}]", t, w + j);
        const std::string narrow_mask = v.plan.vec_bytes == 1 ? "0xffu" : "0xffffu";
        std::string access;
        if (global) {
            line("const long long off = lbase + i0 * " + std::to_string(op.strides[0]) + "ll" +
                 (tile.shape.size() > 1 ? " + i1 * " + std::to_string(op.strides[1]) + "ll" : std::string()) + ";");
            line(fmt::format("unsigned char* const p = gptr + off * {}ll;", esize));
            const char* fn = is_store ? "st_global" : "ld_global";
            if (words == 1 && !is_store) access = fmt::format("{}[{}] = {}_{}(p);", t, w, fn, suffix);
            else if (words >= 1) access = fmt::format("{}_{}(p{});", fn, suffix, operands);
            else if (is_store) access = fmt::format("{}_{}(p, {}[{}] >> {});", fn, suffix, t, w, shift);
            else
                access = fmt::format("{0}[{1}] = ({0}[{1}] & ~({2} << {3})) | ({4}_{5}(p) << {3});", t, w, narrow_mask,
                                     shift, fn, suffix);
        } else {
            line(fmt::format("const unsigned p = sbase + (unsigned)({} * {}ll);", shared_offset_cxx(op, tile.shape), esize));
            if (words == 1 && !is_store)
                access = fmt::format("{}[{}] = ld_volatile_shared_{}(p);", t, w, suffix);
            else if (words >= 1)
                access = fmt::format("{}_volatile_shared_{}(p{});", is_store ? "st" : "ld", suffix, operands);
            else if (is_store) access = fmt::format("st_volatile_shared_{}(p, {}[{}] >> {});", suffix, t, w, shift);
            else
                access = fmt::format("{0}[{1}] = ({0}[{1}] & ~({2} << {3})) | (ld_volatile_shared_{4}(p) << {3});", t, w,
                                     narrow_mask, shift, suffix);
        }
        std::string guard = is_store ? "owner" : "";
        if (global && !op.mask.empty()) {
            const std::string mask = op.mask.to_cxx(
                [&](const std::string& name) -> std::string {
                    if (name == "i0" || name == "i1" || name == "off") return name;
                    return var_cxx(name, op, false);
                },
                false);
            guard += (guard.empty() ? "" : " && ") + std::string("(") + mask + ")";
        }
        if (guard.empty()) {
            line(access);
        } else {
            line(fmt::format("if ({}) {}", guard, access));
            if (!is_store && global) {  // a masked-off load yields 0
                std::string zero;
                if (words >= 1)
                    for (int64_t j = 0; j < words; ++j) zero += fmt::format(" {}[{}] = 0u;", t, w + j);
                else
                    zero = fmt::format(" {0}[{1}] &= ~({2} << {3});", t, w, narrow_mask, shift);
                line("else {" + zero + " }");
            }
        }
        close();
    }
}

// convert_layout between layouts whose threads hold the same elements: registers renamed.
void KernelWriter::emit_layout_rename(const Op& op) {
    const LinearLayout a = s_.tile_layout(op.tile), b = s_.tile_layout(op.to_tile);
    if (a.lane != b.lane || a.warp != b.warp)
        fail(op, "a trivial convert_layout whose register permutation depends on the thread; the device needs the "
                 "same lane and warp bases on both sides");
    const int64_t esize = dtype_size(s_.find_tile(op.tile)->type);
    const std::string ts = tile_var(s_, op.tile), td = tile_var(s_, op.to_tile);
    for (int64_t r = 0; r < b.num_regs(); ++r) {
        int64_t from = -1;
        for (int64_t q = 0; q < a.num_regs() && from < 0; ++q)
            if (a.element(q, 0, 0) == b.element(r, 0, 0)) from = q;
        if (from < 0) fail(op, "convert_layout: an element the source registers do not hold");
        const int64_t sb = from * esize, db = r * esize;
        if (esize == 4) {
            line(fmt::format("{}[{}] = {}[{}];", td, db / 4, ts, sb / 4));
        } else {
            const std::string m = esize == 1 ? "0xffu" : "0xffffu";
            line(fmt::format("{0}[{1}] = ({0}[{1}] & ~({2} << {3})) | ((({4}[{5}] >> {6}) & {2}) << {3});", td, db / 4, m,
                             (db % 4) * 8, ts, sb / 4, (sb % 4) * 8));
        }
    }
}

// layout.reduce in scenarios/layout_reduce.h's order: registers, lane rounds, warps.
void KernelWriter::emit_layout_reduce(const Op& op) {
    ReducePlan p;
    try {
        p = plan_reduce(s_, op);
    } catch (const std::invalid_argument& e) {
        fail(op, e.what());
    }
    const std::string ts = tile_var(s_, op.tile), td = tile_var(s_, op.to_tile);
    const auto f = [&](const std::string& a, const std::string& b) {
        return op.combine_max ? fmt::format("fmaxf({}, {})", a, b) : fmt::format("({} + {})", a, b);
    };
    const size_t groups = p.groups.size();
    line(fmt::format("float racc[{}];", groups));
    for (size_t g = 0; g < groups; ++g) {
        const std::vector<int64_t>& regs = p.groups[g];
        line(fmt::format("racc[{}] = __uint_as_float({}[{}]);", g, ts, regs[0]));
        for (size_t i = 1; i < regs.size(); ++i)
            line(fmt::format("racc[{0}] = {1};", g, f(fmt::format("racc[{}]", g), fmt::format("__uint_as_float({}[{}])", ts, regs[i]))));
    }
    for (int bit : p.lane_bits)
        for (size_t g = 0; g < groups; ++g)
            line(fmt::format("racc[{0}] = {1};", g,
                             f(fmt::format("racc[{}]", g), fmt::format("shfl_sync_bfly_b32(racc[{}], {}u)", g, 1u << bit))));
    if (!p.warp_bits.empty()) {
        emit_lane_warp_coords(p.dst);  // lc0: this thread's part of each destination element
        int64_t mask = 0;
        for (int b : p.warp_bits) mask |= int64_t(1) << b;
        line(fmt::format("const unsigned sbase = {};", buffer_addr(op.buffer, op).addr));
        for (size_t g = 0; g < groups; ++g)
            line(fmt::format("st_volatile_shared_b32(sbase + (unsigned)(((long long)warp * {}ll + ({}ll ^ lc0)) * 4ll), "
                             "__float_as_uint(racc[{}]));",
                             p.out_elements, p.dst.element(int64_t(g), 0, 0)[0], g));
        line("barrier_sync_aligned_0();");
        std::vector<int64_t> subsets;  // the axis bits' combinations, increasing
        for (int64_t c = 0; c <= mask; ++c)
            if ((c & ~mask) == 0) subsets.push_back(c);
        for (size_t g = 0; g < groups; ++g)
            for (size_t k = 0; k < subsets.size(); ++k) {
                const std::string v = fmt::format(
                    "__uint_as_float(ld_volatile_shared_b32(sbase + (unsigned)((((long long)warp & ~{}ll) | {}ll) * {}ll + "
                    "({}ll ^ lc0)) * 4u))",
                    mask, subsets[k], p.out_elements, p.dst.element(int64_t(g), 0, 0)[0]);
                line(fmt::format("racc[{}] = {};", g, k == 0 ? v : f(fmt::format("racc[{}]", g), v)));
            }
        line("barrier_sync_aligned_0();");
    }
    for (size_t g = 0; g < groups; ++g) line(fmt::format("{}[{}] = __float_as_uint(racc[{}]);", td, g, g));
}

void KernelWriter::emit_layout_op(const Op& op) {
    switch (op.kind) {
    case OpKind::layout_reduce: return emit_layout_reduce(op);
    case OpKind::layout_global_load: return emit_layout_vectors(op, false, false, true);
    case OpKind::layout_global_store: return emit_layout_vectors(op, false, true, true);
    case OpKind::layout_shared_store: return emit_layout_vectors(op, false, true, false);
    case OpKind::layout_shared_load: return emit_layout_vectors(op, false, false, false);
    case OpKind::convert_layout:
        if (conversion_is_trivial(s_, op)) return emit_layout_rename(op);
        // Every warp stores its registers, a barrier, every warp loads the destination
        // layout's, a barrier before the scratch can be written again.
        open("");
        emit_layout_vectors(op, false, true, false);
        close();
        line("barrier_sync_aligned_0();");
        open("");
        emit_layout_vectors(op, true, false, false);
        close();
        line("barrier_sync_aligned_0();");
        return;
    default: fail(op, "not a layout op");
    }
}

}  // namespace tmasim::device
