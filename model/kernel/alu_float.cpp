// Float instructions: f32 and f64 in IEEE arithmetic with the instruction's rounding; f16 and
// bf16 (scalars and x2 pairs) computed in double, then rounded to the type once (exact for
// add and mul: a double holds every sum and product of two of them).
#include <cfenv>
#include <cmath>
#include <cstring>

#include "model/kernel/alu.h"
#include "model/kernel/alu_lanes.h"
#include "scenarios/values.h"

namespace tmasim::model::kernel {
namespace {

float as_f32(uint64_t b) {
    float f;
    const uint32_t u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    return f;
}
uint64_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
double as_f64(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}
uint64_t f64_bits(double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
}

float ftz(float f) { return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

// Half of a packed pair, or the scalar, as double; and back, rounded to nearest even.
double half_value(uint64_t bits, Ty t, int half) {
    const uint16_t h = static_cast<uint16_t>(bits >> (16 * half));
    return (t == Ty::bf16 || t == Ty::bf16x2) ? bf16_bits_to_float(h) : f16_bits_to_float(h);
}
// Rounded once to the half type: the double is first narrowed to float by round-to-odd (a
// float's 24 bits keep the sticky information the 11- or 8-bit rounding needs), then rounded
// to nearest even. Narrowing by nearest would round twice and could land on a false tie.
float round_to_odd(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) == v || std::isnan(v)) return f;
    if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u |= 1;
    std::memcpy(&f, &u, 4);
    return f;
}
uint64_t half_bits(double v, Ty t) {
    const float f = round_to_odd(v);
    return (t == Ty::bf16 || t == Ty::bf16x2) ? float_to_bf16_bits(f) : float_to_f16_bits(f);
}

// The arithmetic both widths share, in the width's own type (an f32 op rounds as f32 does):
// false for an opcode that is not one of them.
template <class T>
bool arith(Opc op, T a, T b, T c, T& out) {
    switch (op) {
        case Opc::fadd: out = a + b; return true;
        case Opc::fsub: out = a - b; return true;
        case Opc::fmul: out = a * b; return true;
        case Opc::ffma: out = std::fma(a, b, c); return true;
        case Opc::fdiv: out = a / b; return true;
        case Opc::frcp: out = T(1) / a; return true;
        case Opc::fsqrt: out = std::sqrt(a); return true;
        case Opc::frsqrt: out = T(1) / std::sqrt(a); return true;
        case Opc::fex2: out = std::exp2(a); return true;
        case Opc::flg2: out = std::log2(a); return true;
        case Opc::fsin: out = std::sin(a); return true;
        case Opc::fcos: out = std::cos(a); return true;
        case Opc::ftanh: out = std::tanh(a); return true;
        case Opc::fabs: out = std::fabs(a); return true;
        case Opc::fneg: out = -a; return true;
        default: return false;
    }
}

double apply(Opc op, double a, double b, double c, bool& ok) {
    double r = 0;
    ok = arith(op, a, b, c, r);
    return r;
}

double minmax(Opc op, double a, double b, bool nan_wins) {
    if (std::isnan(a) || std::isnan(b)) {
        if (nan_wins || (std::isnan(a) && std::isnan(b))) return std::nan("");
        return std::isnan(a) ? b : a;
    }
    if (a == b) return op == Opc::fmin ? (std::signbit(a) ? a : b) : (std::signbit(a) ? b : a);
    return op == Opc::fmin ? std::min(a, b) : std::max(a, b);
}

float f32_op(const DInst& d, float a, float b, float c) {
    float r;
    if (arith(d.op, a, b, c, r)) return r;
    return static_cast<float>(minmax(d.op, a, b, d.mod & kModNan));
}

int fe_mode(Round r) {
    switch (r) {
        case Round::rz: return FE_TOWARDZERO;
        case Round::rm: return FE_DOWNWARD;
        case Round::rp: return FE_UPWARD;
        default: return FE_TONEAREST;
    }
}

}  // namespace

bool compare_float(Cmp c, uint64_t ab, uint64_t bb, Ty t) {
    double a, b;
    if (t == Ty::f32) a = as_f32(ab), b = as_f32(bb);
    else if (t == Ty::f64) a = as_f64(ab), b = as_f64(bb);
    else a = half_value(ab, t, 0), b = half_value(bb, t, 0);
    const bool un = std::isnan(a) || std::isnan(b);
    switch (c) {
        case Cmp::eq: return !un && a == b;
        case Cmp::ne: return !un && a != b;
        case Cmp::lt: return !un && a < b;
        case Cmp::le: return !un && a <= b;
        case Cmp::gt: return !un && a > b;
        case Cmp::ge: return !un && a >= b;
        case Cmp::equ: return un || a == b;
        case Cmp::neu: return un || a != b;
        case Cmp::ltu: return un || a < b;
        case Cmp::leu: return un || a <= b;
        case Cmp::gtu: return un || a > b;
        case Cmp::geu: return un || a >= b;
        case Cmp::num: return !un;
        case Cmp::nan: return un;
        default: return false;
    }
}

