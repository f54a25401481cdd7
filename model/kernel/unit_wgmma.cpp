// wgmma of a kernel (PTX 9.7.15): wgmma.fence, mma_async, commit_group, wait_group. Each warp
// of a warpgroup computes its 16 rows of D when it issues its mma_async, from the operands'
// bytes in shared memory (the descriptors' canonical layouts, model/kernel/wgmma_math.h) or its
// A registers, in f32, k in order (acc + a*b, one rounding per step), into its D registers.
// The operand bytes are an async-proxy read (the proxy fence rule B12, a TMA load's completion
// C17) that stays in flight until a wait_group retires the mma (race.wgmma_operand_overwrite);
// the tensor core's time is the op scenarios' (a quarter of the SM's rate per warp, then the
// latency), and wait_group waits for it.
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/kernel/alu.h"
#include "model/kernel/unit_families.h"
#include "model/kernel/wgmma_math.h"
#include "model/ops/wgmma_warp_ops.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/sm/shared_race_check.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

float element(const uint8_t* smem, int64_t addr, Ty t) {
    uint64_t bits = 0;
    std::memcpy(&bits, smem + addr, static_cast<size_t>(ty_bits(t) / 8));
    if (t == Ty::tf32) {
        float f;
        uint32_t u = static_cast<uint32_t>(bits) & 0xffffe000u;  // tf32 keeps 10 mantissa bits
        std::memcpy(&f, &u, 4);
        return f;
    }
    return ty_to_float(bits, t);
}

// The 16-byte pieces of shared memory an operand's elements lie in (a bit per piece: an
// m64n256 B operand has 4096 elements, and a std::set of them cost more than the mma's math),
// merged into byte ranges, ascending.
std::vector<std::pair<int64_t, int64_t>> byte_ranges(const std::vector<uint64_t>& chunk_bits) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (size_t w = 0; w < chunk_bits.size(); ++w)
        for (uint64_t bits = chunk_bits[w]; bits; bits &= bits - 1) {
            const int64_t c = (static_cast<int64_t>(w) * 64 + __builtin_ctzll(bits)) * 16;
            if (!out.empty() && out.back().second + 1 == c) out.back().second = c + 15;
            else out.push_back({c, c + 15});
        }
    return out;
}

// acc[r][n] += a[r][k] * b[k][n] for the warp's 16 rows, k in order: every element sees its
// products one at a time, each rounded, then added (the model's order, no fused multiply-add),
// and the loop over n has no dependence, so the compiler may vectorize it without changing a bit.
void accumulate_rows(float* __restrict acc, const float* __restrict a, const float* __restrict b, int n, int k) {
    for (int r = 0; r < 16; ++r) {
        float* row = acc + static_cast<ptrdiff_t>(r) * n;
        for (int kk = 0; kk < k; ++kk) {
            const float av = a[r * k + kk];
            const float* bk = b + static_cast<ptrdiff_t>(kk) * n;
            // N is a multiple of 8 (parse_wgmma_shape): blocks of 8 with a fixed trip count are
            // what -O2's cheap vectorizer takes.
            for (int j = 0; j < n; j += 8)
                for (int t = 0; t < 8; ++t) {
                    const float prod = av * bk[j + t];
                    row[j + t] = row[j + t] + prod;
                }
        }
    }
}

}  // namespace

