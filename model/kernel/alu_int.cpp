// Integer, bit, predicate, compare and select instructions, and the dispatch of run_alu.
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "model/kernel/alu.h"
#include "model/kernel/alu_lanes.h"

namespace tmasim::model::kernel {
namespace {

uint64_t width_mask(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
int64_t sext(uint64_t v, int bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    const uint64_t m = uint64_t(1) << (bits - 1);
    v &= width_mask(bits);
    return static_cast<int64_t>((v ^ m) - m);
}

// a*b as 128 bits (signed or not) for mul.hi/wide of 64-bit operands.
unsigned __int128 mul128(uint64_t a, uint64_t b, bool sgn) {
    if (!sgn) return static_cast<unsigned __int128>(a) * b;
    return static_cast<unsigned __int128>(static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b));
}

uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int bits, bool sgn) {
    pos &= 0xff;
    len &= 0xff;
    const uint64_t msb_of_a = (a >> (bits - 1)) & 1;
    uint64_t r = 0;
    for (uint32_t i = 0; i < static_cast<uint32_t>(bits); ++i) {
        uint64_t bit;
        if (i < len && pos + i < static_cast<uint32_t>(bits)) bit = (a >> (pos + i)) & 1;
        else if (!sgn || len == 0) bit = 0;
        else bit = pos + len - 1 >= static_cast<uint32_t>(bits) ? msb_of_a : (a >> (pos + len - 1)) & 1;
        r |= bit << i;
    }
    return r;
}

uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits) {
    pos &= 0xff;
    len &= 0xff;
    uint64_t r = b;
    for (uint32_t i = 0; i < len && pos + i < static_cast<uint32_t>(bits); ++i) {
        const uint64_t bit = uint64_t(1) << (pos + i);
        r = (r & ~bit) | (((a >> i) & 1) << (pos + i));
    }
    return r & width_mask(bits);
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
    const uint64_t x = (static_cast<uint64_t>(b) << 32) | a;
    auto byte = [&](int i) { return static_cast<uint32_t>((x >> (8 * (i & 7))) & 0xff); };
    uint32_t r = 0;
    if (mode == 0) {
        for (int i = 0; i < 4; ++i) {
            const uint32_t sel = (c >> (4 * i)) & 0xf;
            uint32_t v = byte(static_cast<int>(sel & 7));
            if (sel & 8) v = (v & 0x80) ? 0xff : 0;  // replicate the byte's sign
            r |= v << (8 * i);
        }
        return r;
    }
    const int s = static_cast<int>(c & 3);
    int idx[4];
    switch (mode) {
        case 1: for (int i = 0; i < 4; ++i) idx[i] = (s + i) & 7; break;                        // f4e: forward 4 extract
        case 2: for (int i = 0; i < 4; ++i) idx[i] = (s - i) & 7; break;                        // b4e: backward 4 extract
        case 3: for (int i = 0; i < 4; ++i) idx[i] = s; break;                                  // rc8: replicate 8
        case 4: for (int i = 0; i < 4; ++i) idx[i] = i <= s ? i : s; break;                     // ecl: edge clamp left
        case 5: for (int i = 0; i < 4; ++i) idx[i] = i >= s ? i : s; break;                     // ecr: edge clamp right
        default: for (int i = 0; i < 4; ++i) idx[i] = (s & 1) * 2 + (i & 1); break;              // rc16: replicate 16
    }
    for (int i = 0; i < 4; ++i) r |= byte(idx[i]) << (8 * i);
    return r;
}

bool compare_int(Cmp c, uint64_t a, uint64_t b, int bits, bool sgn) {
    const int64_t sa = sext(a, bits), sb = sext(b, bits);
    const uint64_t ua = a & width_mask(bits), ub = b & width_mask(bits);
    switch (c) {
        case Cmp::eq: return ua == ub;
        case Cmp::ne: return ua != ub;
        case Cmp::lt: return sgn ? sa < sb : ua < ub;
        case Cmp::le: return sgn ? sa <= sb : ua <= ub;
        case Cmp::gt: return sgn ? sa > sb : ua > ub;
        case Cmp::ge: return sgn ? sa >= sb : ua >= ub;
        case Cmp::lo: return ua < ub;
        case Cmp::ls: return ua <= ub;
        case Cmp::hi: return ua > ub;
        case Cmp::hs: return ua >= ub;
        default: return false;
    }
}

