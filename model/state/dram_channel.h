#pragma once
// The memory every SM shares: HBM behind L2. Each SM's TMA port streams at its own rate
// (tma_bytes_per_cycle), but the bytes that miss L2, or are written back, also pass
// through one chip-wide channel of hbm_bytes_per_cycle, served first come first served.
// One CTA never fills it (110 of ~2300 B/cycle on an H200); a full chip of streaming CTAs
// does, and each then gets its share: per-CTA bandwidth falls as CTAs are added, as on the
// GPU. A plain class: the TMA engine asks it when a transfer's bytes are through.
#include <cstdint>

namespace tmasim::model {

//
// Each SM also has a channel of its own (hbm_sm_bytes_per_cycle, with a burst): measured with
// device/scripts/probes/sm_placement_probe.cu, a 4-stage bulk stream from HBM runs at 100-106
// GB/s per SM with 1 or 2 SMs streaming, at 187-188 from L2, whichever SMs stream; a single
// 64 KiB load still runs at the TMA port's rate (calibrate/bulk_load_latency): hence the burst.
class DramChannel {
public:
    // `burst_bytes`: how far ahead of its rate the channel may run after an idle spell.
    explicit DramChannel(double bytes_per_cycle, double burst_bytes = 0)
        : bytes_per_cycle_(bytes_per_cycle), burst_bytes_(burst_bytes) {}

    // A transfer of `bytes` that reaches the channel at cycle `now`: the cycle its last byte
    // leaves it, after the transfers queued before it. `rate_scale` (0, 1] slows the channel
    // for this transfer (an SM's share while the chip's HBM is busy: load_slowdown).
    int64_t pass(int64_t now, int64_t bytes, double rate_scale = 1.0);

    // How busy the channel has been lately, 0 to 1: its recent bytes per cycle (an average
    // over the last few thousand cycles) over its rate. 0 for a channel without a rate.
    double utilization(int64_t now) const;

    // Bytes moved so far (the model's own counter, for tests and reports).
    int64_t bytes_moved() const { return bytes_moved_; }

private:
    double bytes_per_cycle_;
    double burst_bytes_;
    double recent_rate_ = 0;    // bytes per cycle, decayed with kRecentCycles
    int64_t recent_at_ = 0;     // the cycle recent_rate_ was last brought up to date
    double free_at_ = 0;  // fractional: many small transfers must not each round up a cycle
    int64_t bytes_moved_ = 0;
};

}  // namespace tmasim::model
