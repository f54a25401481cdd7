#include "model/state/cluster_mask.h"

namespace tmasim::model {

ClusterMask decode_cta_mask(int64_t mask, int cluster_size) {
    ClusterMask m;
    // The operand is 16 bits (the loader refuses larger masks); read them all.
    for (int bit = 0; bit < 16; ++bit) {
        if (((mask >> bit) & 1) == 0) continue;
        (bit < cluster_size ? m.ranks : m.outside).push_back(bit);
    }
    return m;
}

}  // namespace tmasim::model
