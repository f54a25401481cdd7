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

#include "model/state/st_async_batch.h"
#include "scenarios/ir.h"

namespace tmasim::model {

// One lane's st.async resolved: where its bytes go (rank, offset), which rank's barrier its
// complete_tx reaches, and the bytes themselves.
struct StAsyncLane {
    int lane = 0;
    StAsyncStore store;
    std::vector<uint8_t> payload;
};

class Cluster;
class CtaModule;
class WarpProcess;
struct TimingParams;

class ClusterWarpOps {
public:
    explicit ClusterWarpOps(WarpProcess& warp);

    // Runs `op` on the warp's executing `lanes` (at least one).
    void exec(const Op& op, const std::vector<int>& lanes);
    // mbarrier arrive / expect_tx / arrive_expect_tx of lane i on barrier `b` of rank owners[i]
    // (its own rank: a local action), `count` arrivals or `bytes` of tx: a kernel's operands,
    // resolved from its registers. Returns the warp's cycles.
    double remote_barrier_to(const Op& op, const std::vector<int>& lanes, const std::vector<int>& owners, int b,
                             int64_t count, int64_t bytes);
    // st.async of `lanes` into shared buffer `buffer` (CTA offset `base`, for messages) with
    // complete_tx on barrier `b` of the rank each store names. Returns the warp's cycles.
    double st_async_to(const Op& op, const std::vector<StAsyncLane>& lanes, int b, const std::string& buffer, int64_t base);

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
