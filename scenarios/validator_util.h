#pragma once
// Small helpers the validator's files share: name lists for messages, error keys, and
// the check that an expression uses only the variables in scope.
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

inline std::string join_names(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "(none declared)" : out;
}

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(x.name);
    return out;
}

// The threads an op's selector picks, made once per op (a selector sees tid, lane and warp,
// never a loop index): evaluated per op instance and thread, a predicate was 0.4 s of a
// full-chip stream's validation (132 CTAs x 128 tiles x 128 threads).
class SelectedThreads {
public:
    const std::vector<int>& of(const Op& op, int block) {
        auto [it, made] = threads_.try_emplace(&op);
        for (int t = 0; made && t < block; ++t)
            if (op.by.includes(t)) it->second.push_back(t);
        return it->second;
    }
    // The threads at this iteration (env holds the loop variables): a selector naming a loop
    // variable picks anew each iteration; any other is the cached set above.
    const std::vector<int>& at(const Op& op, int block, std::map<std::string, int64_t>& env) {
        if (!op.by.per_iteration) return of(op, block);
        scratch_.clear();
        for (int t = 0; t < block; ++t)
            if (op.by.includes_at(t, env)) scratch_.push_back(t);
        return scratch_;
    }

private:
    std::unordered_map<const Op*, std::vector<int>> threads_;
    std::vector<int> scratch_;
};

// "tma.load.coords": the key path errors name.
inline std::string op_key(const Op& op, const std::string& k) { return to_string(op.kind) + "." + k; }

inline void check_expr_vars(const Expr& e, const std::vector<std::string>& scope, const std::string& k) {
    if (e.empty()) return;
    for (const auto& v : e.variables())
        if (std::find(scope.begin(), scope.end(), v) == scope.end())
            throw ScenarioError(e.loc(), e.key().empty() ? k : e.key(),
                                "unknown variable '" + v + "'; allowed here: " + join_names(scope));
}

// Checks of the ops added for clusters, device-modified tensor maps and wgmma
// (validator_async_ops.cpp); each returns at once for other ops.
// validator_copy_ops.cpp: a tensor copy's map and buffer, gather4/scatter4's rows, a
// reduction's element type, an op newer than the scenario's arch.
void check_tma_copy_static(const Scenario& sc, const Op& op);
void check_gather4_static(const Scenario& sc, const Op& op);
void check_reduce_type(const Scenario& sc, const Op& op);
void check_op_arch(const Scenario& sc, const Op& op);
void check_cluster_op(const Scenario& sc, const Op& op);
void check_tensormap_op(const Scenario& sc, const Op& op);
void check_wgmma_op(const Scenario& sc, const Op& op);
// An integer buffer's element expression (compute's fn, a store's value) has no float
// literal (validator_elements.cpp).
void check_integer_elements(const Scenario& sc, const Op& op);
// shared.snapshot (snapshot.cpp): `by` selects exactly one thread; after the dynamic
// checks, the snapshots of all CTAs and iterations fit kMaxSnapshotBytes.
void check_snapshot_op(const Scenario& sc, const Op& op);
void check_snapshot_volume(const Scenario& sc);
// Layout ops (validator_layout_ops.cpp): the static checks, then per CTA and iteration
// the global view's base (aligned to the vector, the tile inside the tensor when unmasked).
void check_layout_op(const Scenario& sc, const Op& op, const std::vector<std::string>& scope);
// `cache` keeps each op's (vector elements, largest offset) across CTAs and iterations.
void check_layout_dynamic(const Scenario& sc, const Op& op, const Expr::IntEnv& env,
                          std::map<int, std::pair<int64_t, int64_t>>& cache);

}  // namespace tmasim
