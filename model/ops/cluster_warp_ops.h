#pragma once
// What one warp does for the cluster ops of scenarios/FORMAT.md "Clusters": the cluster
// barrier (cluster.arrive/wait/sync), DSMEM loads and stores (`cta:` on shared.load /
// shared.store), remote mbarrier arrive / expect_tx / arrive_expect_tx, st.async, and the
// fences whose effect depends on the cluster (fence.proxy.async with its state space,
// fence.mbarrier_init). WarpProcess hands these ops here whole: events, costs and waits.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

class Cluster;
class CtaModule;
class WarpProcess;
struct TimingParams;

class ClusterWarpOps {
public:
    explicit ClusterWarpOps(WarpProcess& warp);

    // Runs `op` on the warp's executing `lanes` (at least one).
    void exec(const Op& op, const std::vector<int>& lanes);

private:
    void arrive(const Op& op, const std::vector<int>& lanes);
    void wait(const Op& op, const std::vector<int>& lanes);
    // Each returns the warp's cycles for the op.
    double dsmem_access(const Op& op, const std::vector<int>& lanes, std::map<std::string, std::string>& detail);
    double remote_barrier(const Op& op, const std::vector<int>& lanes);
    double st_async(const Op& op, const std::vector<int>& lanes);
    double fence(const Op& op, const std::vector<int>& lanes);
    // Where lane `lane`'s `cta` expression points: a rank of the warp's cluster.
    int target_rank(const Expr& e, int lane) const;
    int64_t barrier_index(const Op& op) const;
    int agent(int lane) const;

    WarpProcess& w_;
    CtaModule& cta_;
    Cluster& cluster_;
    const TimingParams& tp_;
};

}  // namespace tmasim::model
