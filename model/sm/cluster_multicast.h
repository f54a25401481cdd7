#pragma once
// A multicast load (tma.load / bulk.load with `multicast:`; PTX 9.7.9.25.4.1, 9.7.9.27.1.2;
// semantics.md C21-C23): one fetch from global memory whose bytes land at the same offset in
// every CTA of the ctaMask, each one crediting complete_tx of its bytes to its own barrier
// at the same offset, so each destination needs its own expect_tx. Bits of the mask at or
// above the cluster size name no CTA: multicast.mask_outside_cluster, and those are dropped.
//
// The fetch pays its L2 or HBM latency once; each destination CTA's TMA port then writes
// the bytes into its shared memory (the smem side is per SM), so every destination's
// engine moves its copy with that one latency.
#include <cstdint>
#include <string>

#include "model/copy/tma_request.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class ClusterMulticast {
public:
    // `r` is the load CopyIssuer built and checked for `issuer`'s thread r.thread, into
    // `buffer` (its display name) at CTA offset `base`, for messages.
    // `mask`: the ctaMask; `barrier`: the barrier's index (the same in every CTA of the cluster).
    static void issue(CtaModule& issuer, const Op& op, TmaRequest r, const std::string& buffer, int64_t base,
                      int64_t mask, int barrier);
};

}  // namespace tmasim::model
