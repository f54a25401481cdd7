// Warp collectives (shfl, vote, match, redux, elect, activemask), and what the ALU refuses.
#include <stdexcept>

#include <fmt/format.h>

#include "model/kernel/alu.h"
#include "model/kernel/alu_lanes.h"

namespace tmasim::model::kernel {

void run_collective(const DInst& d, uint64_t* regs, uint32_t mask) {
    Lanes L(d, regs);
    switch (d.op) {
        case Opc::shfl: {
            // shfl.sync.mode.b32 d[|p], a, b, c, membermask: c packs the clamp (bits 0-4) and the
            // segment mask (bits 8-12); a source lane outside the segment or the mask reads the
            // lane's own value and p is false (PTX 9.7.8.6).
            uint64_t out[32], ok[32];
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                const uint32_t b = static_cast<uint32_t>(L.b(l)) & 31, c = static_cast<uint32_t>(L.c(l));
                const uint32_t clamp = c & 0x1f, seg = (c >> 8) & 0x1f;
                const uint32_t max_lane = (l & seg) | (clamp & ~seg), min_lane = l & seg;
                int j = l;
                bool pval = true;
                switch (static_cast<ShflMode>(d.sub)) {
                    case ShflMode::up: j = l - static_cast<int>(b); pval = j >= static_cast<int>(max_lane); break;
                    case ShflMode::down: j = l + static_cast<int>(b); pval = j <= static_cast<int>(max_lane); break;
                    case ShflMode::bfly: j = l ^ static_cast<int>(b); pval = j <= static_cast<int>(max_lane); break;
                    case ShflMode::idx: j = static_cast<int>(min_lane | (b & ~seg)); pval = j <= static_cast<int>(max_lane); break;
                }
                if (!pval || j < 0 || j > 31) j = l, pval = false;
                out[l] = L.a(j) & 0xffffffffull;
                ok[l] = pval ? 1 : 0;
            }
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                L.d(l) = out[l];
                if (d.ndst > 1) L.d2(l) = ok[l];
            }
            return;
        }
        case Opc::vote: {
            uint32_t ballot = 0;
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                if (L.a(l) & 1) ballot |= 1u << l;
            }
            const auto mode = static_cast<VoteMode>(d.sub);
            const uint64_t v = mode == VoteMode::ballot ? ballot
                               : mode == VoteMode::all  ? (ballot == mask ? 1 : 0)
                               : mode == VoteMode::any  ? (ballot != 0 ? 1 : 0)
                                                        : ((ballot == 0 || ballot == mask) ? 1 : 0);
            Lanes::each(mask, [&](int l) { L.d(l) = v; });
            return;
        }
        case Opc::match: {
            uint64_t out[32], ok[32];
            const bool all = d.sub == 1;
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                uint32_t same = 0;
                for (uint32_t n = mask; n; n &= n - 1) {
                    const int j = __builtin_ctz(n);
                    if (L.a(j) == L.a(l)) same |= 1u << j;
                }
                out[l] = all ? (same == mask ? mask : 0) : same;
                ok[l] = all ? (same == mask ? 1 : 0) : 1;
            }
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                L.d(l) = out[l];
                if (d.ndst > 1) L.d2(l) = ok[l];
            }
            return;
        }
        case Opc::redux: {
            const bool sgn = ty_signed(d.type);
            int64_t acc = 0;
            bool first = true;
            for (uint32_t m = mask; m; m &= m - 1) {
                const int l = __builtin_ctz(m);
                const int64_t v = sgn ? static_cast<int32_t>(L.a(l)) : static_cast<int64_t>(L.a(l) & 0xffffffff);
                if (first) acc = v, first = false;
                else switch (static_cast<ReduxOp>(d.sub)) {
                    case ReduxOp::add: acc += v; break;
                    case ReduxOp::min: acc = std::min(acc, v); break;
                    case ReduxOp::max: acc = std::max(acc, v); break;
                    case ReduxOp::and_: acc &= v; break;
                    case ReduxOp::or_: acc |= v; break;
                    case ReduxOp::xor_: acc ^= v; break;
                }
            }
            const uint64_t r = static_cast<uint64_t>(acc) & 0xffffffffull;
            Lanes::each(mask, [&](int l) { L.d(l) = r; });
            return;
        }
        case Opc::elect: {
            // elect.sync d|p, membermask: the lowest executing lane of the mask is elected.
            const uint32_t members = mask & static_cast<uint32_t>(L.a(mask ? __builtin_ctz(mask) : 0));
            const int leader = members ? __builtin_ctz(members) : -1;
            Lanes::each(mask, [&](int l) {
                L.d(l) = leader < 0 ? 0 : static_cast<uint64_t>(leader);
                if (d.ndst > 1) L.d2(l) = l == leader ? 1 : 0;
            });
            return;
        }
        case Opc::activemask: Lanes::each(mask, [&](int l) { L.d(l) = mask; }); return;
        default: throw std::logic_error(fmt::format("model: run_collective got opcode {}", static_cast<int>(d.op)));
    }
}

std::string alu_refusal(const DInst& d) {
    const Round r = static_cast<Round>((d.mod & kModRoundMask) >> kModRoundShift);
    switch (d.op) {
        case Opc::cvt: {
            const bool half_to = d.type == Ty::f16 || d.type == Ty::bf16 || d.type == Ty::f16x2 || d.type == Ty::bf16x2;
            if (half_to && (r == Round::rz || r == Round::rm || r == Round::rp))
                return "a conversion to f16/bf16 rounded other than to nearest";
            if (d.type == Ty::none || d.type2 == Ty::none) return "cvt without both types";
            if (ty_bits(d.type) > 64 || ty_bits(d.type2) > 64) return "a 128-bit conversion";
            return "";
        }
        case Opc::fadd: case Opc::fsub: case Opc::fmul: case Opc::ffma: case Opc::fdiv: case Opc::frcp: case Opc::fsqrt:
        case Opc::frsqrt: case Opc::fex2: case Opc::flg2: case Opc::fsin: case Opc::fcos: case Opc::ftanh:
        case Opc::fmin: case Opc::fmax: case Opc::fabs: case Opc::fneg:
            if (d.type != Ty::f32 && d.type != Ty::f64 && d.type != Ty::f16 && d.type != Ty::bf16 && d.type != Ty::f16x2 &&
                d.type != Ty::bf16x2)
                return "a float operation of this type";
            if (d.type != Ty::f32 && (r == Round::rz || r == Round::rm || r == Round::rp))
                return "directed rounding of a type other than f32";
            return "";
        default:
            if (ty_bits(d.type) > 64) return "a 128-bit operand";
            return "";
    }
}

}  // namespace tmasim::model::kernel
