// cvt: integer widths (with .sat), int <-> float with the instruction's rounding, float <->
// float (f64, f32, f16, bf16, tf32, and the fp8 pairs e4m3x2 / e5m2x2 that feed wgmma), and the
// packed forms cvt.rn.f16x2.f32 d, a, b (a in the upper half). PTX 9.7.9.21.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "model/kernel/alu.h"
#include "model/kernel/alu_lanes.h"
#include "scenarios/values.h"

namespace tmasim::model::kernel {
namespace {

uint64_t width_mask(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

double float_value(uint64_t bits, Ty t) {
    switch (t) {
        case Ty::f64: {
            double d;
            std::memcpy(&d, &bits, 8);
            return d;
        }
        case Ty::f16: return f16_bits_to_float(static_cast<uint16_t>(bits));
        case Ty::bf16: return bf16_bits_to_float(static_cast<uint16_t>(bits));
        default: {
            float f;
            const uint32_t u = static_cast<uint32_t>(bits);
            std::memcpy(&f, &u, 4);
            return f;
        }
    }
}

double round_integral(double v, Round r) {
    switch (r) {
        case Round::rzi: case Round::rz: return std::trunc(v);
        case Round::rmi: case Round::rm: return std::floor(v);
        case Round::rpi: case Round::rp: return std::ceil(v);
        default: return std::nearbyint(v);  // rni / rn: to nearest even (the default rounding mode)
    }
}

// One fp8 value (e4m3: bias 7, 3 mantissa bits, no infinity, max 448; e5m2: bias 15, 2 bits,
// max 57344), rounded to nearest even from an exact double.
uint8_t to_fp8(double v, bool e4m3, bool satfinite) {
    const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, emin = 1 - bias;
    const double maxv = e4m3 ? 448.0 : 57344.0;
    const uint8_t sign = std::signbit(v) ? 0x80 : 0;
    if (std::isnan(v)) return sign | 0x7f;
    double a = std::fabs(v);
    auto overflow = [&]() -> uint8_t {
        if (satfinite) return sign | (e4m3 ? 0x7e : 0x7b);
        return sign | (e4m3 ? 0x7f : 0x7c);
    };
    if (std::isinf(a)) return overflow();
    if (a == 0) return sign;
    int exp = std::max(static_cast<int>(std::floor(std::log2(a))), emin);
    double q = std::nearbyint(std::ldexp(a, mbits - exp));
    if (q >= std::ldexp(1.0, mbits + 1)) {
        ++exp;
        q = std::ldexp(1.0, mbits);
    }
    if (std::ldexp(q, exp - mbits) > maxv) return overflow();
    const int iq = static_cast<int>(q);
    if (iq < (1 << mbits)) return static_cast<uint8_t>(sign | iq);  // subnormal (or zero)
    return static_cast<uint8_t>(sign | ((exp + bias) << mbits) | (iq - (1 << mbits)));
}

double from_fp8(uint8_t b, bool e4m3) {
    const int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    const double sign = (b & 0x80) ? -1.0 : 1.0;
    const int e = (b & 0x7f) >> mbits, m = b & ((1 << mbits) - 1);
    if (e4m3 && (b & 0x7f) == 0x7f) return std::nan("");
    if (!e4m3 && e == 31) return m ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    if (e == 0) return sign * std::ldexp(m, 1 - bias - mbits);
    return sign * std::ldexp((1 << mbits) + m, e - bias - mbits);
}

}  // namespace

float ty_to_float(uint64_t bits, Ty t) {
    if (t == Ty::e4m3 || t == Ty::e5m2) return static_cast<float>(from_fp8(static_cast<uint8_t>(bits), t == Ty::e4m3));
    return static_cast<float>(float_value(bits, t));
}

uint64_t float_to_ty(float f, Ty t) {
    switch (t) {
        case Ty::f16: return float_to_f16_bits(f);
        case Ty::bf16: return float_to_bf16_bits(f);
        case Ty::e4m3: return to_fp8(f, true, false);
        case Ty::e5m2: return to_fp8(f, false, false);
        default: {
            uint32_t u;
            std::memcpy(&u, &f, 4);
            return u;
        }
    }
}

uint64_t convert_value(uint64_t bits, Ty from, Ty to, Round r, bool sat, bool ftz) {
    const bool from_float = ty_float(from), to_float = ty_float(to) || to == Ty::tf32;
    const int fb = ty_bits(from), tb = ty_bits(to);
    if (!from_float && !to_float) {
        // Integer to integer: the source's value, saturated to the destination's range with .sat.
        const bool fs = ty_signed(from), ts = ty_signed(to);
        __int128 v = fs ? static_cast<__int128>(static_cast<int64_t>(bits << (64 - fb)) >> (64 - fb))
                        : static_cast<__int128>(bits & width_mask(fb));
        if (sat) {
            const __int128 lo = ts ? -(static_cast<__int128>(1) << (tb - 1)) : 0;
            const __int128 hi = ts ? (static_cast<__int128>(1) << (tb - 1)) - 1 : (static_cast<__int128>(1) << tb) - 1;
            v = std::min(hi, std::max(lo, v));
        }
        return static_cast<uint64_t>(v) & width_mask(tb);
    }
    if (from_float && !to_float) {
        // Float to integer: rounded as asked, clamped to the range, NaN to 0 (PTX's cvt saturates).
        double v = float_value(bits, from);
        if (ftz && from == Ty::f32 && std::fpclassify(v) == FP_SUBNORMAL) v = 0;
        if (std::isnan(v)) return 0;
        v = round_integral(v, r);
        const bool ts = ty_signed(to);
        const long double lo = ts ? -std::ldexp(1.0L, tb - 1) : 0.0L;
        const long double hi = ts ? std::ldexp(1.0L, tb - 1) - 1 : std::ldexp(1.0L, tb) - 1;
        long double c = std::min(hi, std::max(lo, static_cast<long double>(v)));
        if (ts) return static_cast<uint64_t>(static_cast<int64_t>(c)) & width_mask(tb);
        return static_cast<uint64_t>(c) & width_mask(tb);
    }
    double v;
    if (from_float) {
        v = float_value(bits, from);
        if (ftz && from == Ty::f32 && std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(0.0, v);
    } else {
        v = ty_signed(from) ? static_cast<double>(static_cast<int64_t>(bits << (64 - fb)) >> (64 - fb))
                            : static_cast<double>(bits & width_mask(fb));
        // A 64-bit integer may not fit a double exactly: convert it to the target directly.
        if (fb == 64 && to == Ty::f32) {
            const int mode = r == Round::rz ? FE_TOWARDZERO : r == Round::rm ? FE_DOWNWARD : r == Round::rp ? FE_UPWARD : FE_TONEAREST;
            const int old = std::fegetround();
            std::fesetround(mode);
            volatile float f = ty_signed(from) ? static_cast<float>(static_cast<int64_t>(bits)) : static_cast<float>(bits);
            std::fesetround(old);
            return float_to_ty(f, Ty::f32);
        }
    }
    if (r == Round::rni || r == Round::rzi || r == Round::rmi || r == Round::rpi) v = round_integral(v, r);
    if (sat && !std::isnan(v)) v = std::min(1.0, std::max(0.0, v));
    if (sat && std::isnan(v)) v = 0;
    switch (to) {
        case Ty::f64: {
            uint64_t u;
            std::memcpy(&u, &v, 8);
            return u;
        }
        case Ty::f32: {
            const int mode = r == Round::rz ? FE_TOWARDZERO : r == Round::rm ? FE_DOWNWARD : r == Round::rp ? FE_UPWARD : FE_TONEAREST;
            const int old = mode == FE_TONEAREST ? 0 : std::fegetround();
            if (mode != FE_TONEAREST) std::fesetround(mode);
            volatile float f = static_cast<float>(v);
            if (mode != FE_TONEAREST) std::fesetround(old);
            float out = f;
            if (ftz && std::fpclassify(out) == FP_SUBNORMAL) out = std::copysign(0.0f, out);
            return float_to_ty(out, Ty::f32);
        }
        case Ty::tf32: {
            // cvt.rna.tf32.f32: 10 mantissa bits kept, the rest rounded to nearest, ties away.
            const float f = static_cast<float>(v);
            uint32_t u;
            std::memcpy(&u, &f, 4);
            if ((u & 0x7fffffffu) <= 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
            return u;
        }
        default: return float_to_ty(static_cast<float>(v), to);  // f16 / bf16: from an exact float
    }
}

void run_convert(const DInst& d, uint64_t* regs, uint32_t mask) {
    Lanes L(d, regs);
    const Round r = static_cast<Round>((d.mod & kModRoundMask) >> kModRoundShift);
    const bool sat = d.mod & kModSat, ftz = d.mod & kModFtz;
    const Ty to = d.type, from = d.type2;
    if (to == Ty::f16x2 || to == Ty::bf16x2 || to == Ty::e4m3x2 || to == Ty::e5m2x2) {
        if (from == Ty::e4m3x2 || from == Ty::e5m2x2) {
            // cvt.rn.f16x2.e4m3x2 d, a: each fp8 of a to an f16, exactly; the low byte to the low half.
            L.each(mask, [&](int l) {
                const bool e4 = from == Ty::e4m3x2;
                const uint64_t lo = float_to_f16_bits(static_cast<float>(from_fp8(static_cast<uint8_t>(L.a(l)), e4)));
                const uint64_t hi = float_to_f16_bits(static_cast<float>(from_fp8(static_cast<uint8_t>(L.a(l) >> 8), e4)));
                L.d(l) = lo | (hi << 16);
            });
            return;
        }
        // d = {cvt(a), cvt(b)}: a in the upper half (PTX 9.7.9.21).
        const bool fp8 = to == Ty::e4m3x2 || to == Ty::e5m2x2;
        const int w = fp8 ? 8 : 16;
        L.each(mask, [&](int l) {
            auto one = [&](uint64_t v) -> uint64_t {
                const double x = float_value(v, from);
                if (fp8) return to_fp8(x, to == Ty::e4m3x2, sat);
                double y = x;
                if (d.mod & kModRelu) y = std::isnan(y) ? y : std::max(0.0, y);
                return float_to_ty(static_cast<float>(y), to == Ty::f16x2 ? Ty::f16 : Ty::bf16);
            };
            L.d(l) = (one(L.a(l)) << w) | one(L.b(l));
        });
        return;
    }
    L.each(mask, [&](int l) {
        const uint64_t v = convert_value(L.a(l), from, to, r, sat, ftz);
        // A signed destination narrower than its register is sign-extended into it (cvt.s32.s8
        // holds -1 as 0xffffffff), as the 32-bit register the PTX writes holds it.
        L.d(l) = v;
    });
}

}  // namespace tmasim::model::kernel
