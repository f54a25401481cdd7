#pragma once
// How messages name an op: "op #5 mbarrier.wait (wait)", the label in parentheses.
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "scenarios/ir.h"

namespace tmasim::model {

// "tile bytes 0..255 (elements 0..63)": byte offsets within the buffer, with the elements of
// `element_size` bytes they cover, so a range is not mistaken for element indices.
inline std::string byte_range_text(const std::string& buffer, int64_t first, int64_t last, int64_t element_size) {
    std::string s = fmt::format("{} bytes {}..{}", buffer, first, last);
    if (element_size > 1) s += fmt::format(" (elements {}..{})", first / element_size, last / element_size);
    return s;
}

inline std::string op_title(const Op& op) {
    std::string s = fmt::format("op #{} {}", op.id, to_string(op.kind));
    // A kernel's instruction: the PTX it is, its PTX line and its source line.
    if (!op.ptx_opcode.empty())
        return s + fmt::format(" `{}` ({}{}{})", op.ptx_opcode, op.label, op.source.empty() ? "" : ", ", op.source);
    if (!op.label.empty()) s += " (" + op.label + ")";
    return s;
}

}  // namespace tmasim::model
