#pragma once
// The mbarrier state machine of PTX 9.7.13.15 (semantics.md A1-A8), without time.
// The SystemC layer adds events and clocks around it; tests drive it directly.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tmasim::model {

// A broken mbarrier rule. The operation that throws leaves the barrier unchanged, so the
// model can report the hazard and keep running.
class MbarrierError : public std::runtime_error {
public:
    MbarrierError(std::string rule, const std::string& message)
        : std::runtime_error(message), rule_(std::move(rule)) {}
    const std::string& rule() const { return rule_; }

private:
    std::string rule_;
};

class Mbarrier {
public:
    static constexpr int64_t kMaxCount = (int64_t{1} << 20) - 1;  // expected arrivals
    static constexpr int64_t kMaxTx = (int64_t{1} << 20) - 1;     // |tx-count|

    // Each mutator returns true when it completed the current phase (A4): the phase
    // advanced and pending arrivals were reset to the expected count.
    void init(int64_t count);             // A3; mbarrier.reinit on a live barrier
    void inval();                         // the memory may be reused / re-initialised
    bool arrive(int64_t count = 1);       // A5; mbarrier.pending_range when count > pending
    bool expect_tx(int64_t bytes);        // tx += bytes (no arrival)
    bool complete_tx(int64_t bytes);      // tx -= bytes (A6)
    // Whether complete_tx(bytes) would neither break a rule (throw) nor complete the phase.
    bool credit_stays_open(int64_t bytes) const {
        const int64_t new_tx = tx_ - bytes;
        return live_ && bytes >= 0 && bytes <= kMaxTx && new_tx <= kMaxTx && new_tx >= -kMaxTx &&
               !(pending_ == 0 && new_tx == 0);
    }
    // cp.async.mbarrier.arrive without .noinc: pending += 1 now, the arrive comes later
    // (C20); mbarrier.pending_range when pending would pass 2^20-1 (A2).
    void increment_pending();
    // try_wait.parity: true once the phase with this parity has completed, i.e. the
    // current (incomplete) phase has the other parity (A8).
    bool test_wait(int64_t parity) const;

    bool live() const { return live_; }
    int64_t phase() const { return phase_; }            // completed phases so far
    int64_t pending() const { return pending_; }
    int64_t expected() const { return expected_; }
    int64_t tx_count() const { return tx_; }             // signed: expected minus delivered
    int64_t expected_bytes() const { return expected_bytes_; }   // this phase, summed expect_tx
    int64_t delivered_bytes() const { return delivered_bytes_; } // this phase, summed complete_tx
    int64_t last_phase_bytes() const { return last_phase_bytes_; } // the latest completed phase's expect_tx sum

private:
    void require_live(const char* what) const;
    void check_tx(int64_t new_tx, const char* what) const;
    // A single expect_tx or complete_tx amount must lie in 0..2^20-1 (PTX 9.7.13.15.2).
    static void require_tx_amount(int64_t bytes, const char* what);
    bool complete_if_done();

    bool live_ = false;
    int64_t phase_ = 0;
    int64_t pending_ = 0;
    int64_t expected_ = 0;
    int64_t tx_ = 0;
    int64_t expected_bytes_ = 0;
    int64_t delivered_bytes_ = 0;
    int64_t last_phase_bytes_ = 0;
};

}  // namespace tmasim::model
