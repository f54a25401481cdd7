#pragma once
// The ctaMask of a multicast copy (cp.async.bulk{.tensor}...multicast::cluster; PTX
// 9.7.9.25.4.1, 9.7.9.27.1.2; semantics.md D23): bit i names the CTA whose
// %cluster_ctarank is i. Bits at or above the cluster size name no CTA.
#include <cstdint>
#include <vector>

namespace tmasim::model {

struct ClusterMask {
    std::vector<int> ranks;     // the destination ranks, ascending
    std::vector<int> outside;   // set bits >= the cluster size, ascending
};

ClusterMask decode_cta_mask(int64_t mask, int cluster_size);

}  // namespace tmasim::model
