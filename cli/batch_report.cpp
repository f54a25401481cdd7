// The batch summary: one row per scenario, then "N scenarios: A agree, B disagree,
// C skipped", and the exit code that follows from the rows (batch_run.h has the policy).
#include <algorithm>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/doc_paths.h"

namespace tmasim::cli {
namespace {

std::string pct(double v) { return fmt::format("{:.0f}%", v * 100.0); }

std::string timing_text(const BatchRow& r) {
    if (!r.diffed || r.memory == "no reference" || r.timing_paired == 0) return "-";
    return pct(r.timing_median) + "/" + pct(r.timing_p90);
}

}  // namespace

void print_batch_table(const std::vector<BatchRow>& rows, bool diffed, std::ostream& out) {
    size_t name_w = 8;
    for (const BatchRow& r : rows) name_w = std::max(name_w, r.rel.size());
    auto row_text = [&](const std::string& name, const std::string& expected, const std::string& got,
                        const std::string& result, const std::string& wall, const std::string& memory,
                        const std::string& timing, const std::string& why) {
        std::string text = fmt::format("{:<{}}  {:<8}  {:<6}  {:<11}  {:>7}", name, name_w, expected, got, result, wall);
        if (diffed) text += fmt::format("  {:<12}  {:<14}", memory, timing);
        if (!why.empty()) text += "  " + why;
        while (!text.empty() && text.back() == ' ') text.pop_back();
        return text + "\n";
    };
    out << row_text("scenario", "expected", "got", "result", "wall", "memory", "timing med/p90", "why");
    // A reason that skips many scenarios (no CUDA driver) is given once, then "as above".
    std::set<std::string> skip_reasons;
    for (const BatchRow& r : rows) {
        std::string why = r.result == "PASS" ? "" : cite_docs(r.why);  // an installed copy's path
        if (r.verdict == BatchRow::Verdict::skipped && !why.empty() && !skip_reasons.insert(why).second)
            why = "(as above)";
        out << row_text(r.rel, r.expected, r.got, r.result, fmt::format("{:.2f}s", r.wall_s),
                        r.diffed ? r.memory : "-", timing_text(r), why);
    }

    out << verdict_counts(rows, "scenarios") << '\n';
    // Under --sanitize: the hazards of every row, model against sanitizer (last line).
    if (std::any_of(rows.begin(), rows.end(), [](const BatchRow& r) { return r.sanitized; })) {
        HazardCounts counts;
        for (const BatchRow& r : rows) counts.add(r.hazards);
        out << counts_line(counts) << '\n';
    }
}

std::string verdict_counts(const std::vector<BatchRow>& rows, const std::string& what) {
    size_t agree = 0, disagree = 0, skipped = 0, errors = 0;
    for (const BatchRow& r : rows) {
        switch (r.verdict) {
        case BatchRow::Verdict::agree: ++agree; break;
        case BatchRow::Verdict::disagree: ++disagree; break;
        case BatchRow::Verdict::skipped: ++skipped; break;
        case BatchRow::Verdict::error: ++errors; break;
        }
    }
    std::string text = fmt::format("{} {}: {} agree, {} disagree, {} skipped", rows.size(), what, agree, disagree,
                                   skipped);
    if (errors > 0) text += fmt::format(", {} error{}", errors, errors == 1 ? "" : "s");
    return text;
}

int batch_exit_code(const std::vector<BatchRow>& rows) {
    bool any_disagree = false, any_error = false, any_ran = false;
    for (const BatchRow& r : rows) {
        any_disagree = any_disagree || r.verdict == BatchRow::Verdict::disagree;
        any_error = any_error || r.verdict == BatchRow::Verdict::error;
        any_ran = any_ran || r.verdict == BatchRow::Verdict::agree || r.verdict == BatchRow::Verdict::disagree;
    }
    if (any_disagree) return kMismatch;
    if (any_error || !any_ran) return kBadInput;
    return kOk;
}

}  // namespace tmasim::cli
