#pragma once
// How much of a scenario's kernel the device executor times. `all`: every op (a %clock64
// read before and after it and a 48-byte record); `waits`: only the ops that wait (the
// rest run bare); `none`: no per-op instrumentation, only each warp's entry and exit
// (%clock64 and %globaltimer) and the kernel time, so the kernel runs as written by hand.
#include <optional>
#include <string>

#include "scenarios/ir.h"

namespace tmasim {

enum class TraceLevel { all, waits, none };

const char* to_string(TraceLevel level);
std::optional<TraceLevel> parse_trace_level(const std::string& text);  // "all", "waits", "none"

// Ops that block a thread until something else happens: mbarrier.wait, sync, the
// wait_group family, wgmma.wait_group, cluster.wait and cluster.sync.
bool is_waiting_op(const Op& op);
// Whether the kernel brackets `op` with clock reads and records it at `level`.
bool op_traced(const Op& op, TraceLevel level);

}  // namespace tmasim
