#include "model/state/l2_request_path.h"

#include <algorithm>
#include <cmath>

namespace tmasim::model {

int64_t L2RequestPath::pass(int64_t now, int64_t requests, int64_t sectors) {
    requests_ += requests;
    if (sectors_per_cycle_ <= 0 || requests == 0) return now;
    const double slots = double(requests) * overhead_sectors_ + double(sectors);
    const double start = std::max(static_cast<double>(now), free_at_);
    free_at_ = start + slots / sectors_per_cycle_;
    return static_cast<int64_t>(std::ceil(free_at_ - 1e-9));
}

}  // namespace tmasim::model