void unit_wgmma(UnitCall& c) {
    WarpProcess& w = c.kw.warp();
    CtaModule& cta = w.cta();
    const TimingParams& tp = cta.run().timing;
    KernelWarp::Wgmma& s = c.kw.wgmma();
    const int warp_in_group = w.warp() % 4;
    const int group = w.warp() / 4;
    if (c.exec != c.kw.alive_mask() || c.kw.alive_mask() != 0xffffffffu)
        throw std::out_of_range(fmt::format("`{}` is .sync.aligned: every lane of the warp executes it together (lanes {:#x} do)",
                                            c.ins().opcode, c.exec));
    c.kw.note_visible_action();
    switch (c.op.kind) {
        case OpKind::wgmma_fence:
            c.emit(EventKind::issue);
            s.fenced = true;
            c.spend(tp.issue_cycles);
            c.emit(EventKind::complete);
            return;
        case OpKind::wgmma_commit_group:
            c.emit(EventKind::issue);
            s.groups.push_back(s.open);
            s.open = {};
            c.spend(tp.wgmma_commit_cycles);
            c.emit(EventKind::complete);
            return;
        case OpKind::wgmma_wait_group: {
            c.emit(EventKind::wait_begin);
            const size_t n = static_cast<size_t>(c.value(0, 0));
            const int64_t now = now_cycles();
            int64_t done = now;
            while (s.groups.size() > n) {
                for (const auto& m : s.groups.front()) done = std::max(done, m.complete_at);
                s.retired_end = s.groups.front().empty() ? s.retired_end : s.groups.front().back().seq + 1;
                s.groups.pop_front();
            }
            std::vector<std::pair<int, uint32_t>> waits, cluster_waits;
            Cluster* cluster = cluster_of(cta);
            for (int l : c.lanes) {
                waits.push_back({c.thread(l), cta.tracker().advance(c.thread(l))});
                if (cluster && cluster->tracking()) {
                    const int a = cluster->agent(cta, c.thread(l));
                    cluster_waits.push_back({a, cluster->clock().tick(a)});
                }
            }
            cta.bulk_stores().wgmma_retired(group, s.retired_end, warp_in_group, waits, cluster_waits);
            c.spend(static_cast<double>(std::max<int64_t>(done - now, 0)) + tp.wgmma_wait_resume_cycles);
            c.emit(EventKind::wait_end);
            return;
        }
        default: break;
    }
    // mma_async d, a-desc | {a regs}, b-desc, scale-d, imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b
    WgmmaShape sh;
    const std::string why = parse_wgmma_shape(c.ins().parts, sh);
    if (!why.empty()) throw std::out_of_range(fmt::format("`{}`: {} is not modelled", c.ins().opcode, why));
    sh.a_in_registers = c.operand(1).kind == UnitOperand::Kind::vector;
    const size_t nops = c.u.operands.size();
    const bool half = sh.atype == Ty::f16 || sh.atype == Ty::bf16;
    // Immediates are the same in every lane: read them at lane 0.
    auto imm = [&](size_t i) { return static_cast<int64_t>(c.value(i, 0)); };
    const bool scale_d = (c.value(3, 0) & 1) != 0;
    if (nops > 4) sh.negate_a = imm(4) == -1 || static_cast<uint32_t>(imm(4)) == 0xffffffffu;
    if (nops > 5) sh.negate_b = imm(5) == -1 || static_cast<uint32_t>(imm(5)) == 0xffffffffu;
    if (half) {
        if (sh.a_in_registers) sh.trans_b = nops > 6 && imm(6) != 0;
        else {
            sh.trans_a = nops > 6 && imm(6) != 0;
            sh.trans_b = nops > 7 && imm(7) != 0;
        }
    }
    if (!s.fenced)
        cta.hazard_once(c.op, c.site(0), "wgmma.missing_fence",
                        HazardRules::message("wgmma.missing_fence",
                                             fmt::format("{}: warp {} issues it, but it has issued no wgmma.fence before",
                                                         op_title(c.op), w.warp())),
                        {{"warp", std::to_string(w.warp())}});
    const UnitOperand& d = c.operand(0);
    const int dregs = sh.dtype == Ty::f32 ? sh.n / 2 : sh.n / 4;
    if (static_cast<int>(d.elems.size()) != dregs)
        throw std::out_of_range(fmt::format("`{}` gives {} D registers; m64n{} with {} accumulators takes {}", c.ins().opcode,
                                            d.elems.size(), sh.n, sh.dtype == Ty::f32 ? "f32" : "f16", dregs));
    const uint8_t* smem = cta.smem().data();
    const int64_t smem_size = c.kw.layout().shared_bytes;
    const int abits = ty_bits(sh.atype), bbits = ty_bits(sh.btype);
    std::vector<uint64_t> chunk_bits(static_cast<size_t>(smem_size / 16 / 64 + 1), 0);
    auto at = [&](const SmemDescriptor& desc, int bits, bool mn_major, int mn, int k) {
        const int64_t a = operand_address(desc, bits, mn_major, mn, k);
        if (a < 0 || a + bits / 8 > smem_size)
            throw std::out_of_range(fmt::format("`{}` reads shared byte {} for element ({}, {}), outside the CTA's {} bytes",
                                                c.ins().opcode, a, mn, k, smem_size));
        const int64_t chunk = a >> 4;
        chunk_bits[static_cast<size_t>(chunk >> 6)] |= uint64_t(1) << (chunk & 63);
        return a;
    };
    // A: this warp's 16 rows (all 64 rows are read once per warpgroup; each warp reads its own).
    std::vector<float> a(static_cast<size_t>(16 * sh.k));
    if (sh.a_in_registers) {
        const std::vector<int32_t>& ar = c.operand(1).elems;
        for (int l = 0; l < 32; ++l)
            for (size_t i = 0; i < ar.size(); ++i) {
                const uint32_t v = static_cast<uint32_t>(c.kw.reg(ar[i], l));
                for (int h = 0; h < 2; ++h) {
                    int row, k;
                    a_fragment(warp_in_group, l, static_cast<int>(i), h, row, k);
                    a[static_cast<size_t>((row - 16 * warp_in_group) * sh.k + k)] = ty_to_float(v >> (16 * h) & 0xffff, sh.atype);
                }
            }
    } else {
        const SmemDescriptor ad = decode_descriptor(c.value(1, 0));
        if (ad.base_offset != 0) throw std::out_of_range("a wgmma descriptor with a non-zero base offset is not modelled");
        for (int r = 0; r < 16; ++r)
            for (int k = 0; k < sh.k; ++k)
                a[static_cast<size_t>(r * sh.k + k)] = element(smem, at(ad, abits, sh.trans_a, 16 * warp_in_group + r, k), sh.atype);
    }
    const SmemDescriptor bd = decode_descriptor(c.value(2, 0));
    if (bd.base_offset != 0) throw std::out_of_range("a wgmma descriptor with a non-zero base offset is not modelled");
    std::vector<float> b(static_cast<size_t>(sh.n * sh.k));  // k-major rows of N: b[k * N + n]
    for (int n = 0; n < sh.n; ++n)
        for (int k = 0; k < sh.k; ++k) b[static_cast<size_t>(k * sh.n + n)] = element(smem, at(bd, bbits, sh.trans_b, n, k), sh.btype);
    // The operand bytes, read through the async proxy. The warp is converged (the instruction is
    // .sync.aligned): every lane has run the same instructions, waits and fences, so each knows
    // what lane 0 knows, and lane 0's check stands for the warp's.
    const auto ranges = byte_ranges(chunk_bits);
    std::vector<WgmmaWarpOps::UnfencedRead> unfenced;
    const auto [name, base] = c.buffer_at(ranges.front().first);
    if (auto r = WgmmaWarpOps::check_read(cta, c.op, w, name, base, ranges, {c.lanes.front()})) unfenced.push_back(*r);
    WgmmaWarpOps::report_unfenced(cta, c.op, w, unfenced);
    if (sh.negate_a)
        for (float& v : a) v = -v;
    if (sh.negate_b)
        for (float& v : b) v = -v;
    // D: this warp's 16 rows x N, gathered from the lanes' fragments, then k in order.
    const int per = sh.dtype == Ty::f32 ? 1 : 2;
    std::vector<float> acc(static_cast<size_t>(16 * sh.n), 0.0f);
    auto fragment = [&](int l, int i, int h) {
        int row, col;
        d_fragment(warp_in_group, l, per == 1 ? i : 2 * i + h, row, col);
        return static_cast<size_t>((row - 16 * warp_in_group) * sh.n + col);
    };
    if (scale_d)
        for (int l = 0; l < 32; ++l)
            for (int i = 0; i < dregs; ++i) {
                const uint64_t old = c.kw.reg(d.elems[static_cast<size_t>(i)], l);
                for (int h = 0; h < per; ++h)
                    acc[fragment(l, i, h)] = per == 1 ? ty_to_float(old & 0xffffffffu, Ty::f32)
                                                      : ty_to_float(old >> (16 * h) & 0xffff, Ty::f16);
            }
    accumulate_rows(acc.data(), a.data(), b.data(), sh.n, sh.k);
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < dregs; ++i) {
            uint64_t out = 0;
            for (int h = 0; h < per; ++h)
                out |= (per == 1 ? float_to_ty(acc[fragment(l, i, h)], Ty::f32) : float_to_ty(acc[fragment(l, i, h)], Ty::f16))
                       << (16 * h);
            c.kw.set_reg(d.elems[static_cast<size_t>(i)], l, out);
        }
    // Each warp's quarter runs on its sub-partition's tensor core after its earlier mmas.
    const int64_t issued = now_cycles() + whole_cycles(tp.wgmma_issue_cycles);
    const int64_t busy = whole_cycles(2.0 * 64 * sh.n * 16 / tp.wgmma_flops_per_cycle);
    s.pipe_free = std::max(s.pipe_free, issued) + busy;
    KernelWarp::Wgmma::Mma m;
    m.seq = s.next_seq++;
    m.complete_at = s.pipe_free + whole_cycles(tp.wgmma_latency_cycles);
    s.open.push_back(m);
    cta.run().log.add_model_only(c.site(0), "wgmma_complete", m.complete_at, {{"warp", std::to_string(w.warp())}});
    cta.bulk_stores().wgmma_issue(group, m.seq, warp_in_group, c.op.id, c.thread(0), ranges);
    cta.bulk_stores().prune(cta.tracker());
    c.emit(EventKind::issue);
    c.spend(tp.wgmma_issue_cycles);
    c.emit(EventKind::complete);
}

}  // namespace tmasim::model::kernel
