#include "cli/term_color.h"

#include <cstdlib>

#include <unistd.h>

namespace tmasim::cli {

ColorMode parse_color_mode(const std::string& text) {
    if (text == "always") return ColorMode::always;
    if (text == "never") return ColorMode::never;
    return ColorMode::automatic;
}

bool stdout_wants_color(ColorMode mode) {
    if (mode != ColorMode::automatic) return mode == ColorMode::always;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;  // no-color.org: set and not empty
    return isatty(STDOUT_FILENO) == 1;
}

std::string severity_word(const std::string& word, bool color) {
    if (!color) return word;
    // Bold, and red for what stops a kernel (fault, hang, an error) or magenta for a hazard,
    // the colours compilers give errors and warnings.
    const char* code = word == "hazard" ? "\033[1;35m" : "\033[1;31m";
    return code + word + "\033[0m";
}

}  // namespace tmasim::cli
