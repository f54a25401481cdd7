#include "model/core/run_budget.h"

#include <fmt/format.h>

#include "model/core/event_log.h"

namespace tmasim::model {

RunBudget::RunBudget(double time_limit_seconds, int64_t max_events, ProgressSink progress,
                     double progress_after_seconds)
    : time_limit_(time_limit_seconds),
      max_events_(max_events),
      progress_(std::move(progress)),
      progress_after_(progress_after_seconds),
      next_progress_(progress_after_seconds) {}

void RunBudget::begin_attempt(const EventLog* log, int64_t expected_events, std::function<void()> abort) {
    ++attempts_;
    log_ = log;
    expected_ = expected_events;
    abort_ = std::move(abort);
}

double RunBudget::seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void RunBudget::check() {
    if (stopped()) return;
    const double now = seconds();
    const int64_t events = log_ ? static_cast<int64_t>(log_->size()) : 0;
    if (time_limit_ > 0 && now > time_limit_) {
        stop(fmt::format("the model run took more than {:g} s, its time limit, having logged {} trace events{}: "
                         "tmasim run --time-limit SECONDS raises the limit (0: none)",
                         time_limit_, events,
                         expected_ > 0 ? fmt::format(" of about {}", expected_) : std::string()));
        return;
    }
    if (max_events_ > 0 && events > max_events_) {
        stop(fmt::format("the model run logged more than {} trace events, the most a run may hold in memory "
                         "(about {} GB); tmasim run --max-work 0 lifts the model's bounds on work and memory",
                         max_events_, max_events_ * 200 / 1000000000));
        return;
    }
    if (progress_ && now >= next_progress_) {
        next_progress_ = now + 1.0;
        progress_(RunProgress{now, events, expected_, attempts_ > 1});
    }
}

void RunBudget::stop(std::string why) {
    stop_reason_ = std::move(why);
    if (abort_) abort_();
}

}  // namespace tmasim::model
