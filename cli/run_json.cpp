#include "cli/run_json.h"

#include "cli/diagnostic_lines.h"
#include "cli/kernel_time.h"
#include "cli/teaching.h"

namespace tmasim::cli {
namespace {

std::string verdict_text(BatchRow::Verdict v) {
    switch (v) {
    case BatchRow::Verdict::agree: return "agree";
    case BatchRow::Verdict::disagree: return "disagree";
    case BatchRow::Verdict::skipped: return "skipped";
    case BatchRow::Verdict::error: return "error";
    }
    return "error";
}

OrderedJson path_or_null(const std::string& path) { return path.empty() ? OrderedJson() : OrderedJson(path); }

}  // namespace

OrderedJson expectation_json(const ExpectationCheck& check) {
    OrderedJson j;
    j["expected"] = check.expected;
    j["got"] = check.got;
    j["passed"] = check.passed;
    j["checked"] = check.checked;
    j["notes"] = check.notes;
    return j;
}

OrderedJson single_run_json(const Scenario& scenario, const RunResult& result, const ExpectationCheck& check,
                            const std::string& trace_path, int exit_code, bool all_instances) {
    // Each diagnostic where the text output points: the line it leads with, its place as
    // numbers, why its rule exists and the fix `tmasim run` prints.
    const auto annotate = [&](const DiagnosticGroup& g, OrderedJson& d) {
        const SourceLoc place = diagnostic_place(scenario, g.first);
        d["file"] = place.file;
        d["line"] = place.line;
        d["col"] = place.col;
        d["why"] = diagnostic_why(g.first);
        d["fix"] = diagnostic_fix(scenario, g.first);
        d["headline"] = diagnostic_headline(scenario, g);
    };
    OrderedJson j = run_json(result, op_names_of(scenario), all_instances, annotate);
    j["kernel_time"] = kernel_time_json(result.provenance);
    j["status"] = "ran";
    j["summary"] = scenario.summary;
    j["expect"] = expectation_json(check);
    j["trace"] = path_or_null(trace_path);
    j["exit_code"] = exit_code;
    return j;
}

OrderedJson failed_run_json(const std::string& scenario_file, const std::string& backend, const std::string& status,
                            const std::string& why, int exit_code) {
    OrderedJson j;
    j["format"] = "tmasim-run";
    j["version"] = kRunJsonVersion;
    j["scenario_file"] = scenario_file;
    j["backend"] = backend;
    j["status"] = status;
    j["why"] = why;
    j["exit_code"] = exit_code;
    return j;
}

OrderedJson batch_json(const std::vector<BatchRow>& rows, const BatchOptions& options, int exit_code) {
    OrderedJson j;
    j["format"] = "tmasim-batch";
    j["version"] = kJsonOutputVersion;
    j["backend"] = options.backend;
    j["output_dir"] = path_or_null(options.output_dir);
    j["diff_against"] = path_or_null(options.diff_dir);
    OrderedJson list = OrderedJson::array();
    size_t counts[4] = {0, 0, 0, 0};
    for (const BatchRow& r : rows) {
        ++counts[static_cast<int>(r.verdict)];
        OrderedJson row;
        row["scenario"] = r.rel;
        row["expected"] = r.expected;
        row["got"] = r.got;
        row["verdict"] = verdict_text(r.verdict);
        row["result"] = r.result;
        row["why"] = r.why;
        row["wall_s"] = r.wall_s;
        if (r.diffed) {
            row["memory"] = r.memory;
            row["timing"] = {{"paired", r.timing_paired}, {"median_rel_err", r.timing_median},
                             {"p90_rel_err", r.timing_p90}};
        }
        if (r.sanitized) {
            OrderedJson hazards = OrderedJson::array();
            for (const HazardVerdict& v : r.hazards)
                hazards.push_back({{"verdict", to_string(v.kind)}, {"rule", v.rule}, {"op", v.op},
                                   {"where", v.where}, {"why", v.why}});
            row["hazards"] = std::move(hazards);
        }
        list.push_back(std::move(row));
    }
    j["scenarios"] = std::move(list);
    j["counts"] = {{"total", rows.size()},
                   {"agree", counts[static_cast<int>(BatchRow::Verdict::agree)]},
                   {"disagree", counts[static_cast<int>(BatchRow::Verdict::disagree)]},
                   {"skipped", counts[static_cast<int>(BatchRow::Verdict::skipped)]},
                   {"error", counts[static_cast<int>(BatchRow::Verdict::error)]}};
    j["exit_code"] = exit_code;
    return j;
}

}  // namespace tmasim::cli
