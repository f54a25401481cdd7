#pragma once
// How messages name an op: "op #5 mbarrier.wait (wait)", the label in parentheses.
#include <string>

#include <fmt/format.h>

#include "scenarios/ir.h"

namespace tmasim::model {

inline std::string op_title(const Op& op) {
    std::string s = fmt::format("op #{} {}", op.id, to_string(op.kind));
    if (!op.label.empty()) s += " (" + op.label + ")";
    return s;
}

}  // namespace tmasim::model
