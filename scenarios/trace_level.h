#pragma once
// How much of a scenario's kernel is timed op by op. On the device: `all` brackets every op
// with %clock64 reads and a 16-byte record, `waits` only the ops that wait (the rest run
// bare), `none` adds no per-op code (each warp's entry and exit and the kernel time only), so
// the kernel runs as written by hand. On the model: the ops the device would bracket pay
// the executor's measured probe cost (arch config trace_probe_cycles), so the model predicts
// the kernel traced at that level; `none`, its default, predicts the kernel as it runs.
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
