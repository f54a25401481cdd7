#pragma once
// A model run's budget of time and memory, checked as the run goes (issue 40). The work
// estimate (scenarios/work_estimate.h) refuses before the run only what no budget could let
// finish; a full-chip kernel is a long run, not a mistake, and what tells the two apart is how
// long it takes. The budget only ever stops a run: it reads the clock and the event count and
// never feeds either back into the simulation, so a trace is the same whatever the budget.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace tmasim::model {

class EventLog;

// What a run has done so far, for a progress line.
struct RunProgress {
    double seconds = 0;           // since the run began (every attempt together)
    int64_t events = 0;           // trace events the current attempt has logged
    int64_t expected_events = 0;  // the attempt's estimate before it ran (0: none)
    bool again = false;           // the attempt re-runs the CTAs together after a pass apart
};

class RunBudget {
public:
    using Clock = std::chrono::steady_clock;
    using ProgressSink = std::function<void(const RunProgress&)>;
    // `time_limit_seconds` <= 0: no limit; `max_events` <= 0: no bound. `progress`, when set,
    // hears from the run once a second from `progress_after_seconds` on.
    RunBudget(double time_limit_seconds, int64_t max_events, ProgressSink progress = {},
              double progress_after_seconds = 5.0);

    // One attempt of the run (model/run/simulation.h): the log it fills, its estimate of the
    // events it will log, and how to stop it (RunContext::abort_run).
    void begin_attempt(const EventLog* log, int64_t expected_events, std::function<void()> abort);
    // Called once per op a warp runs and once per slice of a kernel warp's instructions;
    // reads the clock every 16th call (steady_clock costs ~25 ns; an op, a few hundred).
    void tick() {
        if ((++ticks_ & 15) == 0) check();
    }
    // Whether the budget stopped the run, and why (a sentence naming the limit and its option).
    bool stopped() const { return !stop_reason_.empty(); }
    const std::string& stop_reason() const { return stop_reason_; }
    double seconds() const;

private:
    void check();
    void stop(std::string why);

    double time_limit_;
    int64_t max_events_;
    ProgressSink progress_;
    double progress_after_;
    Clock::time_point start_ = Clock::now();
    double next_progress_ = 0;
    uint64_t ticks_ = 0;
    int attempts_ = 0;
    const EventLog* log_ = nullptr;
    int64_t expected_ = 0;
    std::function<void()> abort_;
    std::string stop_reason_;
};

}  // namespace tmasim::model
