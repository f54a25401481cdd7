#include "model/kernel/decoded_program.h"

namespace tmasim::model::kernel {

int ty_bits(Ty t) {
    switch (t) {
        case Ty::pred: return 1;
        case Ty::b8: case Ty::u8: case Ty::s8: case Ty::e4m3: case Ty::e5m2: return 8;
        case Ty::b16: case Ty::u16: case Ty::s16: case Ty::f16: case Ty::bf16: case Ty::e4m3x2: case Ty::e5m2x2: return 16;
        case Ty::b32: case Ty::u32: case Ty::s32: case Ty::f32: case Ty::f16x2: case Ty::bf16x2: case Ty::tf32: return 32;
        case Ty::b64: case Ty::u64: case Ty::s64: case Ty::f64: return 64;
        case Ty::b128: return 128;
        case Ty::none: return 0;
    }
    return 0;
}

bool ty_signed(Ty t) { return t == Ty::s8 || t == Ty::s16 || t == Ty::s32 || t == Ty::s64; }

bool ty_float(Ty t) { return t == Ty::f16 || t == Ty::bf16 || t == Ty::f32 || t == Ty::f64; }

Ty parse_ty(const std::string& text) {
    const std::string s = !text.empty() && text[0] == '.' ? text.substr(1) : text;
    static const std::pair<const char*, Ty> table[] = {
        {"pred", Ty::pred}, {"b8", Ty::b8},     {"b16", Ty::b16},     {"b32", Ty::b32},   {"b64", Ty::b64},
        {"b128", Ty::b128}, {"u8", Ty::u8},     {"u16", Ty::u16},     {"u32", Ty::u32},   {"u64", Ty::u64},
        {"s8", Ty::s8},     {"s16", Ty::s16},   {"s32", Ty::s32},     {"s64", Ty::s64},   {"f16", Ty::f16},
        {"f16x2", Ty::f16x2}, {"bf16", Ty::bf16}, {"bf16x2", Ty::bf16x2}, {"f32", Ty::f32}, {"f64", Ty::f64},
        {"e4m3", Ty::e4m3}, {"e5m2", Ty::e5m2}, {"tf32", Ty::tf32},   {"e4m3x2", Ty::e4m3x2}, {"e5m2x2", Ty::e5m2x2}};
    for (const auto& [n, t] : table)
        if (s == n) return t;
    return Ty::none;
}

}  // namespace tmasim::model::kernel
