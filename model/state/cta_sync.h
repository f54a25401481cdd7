#pragma once
// barrier.sync 0 (__syncthreads) counted per warp: it releases once every warp that has
// not exited has arrived (exited threads are not waited for, semantics.md F33).
#include <cstdint>
#include <optional>
#include <vector>

namespace tmasim::model {

class CtaSync {
public:
    explicit CtaSync(int num_warps);

    // Returns the generation the warp waits past.
    uint64_t arrive(int warp);
    void exit(int warp);
    // Once every live warp has arrived: the warps that took part, and the barrier opens.
    std::optional<std::vector<int>> try_release();
    bool passed(uint64_t generation) const { return generation_ > generation; }

private:
    std::vector<bool> live_;
    std::vector<bool> arrived_;
    uint64_t generation_ = 0;
};

}  // namespace tmasim::model
