#include "cli/option_values.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tmasim::cli {

uint64_t parse_u64_option(const std::string& option, const std::string& text) {
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    // from_chars takes no sign, no space and no base prefix, and reports overflow.
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end)
        throw std::invalid_argument(option + " " + text + ": allowed: an integer 0.." +
                                    std::to_string(std::numeric_limits<uint64_t>::max()));
    return value;
}

void require_finite_non_negative(const std::string& option, const std::string& text, double value) {
    if (!std::isfinite(value) || value < 0)
        throw std::invalid_argument(option + " " + text + ": allowed: a finite number >= 0");
}

}  // namespace tmasim::cli
