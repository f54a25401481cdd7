#include "model/state/dram_channel.h"

#include <algorithm>
#include <cmath>

namespace tmasim::model {

int64_t DramChannel::pass(int64_t now, int64_t bytes) {
    bytes_moved_ += bytes;
    if (bytes_per_cycle_ <= 0) return now;  // a config without the channel: no shared limit
    const double start = std::max(static_cast<double>(now), free_at_);
    free_at_ = start + static_cast<double>(bytes) / bytes_per_cycle_;
    return static_cast<int64_t>(std::ceil(free_at_ - 1e-9));
}

}  // namespace tmasim::model
