#include "ptx/rewrite.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::ptx {

std::string apply_edits(const std::string& text, std::vector<TextEdit> edits) {
    size_t inserted = 0;
    for (const TextEdit& e : edits) {
        if (e.offset > text.size())
            throw std::out_of_range(fmt::format("text edit at offset {}: past the end of the {}-byte text", e.offset, text.size()));
        inserted += e.text.size();
    }
    // Stable: two edits at one offset go in in the order they were given (a clock read
    // before its store, say).
    std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) { return a.offset < b.offset; });
    std::string out;
    out.reserve(text.size() + inserted);
    size_t copied = 0;
    for (const TextEdit& e : edits) {
        out.append(text, copied, e.offset - copied);
        out += e.text;
        copied = e.offset;
    }
    out.append(text, copied, std::string::npos);
    return out;
}

}  // namespace tmasim::ptx
