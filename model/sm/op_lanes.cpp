#include "model/sm/op_lanes.h"

namespace tmasim::model {

std::vector<int> event_lanes_of(const Op& op, const std::vector<int>& lanes) {
    using K = Selector::Kind;
    if (op.by.kind == K::thread || op.by.kind == K::elected) return lanes;
    return {0};
}

OpLanes op_lanes_of(const Op& op, int warp, int threads, const Expr::IntEnv* env) {
    OpLanes l;
    Expr::IntEnv scratch = env ? *env : Expr::IntEnv{};
    for (int lane = 0; lane < 32; ++lane) {
        const int thread = warp * 32 + lane;
        if (thread >= threads) break;
        if (env ? op.by.includes_at(thread, scratch) : op.by.includes(thread)) l.lanes.push_back(lane);
    }
    if (!l.lanes.empty()) l.events = event_lanes_of(op, l.lanes);
    return l;
}

OpLanesTable::OpLanesTable(const Scenario& s) {
    const int threads = s.launch.block;
    warps_ = (threads + 31) / 32;
    for (const Op* op : s.all_ops()) {
        if (op->id < 0 || op->by.per_iteration) continue;
        if (static_cast<size_t>(op->id) >= ops_.size()) ops_.resize(static_cast<size_t>(op->id) + 1, nullptr);
        ops_[static_cast<size_t>(op->id)] = op;
    }
    table_.resize(ops_.size() * static_cast<size_t>(warps_));
    for (size_t id = 0; id < ops_.size(); ++id)
        if (ops_[id] != nullptr)
            for (int w = 0; w < warps_; ++w)
                table_[id * static_cast<size_t>(warps_) + static_cast<size_t>(w)] = op_lanes_of(*ops_[id], w, threads);
}

}  // namespace tmasim::model
