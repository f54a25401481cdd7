#include "scenarios/work_estimate.h"

#include <map>

namespace tmasim {
namespace {

// A thread's op costs the model about 8 times what 4 bytes of a copy or a compute do
// (measured: shared.load by 1024 threads vs compute over a 16384-element buffer).
constexpr int64_t kThreadWeight = 8;

class WorkCounter {
public:
    WorkCounter(const Scenario& s, int64_t limit, const std::string& flag) : sc_(s), limit_(limit), flag_(flag) {}

    int64_t run() {
        for (int cta = 0; cta < sc_.launch.num_ctas(); ++cta)
            walk(sc_.program, {{"cta", cta}, {"rank", cta % sc_.launch.cluster_size()}});
        return total_;
    }

private:
    void walk(const std::vector<Op>& ops, const Expr::IntEnv& env) {
        for (const Op& op : ops) {
            add(op, kThreadWeight * threads(op, env) + bytes(op, env) / 4);
            if (op.kind != OpKind::loop) continue;
            const bool outermost = !outer_loop_;
            if (outermost) outer_loop_ = &op;
            const int64_t n = op.loop_count.eval_int(env);
            Expr::IntEnv inner = env;
            for (int64_t i = 0; i < n; ++i) {
                inner[op.var] = i;
                walk(op.body, inner);
            }
            if (outermost) outer_loop_ = nullptr;
        }
    }

    void add(const Op& op, int64_t units) {
        total_ += units;
        if (limit_ <= 0 || total_ <= limit_) return;
        const std::string why = "the run would do more than " + std::to_string(limit_) +
                                " units of model work (8 per thread running an op, 1 per 4 bytes moved or computed); "
                                "allowed: at most " + std::to_string(limit_) + " (" + flag_ + " raises the limit)";
        if (outer_loop_)
            throw ScenarioError(outer_loop_->loop_count.loc(), to_string(outer_loop_->kind) + ".count",
                                "the loop " + outer_loop_->display() + ": " + why);
        throw ScenarioError(op.loc, to_string(op.kind), why);
    }

    int64_t threads(const Op& op, const Expr::IntEnv& env) {
        if (op.by.per_iteration) {  // which threads changes with the iteration: not cached
            Expr::IntEnv te = env;
            int64_t n = 0;
            for (int t = 0; t < sc_.launch.block; ++t) n += op.by.includes_at(t, te) ? 1 : 0;
            return n;
        }
        auto it = threads_.find(op.id);
        if (it != threads_.end()) return it->second;
        int64_t n = 0;
        for (int t = 0; t < sc_.launch.block; ++t) n += op.by.includes(t) ? 1 : 0;
        return threads_[op.id] = n;
    }

    int64_t buffer_bytes(const Ref& r) const {
        const SharedBuffer* b = sc_.find_shared(r.name);
        return b ? b->size_bytes() : 0;
    }

    int64_t box_bytes(const std::string& map) const {
        const TensorMap* m = sc_.find_map(map);
        const GlobalTensor* g = m ? sc_.find_global(m->tensor) : nullptr;
        return g ? m->box_bytes(g->type) : 0;
    }

    // Bytes the op moves or computes on, as the validator has bounded them.
    int64_t bytes(const Op& op, const Expr::IntEnv& env) const {
        if (op.kind == OpKind::compute) {
            const SharedBuffer* b = sc_.find_shared(op.buffer.name);
            if (!b) return 0;
            const int64_t count = op.range_count.empty() ? b->num_elements() : op.range_count.eval_int(env);
            return count * dtype_size(b->type);
        }
        if (op.kind == OpKind::shared_snapshot) return buffer_bytes(op.buffer);
        if (op_family(op.kind) == OpFamily::async_copy) {
            // A tensor op moves its map's box (four rows of it for gather4/scatter4); a 1-D
            // bulk op its `bytes`.
            if (op.map.empty()) return op.bytes.eval_int(env);
            return (op.rows.empty() ? 1 : 4) * box_bytes(op.map);
        }
        if (op_family(op.kind) == OpFamily::layout) {  // the whole tile (convert_layout: out and back in)
            const TileDecl* t = sc_.find_tile(op.tile);
            return t ? t->num_elements() * dtype_size(t->type) * (op.kind == OpKind::convert_layout ? 2 : 1) : 0;
        }
        if (op_family(op.kind) == OpFamily::wgmma && !op.acc.empty()) {
            const AccumulatorDecl* acc = sc_.find_accumulator(op.acc);
            return acc ? int64_t{64} * acc->n * 4 * (op.kind == OpKind::wgmma_mma_async ? 16 : 1) : 0;
        }
        return 0;
    }

    const Scenario& sc_;
    int64_t limit_;
    std::string flag_;
    int64_t total_ = 0;
    const Op* outer_loop_ = nullptr;
    std::map<int, int64_t> threads_;
};

}  // namespace

int64_t check_work_limit(const Scenario& scenario, int64_t limit, const std::string& flag) {
    // A kernel's work is what its instructions do with their registers: nothing to count before
    // it runs (the model's watchdog bounds a kernel that would run for ever).
    if (scenario.is_kernel()) return 0;
    return WorkCounter(scenario, limit, flag).run();
}

}  // namespace tmasim
