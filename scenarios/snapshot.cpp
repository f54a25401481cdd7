#include "scenarios/snapshot.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scenarios/validator_util.h"

namespace tmasim {
namespace {

void collect(const Scenario& s, const std::vector<Op>& ops, Expr::IntEnv& env, std::vector<int64_t>& iters,
             std::vector<SnapshotInstance>& out) {
    for (const Op& op : ops) {
        if (op.kind == OpKind::loop) {
            const int64_t n = op.loop_count.eval_int(env);
            for (int64_t i = 0; i < n; ++i) {
                env[op.var] = i;
                iters.push_back(i);
                collect(s, op.body, env, iters, out);
                iters.pop_back();
            }
            env.erase(op.var);
            continue;
        }
        if (op.kind != OpKind::shared_snapshot) continue;
        const SharedBuffer* b = s.find_shared(op.buffer.name);
        if (!b) throw std::logic_error("snapshot: " + op.display() + " names no shared buffer");
        const int64_t index = op.buffer.index.empty() ? 0 : op.buffer.index.eval_int(env);
        out.push_back({&op, iters, buffer_element_name(*b, index), b->size_bytes()});
    }
}

}  // namespace

std::string snapshot_image_name(const Op& op, const std::vector<int64_t>& iters, const std::string& buffer) {
    std::string name = op.label.empty() ? "#" + std::to_string(op.id) : op.label;
    if (!iters.empty()) name += fmt::format("[{}]", fmt::join(iters, ","));
    return name + ":" + buffer;
}

std::string buffer_element_name(const SharedBuffer& buffer, int64_t index) {
    return buffer.array != 0 ? fmt::format("{}[{}]", buffer.name, index) : buffer.name;
}

std::vector<SnapshotInstance> snapshot_instances(const Scenario& s, int cta) {
    Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
    std::vector<int64_t> iters;
    std::vector<SnapshotInstance> out;
    collect(s, s.program, env, iters, out);
    return out;
}

void check_snapshot_op(const Scenario& sc, const Op& op) {
    if (op.kind != OpKind::shared_snapshot) return;
    if (op.by.per_iteration)
        throw ScenarioError(op.by.pred.loc(), op_key(op, "by"), "\"" + op.by.pred.text() + "\" names a loop variable; "
                            "allowed: a snapshot's selector over tid, lane and warp only (one fixed thread copies)");
    const int n = selected_threads(op.by, sc.launch.block);
    if (n != 1) {
        const std::string what = op.by.kind == Selector::Kind::predicate ? op.by.text() : "\"" + op.by.text() + "\"";
        const bool predicate = op.by.kind == Selector::Kind::predicate;
        throw ScenarioError(predicate ? op.by.pred.loc() : op.loc, op_key(op, "by"),
                            fmt::format("{} selects {} threads of the {}-thread block; allowed: a selector of exactly "
                                        "one thread (threadN, elected, electedW, or an expression such as "
                                        "\"tid == 3\")",
                                        what, n, sc.launch.block));
    }
}

void check_snapshot_volume(const Scenario& sc) {
    int64_t total = 0;
    for (int cta = 0; cta < sc.launch.num_ctas(); ++cta) {
        for (const SnapshotInstance& i : snapshot_instances(sc, cta)) {
            total += i.bytes;
            if (total > kMaxSnapshotBytes)
                throw ScenarioError(i.op->loc, op_key(*i.op, "buffer"),
                                    fmt::format("the program's snapshots take more than {} bytes over all CTAs and "
                                                "iterations; allowed: at most {} (snapshot fewer or smaller buffers)",
                                                kMaxSnapshotBytes, kMaxSnapshotBytes));
        }
    }
}

int selected_threads(const Selector& by, int block) {
    int n = 0;
    for (int t = 0; t < block; ++t) n += by.includes(t) ? 1 : 0;
    return n;
}

}  // namespace tmasim