uint64_t combine(int bop, uint64_t r, uint64_t c) {
    switch (bop) {
        case 1: return r & c;
        case 2: return r | c;
        case 3: return r ^ c;
        default: return r;
    }
}

}  // namespace

bool compare_float(Cmp c, uint64_t a, uint64_t b, Ty t);  // alu_float.cpp
void run_float(const DInst& d, uint64_t* regs, uint32_t mask);
void run_convert(const DInst& d, uint64_t* regs, uint32_t mask);

void run_alu(const DInst& d, const DecodedProgram& p, uint64_t* regs, uint32_t mask, AluState& st) {
    Lanes L(d, regs);
    const int bits = ty_bits(d.type);
    const uint64_t wm = width_mask(bits);
    const bool sgn = ty_signed(d.type);
    switch (d.op) {
        case Opc::mov: L.each(mask, [&](int l) { L.d(l) = L.a(l); }); return;
        case Opc::mov_pack: {
            const auto& parts = p.lists.at(static_cast<size_t>(d.extra));
            const int w = bits / static_cast<int>(parts.size());
            L.each(mask, [&](int l) {
                uint64_t v = 0;
                for (size_t i = 0; i < parts.size(); ++i)
                    v |= (lanes_of_slot(regs, parts[i])[l] & width_mask(w)) << (w * static_cast<int>(i));
                L.d(l) = v;
            });
            return;
        }
        case Opc::mov_unpack: {
            const auto& parts = p.lists.at(static_cast<size_t>(d.extra));
            const int w = bits / static_cast<int>(parts.size());
            L.each(mask, [&](int l) {
                const uint64_t v = L.a(l);
                for (size_t i = 0; i < parts.size(); ++i)
                    lanes_of_slot(regs, parts[i])[l] = (v >> (w * static_cast<int>(i))) & width_mask(w);
            });
            return;
        }
        case Opc::add:
            L.each(mask, [&](int l) {
                if (d.mod & kModSat) {
                    const int64_t r = sext(L.a(l), 32) + sext(L.b(l), 32);
                    L.d(l) = static_cast<uint64_t>(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, r))) & wm;
                } else {
                    L.d(l) = (L.a(l) + L.b(l)) & wm;
                }
            });
            return;
        case Opc::sub:
            L.each(mask, [&](int l) {
                if (d.mod & kModSat) {
                    const int64_t r = sext(L.a(l), 32) - sext(L.b(l), 32);
                    L.d(l) = static_cast<uint64_t>(std::min<int64_t>(INT32_MAX, std::max<int64_t>(INT32_MIN, r))) & wm;
                } else {
                    L.d(l) = (L.a(l) - L.b(l)) & wm;
                }
            });
            return;
        case Opc::add_cc: case Opc::addc: case Opc::sub_cc: case Opc::subc:
            // CC.CF holds the carry of an add and the borrow of a subtract (PTX 9.7.1.x: subc
            // computes a - (b + CF)).
            L.each(mask, [&](int l) {
                const bool with_in = d.op == Opc::addc || d.op == Opc::subc;
                const bool sub = d.op == Opc::sub_cc || d.op == Opc::subc;
                const unsigned __int128 cin = with_in ? ((st.carry >> l) & 1) : 0;
                const unsigned __int128 a = L.a(l) & wm, b = L.b(l) & wm;
                bool out;
                uint64_t r;
                if (sub) {
                    r = static_cast<uint64_t>(a - b - cin) & wm;
                    out = a < b + cin;
                } else {
                    const unsigned __int128 sum = a + b + cin;
                    r = static_cast<uint64_t>(sum) & wm;
                    out = ((sum >> bits) & 1) != 0;
                }
                L.d(l) = r;
                if (!with_in || (d.mod & kModCc)) st.carry = (st.carry & ~(1u << l)) | (static_cast<uint32_t>(out) << l);
            });
            return;
        case Opc::mul_lo: L.each(mask, [&](int l) { L.d(l) = (L.a(l) * L.b(l)) & wm; }); return;
        case Opc::mul_hi:
            L.each(mask, [&](int l) {
                if (bits == 64) {
                    L.d(l) = static_cast<uint64_t>(mul128(L.a(l), L.b(l), sgn) >> 64);
                } else {
                    const int64_t r = sgn ? sext(L.a(l), bits) * sext(L.b(l), bits)
                                          : static_cast<int64_t>((L.a(l) & wm) * (L.b(l) & wm));
                    L.d(l) = (static_cast<uint64_t>(r) >> bits) & wm;
                }
            });
            return;
        case Opc::mul_wide:
            L.each(mask, [&](int l) {
                const uint64_t r = sgn ? static_cast<uint64_t>(sext(L.a(l), bits) * sext(L.b(l), bits))
                                       : (L.a(l) & wm) * (L.b(l) & wm);
                L.d(l) = r & width_mask(2 * bits);
            });
            return;
        case Opc::mad_lo: L.each(mask, [&](int l) { L.d(l) = (L.a(l) * L.b(l) + L.c(l)) & wm; }); return;
        case Opc::mad_hi:
            L.each(mask, [&](int l) {
                uint64_t hi;
                if (bits == 64) {
                    hi = static_cast<uint64_t>(mul128(L.a(l), L.b(l), sgn) >> 64);
                } else {
                    const int64_t r = sgn ? sext(L.a(l), bits) * sext(L.b(l), bits)
                                          : static_cast<int64_t>((L.a(l) & wm) * (L.b(l) & wm));
                    hi = static_cast<uint64_t>(r) >> bits;
                }
                L.d(l) = (hi + L.c(l)) & wm;
            });
            return;
        case Opc::mad_wide:
            L.each(mask, [&](int l) {
                const uint64_t r = sgn ? static_cast<uint64_t>(sext(L.a(l), bits) * sext(L.b(l), bits))
                                       : (L.a(l) & wm) * (L.b(l) & wm);
                L.d(l) = (r + L.c(l)) & width_mask(2 * bits);
            });
            return;
        case Opc::mad_cc: case Opc::madc:
            L.each(mask, [&](int l) {
                const uint64_t cin = d.op == Opc::madc ? ((st.carry >> l) & 1) : 0;
                const unsigned __int128 r = static_cast<unsigned __int128>((L.a(l) * L.b(l)) & wm) + (L.c(l) & wm) + cin;
                L.d(l) = static_cast<uint64_t>(r) & wm;
                if (d.op == Opc::mad_cc || (d.mod & kModCc)) {
                    const bool carry = ((r >> bits) & 1) != 0;
                    st.carry = (st.carry & ~(1u << l)) | (static_cast<uint32_t>(carry) << l);
                }
            });
            return;
        case Opc::mul24_lo: case Opc::mad24_lo:
            L.each(mask, [&](int l) {
                const int64_t a = sgn ? sext(L.a(l), 24) : static_cast<int64_t>(L.a(l) & 0xffffff);
                const int64_t b = sgn ? sext(L.b(l), 24) : static_cast<int64_t>(L.b(l) & 0xffffff);
                L.d(l) = (static_cast<uint64_t>(a * b) + (d.op == Opc::mad24_lo ? L.c(l) : 0)) & 0xffffffffull;
            });
            return;
        case Opc::div: case Opc::rem:
            L.each(mask, [&](int l) {
                const uint64_t ua = L.a(l) & wm, ub = L.b(l) & wm;
                uint64_t r;
                if (ub == 0) r = d.op == Opc::div ? wm : ua;  // what the GPU returns; undefined in PTX
                else if (sgn) {
                    const int64_t a = sext(ua, bits), b = sext(ub, bits);
                    r = (b == -1 && a == sext(uint64_t(1) << (bits - 1), bits))
                            ? (d.op == Opc::div ? static_cast<uint64_t>(a) : 0)
                            : static_cast<uint64_t>(d.op == Opc::div ? a / b : a % b);
                } else {
                    r = d.op == Opc::div ? ua / ub : ua % ub;
                }
                L.d(l) = r & wm;
            });
            return;
        case Opc::abs: L.each(mask, [&](int l) { const int64_t v = sext(L.a(l), bits); L.d(l) = static_cast<uint64_t>(v < 0 ? -v : v) & wm; }); return;
        case Opc::neg: L.each(mask, [&](int l) { L.d(l) = (0 - L.a(l)) & wm; }); return;
        case Opc::min: case Opc::max:
            L.each(mask, [&](int l) {
                const bool less = sgn ? sext(L.a(l), bits) < sext(L.b(l), bits) : (L.a(l) & wm) < (L.b(l) & wm);
                uint64_t r = (d.op == Opc::min) == less ? L.a(l) : L.b(l);
                if ((d.mod & kModRelu) && sext(r, bits) < 0) r = 0;
                L.d(l) = r & wm;
            });
            return;
        case Opc::popc: L.each(mask, [&](int l) { L.d(l) = static_cast<uint64_t>(__builtin_popcountll(L.a(l) & wm)); }); return;
        case Opc::clz:
            L.each(mask, [&](int l) {
                const uint64_t v = L.a(l) & wm;
                L.d(l) = v == 0 ? static_cast<uint64_t>(bits) : static_cast<uint64_t>(__builtin_clzll(v) - (64 - bits));
            });
            return;
        case Opc::bfind:
            L.each(mask, [&](int l) {
                uint64_t v = L.a(l) & wm;
                if (sgn && ((v >> (bits - 1)) & 1)) v = ~v & wm;
                uint64_t pos = 0xffffffffull;
                if (v != 0) pos = static_cast<uint64_t>(63 - __builtin_clzll(v));
                if (d.sub == 1 && pos != 0xffffffffull) pos = static_cast<uint64_t>(bits - 1) - pos;
                L.d(l) = pos;
            });
            return;
        case Opc::brev:
            L.each(mask, [&](int l) {
                uint64_t v = L.a(l), r = 0;
                for (int i = 0; i < bits; ++i) r |= ((v >> i) & 1) << (bits - 1 - i);
                L.d(l) = r;
            });
            return;
        case Opc::bfe: L.each(mask, [&](int l) { L.d(l) = bfe(L.a(l), static_cast<uint32_t>(L.b(l)), static_cast<uint32_t>(L.c(l)), bits, sgn); }); return;
        case Opc::bfi: L.each(mask, [&](int l) { L.d(l) = bfi(L.a(l), L.b(l), static_cast<uint32_t>(L.c(l)), static_cast<uint32_t>(L.e(l)), bits); }); return;
        case Opc::prmt: L.each(mask, [&](int l) { L.d(l) = prmt(static_cast<uint32_t>(L.a(l)), static_cast<uint32_t>(L.b(l)), static_cast<uint32_t>(L.c(l)), d.sub); }); return;
        case Opc::shl: L.each(mask, [&](int l) { const uint64_t n = L.b(l) & 0xffffffff; L.d(l) = n >= static_cast<uint64_t>(bits) ? 0 : (L.a(l) << n) & wm; }); return;
        case Opc::shr:
            L.each(mask, [&](int l) {
                const uint64_t n = L.b(l) & 0xffffffff;
                if (sgn) L.d(l) = static_cast<uint64_t>(sext(L.a(l), bits) >> (n >= static_cast<uint64_t>(bits) ? bits - 1 : n)) & wm;
                else L.d(l) = n >= static_cast<uint64_t>(bits) ? 0 : ((L.a(l) & wm) >> n);
            });
            return;
        case Opc::shf_l: case Opc::shf_r:
            L.each(mask, [&](int l) {
                uint64_t n = L.c(l) & 0xffffffff;
                n = (d.mod & kModWrap) ? (n & 31) : std::min<uint64_t>(n, 32);
                const uint64_t x = ((L.b(l) & 0xffffffff) << 32) | (L.a(l) & 0xffffffff);
                L.d(l) = d.op == Opc::shf_l ? ((n == 0 ? x : x << n) >> 32) & 0xffffffff : (x >> n) & 0xffffffff;
            });
            return;
        case Opc::and_: L.each(mask, [&](int l) { L.d(l) = (L.a(l) & L.b(l)) & (d.type == Ty::pred ? 1 : wm); }); return;
        case Opc::or_: L.each(mask, [&](int l) { L.d(l) = (L.a(l) | L.b(l)) & (d.type == Ty::pred ? 1 : wm); }); return;
        case Opc::xor_: L.each(mask, [&](int l) { L.d(l) = (L.a(l) ^ L.b(l)) & (d.type == Ty::pred ? 1 : wm); }); return;
        case Opc::not_: L.each(mask, [&](int l) { L.d(l) = d.type == Ty::pred ? (L.a(l) ^ 1) & 1 : ~L.a(l) & wm; }); return;
        case Opc::cnot: L.each(mask, [&](int l) { L.d(l) = (L.a(l) & wm) == 0 ? 1 : 0; }); return;
        case Opc::lop3:
            L.each(mask, [&](int l) {
                const uint64_t a = L.a(l), b = L.b(l), c = L.c(l), lut = L.e(l) & 0xff;
                uint64_t r = 0;
                for (int m = 0; m < 8; ++m) {
                    if (!((lut >> m) & 1)) continue;
                    r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);
                }
                L.d(l) = r & wm;
            });
            return;
        case Opc::setp: case Opc::set: {
            const Cmp c = static_cast<Cmp>((d.mod & kModCmpMask) >> kModCmpShift);
            const int bop = static_cast<int>((d.mod & kModBoolMask) >> kModBoolShift);
            const Ty t = d.type2;
            const bool fl = ty_float(t) || t == Ty::f16x2 || t == Ty::bf16x2;
            L.each(mask, [&](int l) {
                const bool r = fl ? compare_float(c, L.a(l), L.b(l), t) : compare_int(c, L.a(l), L.b(l), ty_bits(t), ty_signed(t));
                const uint64_t cv = d.nsrc > 2 ? L.c(l) & 1 : 0;
                if (d.op == Opc::setp) {
                    L.d(l) = combine(bop, r ? 1 : 0, cv);
                    if (d.ndst > 1) L.d2(l) = combine(bop, r ? 0 : 1, cv);
                } else {
                    const uint64_t v = combine(bop, r ? 1 : 0, cv);
                    // set: 0xffffffff / 0 for integer results, 1.0f / 0.0f for .f32.
                    L.d(l) = d.type == Ty::f32 ? (v ? 0x3f800000ull : 0) : (v ? width_mask(ty_bits(d.type)) : 0);
                }
            });
            return;
        }
        case Opc::selp: L.each(mask, [&](int l) { L.d(l) = (L.c(l) & 1) ? L.a(l) : L.b(l); }); return;
        case Opc::slct:
            L.each(mask, [&](int l) {
                bool ge;
                if (d.type2 == Ty::f32) {
                    float f;
                    const uint32_t b = static_cast<uint32_t>(L.c(l));
                    std::memcpy(&f, &b, 4);
                    ge = f >= 0.0f;
                } else {
                    ge = sext(L.c(l), 32) >= 0;
                }
                L.d(l) = ge ? L.a(l) : L.b(l);
            });
            return;
        case Opc::sad: L.each(mask, [&](int l) { const int64_t a = sgn ? sext(L.a(l), bits) : static_cast<int64_t>(L.a(l) & wm), b = sgn ? sext(L.b(l), bits) : static_cast<int64_t>(L.b(l) & wm); L.d(l) = (static_cast<uint64_t>(a > b ? a - b : b - a) + L.c(l)) & wm; }); return;
        case Opc::cvt: run_convert(d, regs, mask); return;
        case Opc::copysign: case Opc::testp:
        case Opc::fadd: case Opc::fsub: case Opc::fmul: case Opc::ffma: case Opc::fdiv: case Opc::frcp: case Opc::fsqrt:
        case Opc::frsqrt: case Opc::fex2: case Opc::flg2: case Opc::fsin: case Opc::fcos: case Opc::ftanh: case Opc::fmin:
        case Opc::fmax: case Opc::fabs: case Opc::fneg:
            run_float(d, regs, mask);
            return;
        default: throw std::logic_error(fmt::format("model: run_alu got opcode {}, which is not an ALU one", static_cast<int>(d.op)));
    }
}

}  // namespace tmasim::model::kernel
