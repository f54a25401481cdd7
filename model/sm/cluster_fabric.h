#pragma once
// The clusters of a run and the interconnect between their SMs: it builds one Cluster per
// launch.cluster group and delivers what crosses it late, a DSMEM latency after issue (an
// st.async's bytes and complete_tx, a remote mbarrier arrive). It also finishes the hang
// reports of clustered runs: a warp stuck in cluster.wait hangs under cluster.deadlock with
// the threads the phase still waits for, and every report names the CTA's rank.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/sm/cluster.h"
#include "model/sm/timed_queue.h"

namespace tmasim::model {

class ClusterFabric : public sc_core::sc_module {
public:
    ClusterFabric(sc_core::sc_module_name name, RunContext& run, const std::vector<CtaModule*>& ctas);
    SC_HAS_PROCESS(ClusterFabric);

    Cluster& cluster_of(int cta) { return *clusters_.at(cta / cluster_size_); }
    // Runs `action` `delay` cycles from now, after everything already due at that time.
    // An exception it throws becomes a fault of `op` at `site`, reported by `cta`.
    void deliver_after(int64_t delay, CtaModule& cta, const Op& op, const EventSite& site,
                       std::function<void()> action);
    void wake_for_abort();
    // Rewrites the hang diagnostics HangReport made for `cta` (see above).
    void explain_hangs(const CtaModule& cta, std::vector<Diagnostic>& diagnostics);

private:
    struct Delivery {
        CtaModule* cta = nullptr;
        const Op* op = nullptr;
        EventSite site;
        std::function<void()> action;
    };
    void delivery_thread();

    RunContext& run_;
    int cluster_size_;
    std::vector<std::unique_ptr<Cluster>> clusters_;
    TimedQueue<Delivery> pending_;
};

// The cluster `cta` belongs to; nullptr in a run built without a fabric (no clusters).
Cluster* cluster_of(CtaModule& cta);

}  // namespace tmasim::model
