#include "cli/run_progress.h"

#include <fmt/format.h>

namespace tmasim::cli {

std::string progress_text(const model::RunProgress& p) {
    std::string line = fmt::format("tmasim: model run {:.0f} s: ", p.seconds);
    if (p.again) line += "the CTAs simulated together again, ";
    if (p.expected_events <= 0) return line + fmt::format("{} trace events", p.events);
    line += fmt::format("{} of about {} trace events", p.events, p.expected_events);
    if (p.events <= 0 || p.events >= p.expected_events) return line + " (the estimate passed)";
    // What remains at the rate so far; an attempt after a pass apart started later than the run.
    const double share = static_cast<double>(p.events) / static_cast<double>(p.expected_events);
    return line + fmt::format(" ({:.0f}%), about {:.0f} s left", 100.0 * share, p.seconds * (1.0 - share) / share);
}

ProgressLine::ProgressLine(std::ostream& out, bool terminal, bool asked, bool quiet)
    : out_(out), terminal_(terminal), enabled_(asked || (terminal && !quiet)) {}

ProgressLine::~ProgressLine() { clear(); }

model::RunBudget::ProgressSink ProgressLine::sink() {
    if (!enabled_) return {};
    return [this](const model::RunProgress& p) { show(p); };
}

void ProgressLine::show(const model::RunProgress& p) {
    if (terminal_) {
        out_ << '\r' << progress_text(p) << "\033[K" << std::flush;
        on_screen_ = true;
        return;
    }
    if (p.seconds - last_printed_ < 5.0) return;
    last_printed_ = p.seconds;
    out_ << progress_text(p) << '\n' << std::flush;
}

void ProgressLine::clear() {
    if (!on_screen_) return;
    out_ << "\r\033[K" << std::flush;
    on_screen_ = false;
}

}  // namespace tmasim::cli