void run_float(const DInst& d, uint64_t* regs, uint32_t mask) {
    Lanes L(d, regs);
    const Ty t = d.type;
    const Round r = static_cast<Round>((d.mod & kModRoundMask) >> kModRoundShift);
    if (d.op == Opc::copysign) {
        const uint64_t sign = t == Ty::f64 ? uint64_t(1) << 63 : uint64_t(1) << 31;
        L.each(mask, [&](int l) { L.d(l) = (L.b(l) & ~sign) | (L.a(l) & sign); });
        return;
    }
    if (d.op == Opc::testp) {
        L.each(mask, [&](int l) {
            const double v = t == Ty::f64 ? as_f64(L.a(l)) : as_f32(L.a(l));
            const int cls = std::fpclassify(v);
            bool res = false;
            switch (d.sub) {
                case 0: res = std::isfinite(v); break;
                case 1: res = std::isinf(v); break;
                case 2: res = !std::isnan(v); break;
                case 3: res = std::isnan(v); break;
                case 4: res = cls == FP_NORMAL; break;
                default: res = cls == FP_SUBNORMAL; break;
            }
            L.d(l) = res ? 1 : 0;
        });
        return;
    }
    if (t == Ty::f32) {
        const bool fz = d.mod & kModFtz, sat = d.mod & kModSat;
        const bool rounded = r == Round::rz || r == Round::rm || r == Round::rp;
        const int old = rounded ? std::fegetround() : 0;
        if (rounded) std::fesetround(fe_mode(r));
        L.each(mask, [&](int l) {
            float a = as_f32(L.a(l)), b = d.nsrc > 1 ? as_f32(L.b(l)) : 0.0f, c = d.nsrc > 2 ? as_f32(L.c(l)) : 0.0f;
            if (fz) a = ftz(a), b = ftz(b), c = ftz(c);
            volatile float v = f32_op(d, a, b, c);
            float out = v;
            if (fz) out = ftz(out);
            if (sat) out = std::isnan(out) ? 0.0f : std::min(1.0f, std::max(0.0f, out));
            L.d(l) = f32_bits(out);
        });
        if (rounded) std::fesetround(old);
        return;
    }
    if (t == Ty::f64) {
        L.each(mask, [&](int l) {
            const double a = as_f64(L.a(l)), b = d.nsrc > 1 ? as_f64(L.b(l)) : 0.0, c = d.nsrc > 2 ? as_f64(L.c(l)) : 0.0;
            bool ok = false;
            double v = apply(d.op, a, b, c, ok);
            if (!ok) v = minmax(d.op, a, b, d.mod & kModNan);
            L.d(l) = f64_bits(v);
        });
        return;
    }
    // f16, bf16, f16x2, bf16x2
    const int halves = (t == Ty::f16x2 || t == Ty::bf16x2) ? 2 : 1;
    L.each(mask, [&](int l) {
        uint64_t out = 0;
        for (int h = 0; h < halves; ++h) {
            const double a = half_value(L.a(l), t, h), b = d.nsrc > 1 ? half_value(L.b(l), t, h) : 0.0,
                         c = d.nsrc > 2 ? half_value(L.c(l), t, h) : 0.0;
            uint64_t bits;
            if (d.op == Opc::fabs || d.op == Opc::fneg) {
                const uint64_t raw = (L.a(l) >> (16 * h)) & 0xffff;
                bits = d.op == Opc::fabs ? raw & 0x7fff : raw ^ 0x8000;
            } else {
                bool ok = false;
                double v = apply(d.op, a, b, c, ok);
                if (!ok) v = minmax(d.op, a, b, d.mod & kModNan);
                if (d.mod & kModSat) v = std::isnan(v) ? 0.0 : std::min(1.0, std::max(0.0, v));
                if ((d.mod & kModRelu) && !(v > 0)) v = std::isnan(v) ? v : 0.0;
                bits = half_bits(v, t) & 0xffff;
            }
            out |= bits << (16 * h);
        }
        L.d(l) = out;
    });
}

}  // namespace tmasim::model::kernel
