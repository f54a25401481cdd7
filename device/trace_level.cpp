#include "device/trace_level.h"

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

bool is_waiting_op(const Op& op) {
    switch (op.kind) {
    case OpKind::mbarrier_wait:
    case OpKind::sync:
    case OpKind::bar_sync:
    case OpKind::bulk_wait_group:
    case OpKind::bulk_wait_group_read:
    case OpKind::cp_async_wait_group:
    case OpKind::cp_async_wait_all:
    case OpKind::wgmma_wait_group:
    case OpKind::cluster_wait:
    case OpKind::cluster_sync:
        return true;
    default:
        return false;
    }
}

bool op_traced(const Op& op, TraceLevel level) {
    if (op.kind == OpKind::loop) return false;
    switch (level) {
    case TraceLevel::all: return true;
    case TraceLevel::waits: return is_waiting_op(op);
    case TraceLevel::none: return false;
    }
    return true;
}

}  // namespace tmasim
