#include "cli/io/printable.h"

#include <fmt/format.h>

namespace tmasim::cli {

std::string printable_line(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n' || c == '\r') out += ' ';
        else if (c < 0x20 && c != '\t') out += fmt::format("\\x{:02x}", c);
        else if (c == 0x7f) out += "\\x7f";
        else out += ch;
    }
    return out;
}

}  // namespace tmasim::cli
