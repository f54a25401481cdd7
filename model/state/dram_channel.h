#pragma once
// The memory every SM shares: HBM behind L2. Each SM's TMA port streams at its own rate
// (tma_bytes_per_cycle), but the bytes that miss L2, or are written back, also pass
// through one chip-wide channel of hbm_bytes_per_cycle, served first come first served.
// One CTA never fills it (110 of ~2300 B/cycle on an H200); a full chip of streaming CTAs
// does, and each then gets its share: per-CTA bandwidth falls as CTAs are added, as on the
// GPU. A plain class: the TMA engine asks it when a transfer's bytes are through.
#include <cstdint>

namespace tmasim::model {

class DramChannel {
public:
    explicit DramChannel(double bytes_per_cycle) : bytes_per_cycle_(bytes_per_cycle) {}

    // A transfer of `bytes` that reaches the channel at cycle `now`: the cycle its last byte
    // leaves it, after the transfers queued before it.
    int64_t pass(int64_t now, int64_t bytes);

    // Bytes moved so far (the model's own counter, for tests and reports).
    int64_t bytes_moved() const { return bytes_moved_; }

private:
    double bytes_per_cycle_;
    double free_at_ = 0;  // fractional: many small transfers must not each round up a cycle
    int64_t bytes_moved_ = 0;
};

}  // namespace tmasim::model
