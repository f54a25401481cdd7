#include "cli/diagnostic_lines.h"

#include <charconv>
#include <filesystem>

#include "cli/io/printable.h"
#include "cli/term_color.h"

namespace tmasim::cli {
namespace {

bool parse_int(const std::string& text, int& value) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end;
}

// A kernel op's source point, "tma.cu:17:10" as .loc names it (relative to the .cu's folder
// when the binding ran NVRTC there, so resolved against the kernel file when it is relative).
bool kernel_source_place(const Scenario& s, const std::string& source, SourceLoc& place) {
    const size_t col_colon = source.rfind(':');
    if (col_colon == std::string::npos || col_colon == 0) return false;
    const size_t line_colon = source.rfind(':', col_colon - 1);
    if (line_colon == std::string::npos || line_colon == 0) return false;
    SourceLoc loc;
    if (!parse_int(source.substr(line_colon + 1, col_colon - line_colon - 1), loc.line) ||
        !parse_int(source.substr(col_colon + 1), loc.col))
        return false;
    loc.file = source.substr(0, line_colon);
    if (s.kernel && std::filesystem::path(loc.file).is_relative()) {
        const std::filesystem::path kernel_file = s.kernel->resolved_source(s.file);
        if (kernel_file.filename() == loc.file) loc.file = kernel_file.string();
    }
    place = loc;
    return true;
}

}  // namespace

SourceLoc diagnostic_place(const Scenario& s, const Diagnostic& d) {
    if (const Op* op = d.op >= 0 ? s.find_op(d.op) : nullptr) {
        SourceLoc place;
        if (!op->source.empty() && kernel_source_place(s, op->source, place)) return place;
        if (op->loc.line > 0) return op->loc;
    }
    if (const auto it = d.detail.find("barrier"); it != d.detail.end()) {
        const std::string name = it->second.substr(0, it->second.find('['));  // "full[1]" -> "full"
        if (const BarrierDecl* b = s.find_barrier(name); b && b->loc.line > 0) return b->loc;
    }
    if (s.kernel && s.kernel->source_loc.line > 0) return s.kernel->source_loc;
    if (s.expect.loc.line > 0) return s.expect.loc;
    return SourceLoc{s.file, 1, 1};
}

std::string diagnostic_headline(const Scenario& s, const DiagnosticGroup& g, bool color) {
    const Diagnostic& d = g.first;
    // The place, rule and message may quote the user's text: made printable before the
    // colour's own escape codes go in.
    std::string rest = d.rule.empty() ? "" : d.rule + ": ";
    rest += d.message;
    if (g.instances > 1) rest += " [" + group_where(g) + "]";
    return printable_line(diagnostic_place(s, d).str()) + ": " + severity_word(to_string(d.outcome), color) + ": " +
           printable_line(rest);
}

}  // namespace tmasim::cli
