#include "model/sm/cluster_fabric.h"

#include <fmt/format.h>

#include "model/core/asan_stacks.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/state/proxy_tracker.h"
#include "model/core/sim_time.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

ClusterFabric::ClusterFabric(sc_core::sc_module_name name, RunContext& run, const std::vector<CtaModule*>& ctas)
    : sc_core::sc_module(name), run_(run), cluster_size_(run.scenario.launch.cluster_size()) {
    for (size_t first = 0; first < ctas.size(); first += cluster_size_) {
        std::vector<CtaModule*> members(ctas.begin() + first, ctas.begin() + first + cluster_size_);
        clusters_.push_back(std::make_unique<Cluster>(run, static_cast<int>(clusters_.size()), std::move(members)));
    }
    SC_THREAD(delivery_thread);
}

void ClusterFabric::deliver_after(int64_t delay, CtaModule& cta, const Op& op, const EventSite& site,
                                  std::function<void()> action) {
    pending_.push(now_cycles() + delay, Delivery{&cta, &op, site, std::move(action)});
}

void ClusterFabric::wake_for_abort() {
    pending_.wake();
    for (auto& c : clusters_) c->barrier_changed().notify(sc_core::SC_ZERO_TIME);
}

void ClusterFabric::delivery_thread() {
    CoroutineStackScope stack(default_thread_stack_bytes());
    for (;;) {
        std::optional<Delivery> d = pending_.next_due([this] { return run_.aborted; });
        if (!d) return;
        try {
            d->action();
        } catch (const RunAborted&) {
            return;
        } catch (const std::exception& e) {
            d->cta->fault(*d->op, d->site, e.what());
            return;
        }
    }
}

void ClusterFabric::explain_hangs(const CtaModule& cta, std::vector<Diagnostic>& diagnostics) {
    Cluster& c = cluster_of(cta.index());
    const int rank = c.rank_of(cta);
    for (Diagnostic& d : diagnostics) {
        const Op* op = run_.scenario.find_op(d.op);
        const bool cluster_wait = op && (op->kind == OpKind::cluster_wait || op->kind == OpKind::cluster_sync);
        if (cluster_wait) {
            // Which threads the phase still waits for, per CTA of the cluster.
            std::map<int, std::vector<int>> missing;
            for (int a : c.barrier().missing()) missing[c.agent_rank(a)].push_back(c.agent_thread(a));
            std::string who;
            for (const auto& [r, threads] : missing)
                who += fmt::format("{}CTA {} (rank {}) threads {}", who.empty() ? "" : "; ",
                                   c.at_rank(r).index(), r, format_id_ranges(threads));
            d.rule = "cluster.deadlock";
            d.message = fmt::format("hang at {}: cluster barrier phase {} never completes: {} never arrive "
                                    "(warps {} of CTA {} wait) {}",
                                    op_title(*op), c.barrier().phase(), who.empty() ? "no live thread" : who,
                                    d.detail["warps"], cta.index(), HazardRules::cite(d.rule));
            d.detail["phase"] = std::to_string(c.barrier().phase());
            d.detail["missing"] = who;
        }
        if (c.size() > 1) {
            d.detail["rank"] = std::to_string(rank);
            d.message += fmt::format(" (CTA {} is rank {} of cluster {})", cta.index(), rank, c.index());
        }
    }
}

Cluster* cluster_of(CtaModule& cta) {
    ClusterFabric* f = cta.run().fabric;
    return f ? &f->cluster_of(cta.index()) : nullptr;
}

}  // namespace tmasim::model
