#include "model/state/dram_channel.h"

#include <algorithm>
#include <cmath>

namespace tmasim::model {

namespace {
// The window of DramChannel::utilization: long against one 16 KiB transfer (~150 cycles at an
// SM's rate), short against a kernel.
constexpr double kRecentCycles = 4096;
}  // namespace

double DramChannel::utilization(int64_t now) const {
    if (bytes_per_cycle_ <= 0) return 0;
    const double decayed = recent_rate_ * std::exp(-static_cast<double>(std::max<int64_t>(0, now - recent_at_)) / kRecentCycles);
    return std::min(1.0, decayed / bytes_per_cycle_);
}

int64_t DramChannel::pass(int64_t now, int64_t bytes, double rate_scale) {
    bytes_moved_ += bytes;
    if (bytes_per_cycle_ <= 0) return now;  // a config without the channel: no shared limit
    if (now > recent_at_) {
        recent_rate_ *= std::exp(-static_cast<double>(now - recent_at_) / kRecentCycles);
        recent_at_ = now;
    }
    recent_rate_ += static_cast<double>(bytes) / kRecentCycles;
    const double rate = bytes_per_cycle_ * std::clamp(rate_scale, 0.05, 1.0);
    // A token bucket: an idle channel has banked up to burst_bytes of its rate.
    const double start = std::max(static_cast<double>(now) - burst_bytes_ / rate, free_at_);
    free_at_ = start + static_cast<double>(bytes) / rate;
    return std::max(now, static_cast<int64_t>(std::ceil(free_at_ - 1e-9)));
}

}  // namespace tmasim::model
