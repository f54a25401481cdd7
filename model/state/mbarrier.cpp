#include "model/state/mbarrier.h"

#include <fmt/format.h>

#include "model/core/hazard_rules.h"

namespace tmasim::model {

void Mbarrier::init(int64_t count) {
    if (live_)
        throw MbarrierError("mbarrier.reinit",
                            "mbarrier.init on a live barrier that was not invalidated " +
                                HazardRules::cite("mbarrier.reinit"));
    if (count < 1 || count > kMaxCount)
        throw MbarrierError("mbarrier.count_range",
                            fmt::format("mbarrier.init count {} is outside 1..{} {}", count, kMaxCount,
                                        HazardRules::cite("mbarrier.count_range")));
    live_ = true;
    phase_ = 0;
    pending_ = expected_ = count;
    tx_ = expected_bytes_ = delivered_bytes_ = 0;
}

void Mbarrier::inval() {
    require_live("mbarrier.inval");
    live_ = false;
}

bool Mbarrier::arrive(int64_t count) {
    require_live("mbarrier.arrive");
    if (count < 1 || count > pending_)
        throw MbarrierError("mbarrier.pending_range",
                            fmt::format("mbarrier.arrive with count {} but {} arrivals pending: "
                                        "pending would leave 0..{} {}",
                                        count, pending_, kMaxCount, HazardRules::cite("mbarrier.pending_range")));
    pending_ -= count;
    return complete_if_done();
}

void Mbarrier::require_tx_amount(int64_t bytes, const char* what) {
    if (bytes < 0 || bytes > kMaxTx)
        throw MbarrierError("mbarrier.tx_range", fmt::format("{} of {} bytes is outside 0..{} {}", what, bytes,
                                                             kMaxTx, HazardRules::cite("mbarrier.tx_range")));
}

bool Mbarrier::expect_tx(int64_t bytes) {
    require_live("mbarrier.expect_tx");
    require_tx_amount(bytes, "expect_tx");
    check_tx(tx_ + bytes, "expect_tx");
    tx_ += bytes;
    expected_bytes_ += bytes;
    return complete_if_done();
}

bool Mbarrier::complete_tx(int64_t bytes) {
    require_live("complete_tx");
    require_tx_amount(bytes, "complete_tx");
    check_tx(tx_ - bytes, "complete_tx");
    tx_ -= bytes;
    delivered_bytes_ += bytes;
    return complete_if_done();
}

void Mbarrier::increment_pending() {
    require_live("cp.async.mbarrier.arrive");
    if (pending_ + 1 > kMaxCount)
        throw MbarrierError("mbarrier.pending_range",
                            fmt::format("cp.async.mbarrier.arrive would raise pending arrivals to {}, "
                                        "above {} {}",
                                        pending_ + 1, kMaxCount, HazardRules::cite("mbarrier.pending_range")));
    ++pending_;
}

bool Mbarrier::test_wait(int64_t parity) const {
    require_live("mbarrier.try_wait");
    return (phase_ & 1) != (parity & 1);
}

void Mbarrier::require_live(const char* what) const {
    if (!live_)
        throw MbarrierError("mbarrier.uninit",
                            fmt::format("{} on a barrier that is not initialised (or was invalidated) {}", what,
                                        HazardRules::cite("mbarrier.uninit")));
}

void Mbarrier::check_tx(int64_t new_tx, const char* what) const {
    if (new_tx > kMaxTx || new_tx < -kMaxTx)
        throw MbarrierError("mbarrier.tx_range",
                            fmt::format("{} would take the tx-count from {} to {}, outside "
                                        "+-{} {}",
                                        what, tx_, new_tx, kMaxTx, HazardRules::cite("mbarrier.tx_range")));
}

bool Mbarrier::complete_if_done() {
    if (pending_ != 0 || tx_ != 0) return false;
    ++phase_;
    pending_ = expected_;
    last_phase_bytes_ = expected_bytes_;
    expected_bytes_ = delivered_bytes_ = 0;
    return true;
}

}  // namespace tmasim::model
