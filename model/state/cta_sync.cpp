#include "model/state/cta_sync.h"

namespace tmasim::model {

CtaSync::CtaSync(int num_warps) : live_(num_warps, true), arrived_(num_warps, false) {}

uint64_t CtaSync::arrive(int warp) {
    arrived_.at(warp) = true;
    return generation_;
}

void CtaSync::exit(int warp) { live_.at(warp) = false; }

std::optional<std::vector<int>> CtaSync::try_release() {
    // Checked before the list is made: every warp's arrival asks, and all but the last wait.
    for (size_t w = 0; w < live_.size(); ++w)
        if (live_[w] && !arrived_[w]) return std::nullopt;
    std::vector<int> arrived;
    arrived.reserve(live_.size());
    for (size_t w = 0; w < live_.size(); ++w)
        if (arrived_[w]) arrived.push_back(static_cast<int>(w));
    if (arrived.empty()) return std::nullopt;
    arrived_.assign(arrived_.size(), false);
    ++generation_;
    return arrived;
}

}  // namespace tmasim::model
