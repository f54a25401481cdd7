#include "scenarios/trace_level.h"

#include "scenarios/op_table.h"

namespace tmasim {

const char* to_string(TraceLevel level) {
    switch (level) {
    case TraceLevel::all: return "all";
    case TraceLevel::waits: return "waits";
    case TraceLevel::none: return "none";
    }
    return "all";
}

std::optional<TraceLevel> parse_trace_level(const std::string& text) {
    if (text == "all") return TraceLevel::all;
    if (text == "waits") return TraceLevel::waits;
    if (text == "none") return TraceLevel::none;
    return std::nullopt;
}

// The op table's wait flag: the ops that may block the warp (mbarrier.wait, the syncs and
// barriers, every wait_group).
bool is_waiting_op(const Op& op) { return op_has(op.kind, kWait); }

bool op_traced(const Op& op, TraceLevel level) {
    if (op.kind == OpKind::loop) return false;
    if (op.trace) return *op.trace;
    switch (level) {
    case TraceLevel::all: return true;
    case TraceLevel::waits: return is_waiting_op(op);
    case TraceLevel::none: return false;
    }
    return true;
}

}  // namespace tmasim
