#pragma once
// Colour on a terminal only (https://no-color.org): `--color auto` (the default) colours
// the severity words of diagnostics when standard output is a terminal and NO_COLOR is unset
// or empty; `always` and `never` force it either way (a command-line choice outranks
// NO_COLOR, as no-color.org asks). Piped output, a file, CI logs: no escape codes.
#include <string>

namespace tmasim::cli {

enum class ColorMode { automatic, always, never };

// "auto", "always", "never" (CLI11 has checked the spelling).
ColorMode parse_color_mode(const std::string& text);

// Whether this process colours its standard output under `mode`.
bool stdout_wants_color(ColorMode mode);

// The severity word of a diagnostic ("hazard", "hang", "fault", "error"), in its colour
// when `color`; unchanged otherwise.
std::string severity_word(const std::string& word, bool color);

}  // namespace tmasim::cli
