// PTX number literals (PTX ISA section 4.5.1): integers in decimal, 0x hex, 0b binary and
// 0-prefixed octal, each with an optional U; float bits as 0fXXXXXXXX (f32) and
// 0dXXXXXXXXXXXXXXXX (f64); decimal floats (1.5, 1e-3), which PTX reads as f64.
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

// Digits of `base` into `out`; "" or why not.
std::string read_digits(std::string_view whole, std::string_view digits, unsigned base, uint64_t& out) {
    if (digits.empty()) return fmt::format("'{}' has no digits after its prefix", whole);
    uint64_t v = 0;
    for (char c : digits) {
        unsigned d = unsigned(digit_value(c));
        if (d >= base) {
            if (base == 8) return fmt::format("'{}' is not an octal literal (a leading 0 means octal: digits 0-7)", whole);
            return fmt::format("'{}' is not a number: '{}' is not a base-{} digit", whole, c, base);
        }
        if (v > (UINT64_MAX - d) / base) return fmt::format("'{}' does not fit 64 bits", whole);
        v = v * base + d;
    }
    out = v;
    return "";
}

std::string read_float_bits(std::string_view text, size_t hex_digits, uint64_t& out) {
    std::string_view digits = text.substr(2);
    if (digits.size() != hex_digits)
        return fmt::format("'{}' is not a float literal: '{}' takes exactly {} hex digits", text, text.substr(0, 2), hex_digits);
    return read_digits(text, digits, 16, out);
}

}  // namespace

std::string read_number(std::string_view text, NumberValue& out) {
    out = NumberValue{};
    if (text.empty() || text[0] < '0' || text[0] > '9') return fmt::format("'{}' is not a number", text);
    // Most numbers are short decimals (`.loc 1 17 10`, offsets, counts): read them directly.
    if (text.size() <= 18 && (text[0] != '0' || text.size() == 1)) {
        uint64_t v = 0;
        size_t i = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') v = v * 10 + uint64_t(text[i++] - '0');
        if (i == text.size()) {
            out.bits = v;
            return {};
        }
    }
    char prefix = text.size() > 1 && text[0] == '0' ? text[1] : '\0';
    if (prefix == 'f' || prefix == 'F') {
        out.form = NumberValue::Form::f32_bits;
        return read_float_bits(text, 8, out.bits);
    }
    if (prefix == 'd' || prefix == 'D') {
        out.form = NumberValue::Form::f64_bits;
        return read_float_bits(text, 16, out.bits);
    }
    bool hex = prefix == 'x' || prefix == 'X';
    if (!hex && text.find_first_of(".eE") != std::string_view::npos) {
        out.form = NumberValue::Form::decimal;
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
        if (ec == std::errc::result_out_of_range) return fmt::format("'{}' is out of the range of a double", text);
        if (ec != std::errc() || end != text.data() + text.size()) return fmt::format("'{}' is not a decimal float", text);
        out.value = v;
        return "";
    }
    out.form = NumberValue::Form::integer;
    std::string_view body = text;
    if (body.back() == 'U' || body.back() == 'u') body.remove_suffix(1);
    if (hex) return read_digits(text, body.substr(2), 16, out.bits);
    if (prefix == 'b' || prefix == 'B') return read_digits(text, body.substr(2), 2, out.bits);
    if (body.size() > 1 && body[0] == '0') return read_digits(text, body.substr(1), 8, out.bits);
    return read_digits(text, body, 10, out.bits);
}

NumberValue negate(NumberValue v) {
    switch (v.form) {
    case NumberValue::Form::integer: v.bits = uint64_t(0) - v.bits; break;
    case NumberValue::Form::f32_bits: v.bits ^= uint64_t(1) << 31; break;
    case NumberValue::Form::f64_bits: v.bits ^= uint64_t(1) << 63; break;
    case NumberValue::Form::decimal: v.value = -v.value; break;
    }
    return v;
}

bool is_identifier(std::string_view name) {
    if (name.empty()) return false;
    auto follow = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
    };
    char c = name[0];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && c != '_' && c != '$' && c != '%') return false;
    if (!letter && name.size() == 1) return false;
    for (size_t i = 1; i < name.size(); ++i)
        if (!follow(name[i])) return false;
    return true;
}

}  // namespace tmasim::ptx
