#pragma once
// The progress line of a long model run (issue 40): on stderr, from the run's fifth second,
// once a second, work done and an estimate of what remains. On a terminal it is one line
// rewritten in place and cleared when the run ends, so the run's own output is unchanged;
// piped, it is printed only when asked (tmasim run --progress), a line every five seconds.
#include <ostream>

#include "model/core/run_budget.h"

namespace tmasim::cli {

class ProgressLine {
public:
    // `terminal`: stderr is one (isatty); `asked`: --progress; `quiet`: -q, which silences
    // the line on a terminal too unless it was asked for.
    ProgressLine(std::ostream& out, bool terminal, bool asked, bool quiet);
    ~ProgressLine();  // clears a line left on the terminal
    // The sink for ModelOptions::progress; empty when no line is to be shown.
    model::RunBudget::ProgressSink sink();
    void clear();

private:
    void show(const model::RunProgress& p);

    std::ostream& out_;
    bool terminal_;
    bool enabled_;
    bool on_screen_ = false;
    double last_printed_ = -1e9;
};

// "model run 12 s: 312000 of about 575000 trace events (54%), about 10 s left"
std::string progress_text(const model::RunProgress& p);

}  // namespace tmasim::cli
