#pragma once
// Option values checked after CLI11 has parsed them, where its own conversions let a value
// through changed: an unsigned option takes "-1" as 2^64-1 and saturates past 2^64, and a
// number check lets "nan" pass (every comparison with NaN is false).
#include <cstdint>
#include <string>

namespace tmasim::cli {

// `text` as an integer 0..2^64-1, written in decimal digits only; throws
// std::invalid_argument ("--seed -1: allowed: an integer 0..18446744073709551615").
uint64_t parse_u64_option(const std::string& option, const std::string& text);

// Throws std::invalid_argument naming `option` and `text` (the value as the user wrote it)
// unless `value` is finite and at least 0.
void require_finite_non_negative(const std::string& option, const std::string& text, double value);

}  // namespace tmasim::cli
