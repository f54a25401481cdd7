// WarpProcess::expected_events: the trace events a warp will log, counted over its program
// before the run (Simulation sizes the event log with the sum). Each op instance the warp
// executes logs a begin and an end event on each of its event lanes; a TMA copy adds its
// engine's events (start, landing, complete_tx, phase flip). Hazards, cluster ops and other
// model-only events are left out: the log grows past the estimate when they add up.
#include <algorithm>
#include <exception>

#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"
#include "scenarios/op_table.h"

namespace tmasim::model {

namespace {
bool has_loop(const std::vector<Op>& ops) {
    return std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::loop; });
}
bool has_per_iteration_selector(const std::vector<Op>& ops) {
    return std::any_of(ops.begin(), ops.end(), [](const Op& op) { return op.by.per_iteration; });
}
}  // namespace

int64_t WarpProcess::expected_events() {
    Expr::IntEnv env = env_;
    // Events of one pass over `ops`; a loop whose body holds no loop counts its body once
    // (an op's lanes do not depend on loop indices unless its selector names them).
    std::function<int64_t(const std::vector<Op>&)> count = [&](const std::vector<Op>& ops) {
        int64_t n = 0;
        for (const Op& op : ops) {
            if (op.kind == OpKind::loop) {
                const int64_t iterations = op.loop_count.empty() ? 0 : op.loop_count.eval_int(env);
                if (iterations <= 0) continue;
                if (!has_loop(op.body) && !has_per_iteration_selector(op.body)) {
                    env[op.var] = 0;
                    n += iterations * count(op.body);
                } else {
                    for (int64_t i = 0; i < iterations; ++i) {
                        env[op.var] = i;
                        n += count(op.body);
                    }
                }
                env.erase(op.var);
                continue;
            }
            const OpLanes& l = lanes_of(op, env);
            if (l.lanes.empty()) continue;
            n += 2 * static_cast<int64_t>(std::max<size_t>(l.events.size(), 1));
            if (op_family(op.kind) == OpFamily::async_copy) n += 4;
        }
        return n;
    };
    try {
        return count(cta_.run().scenario.program);
    } catch (const std::exception&) {
        return 0;  // an expression the run itself will report on
    }
}

}  // namespace tmasim::model
