// Batch mode: find the scenarios, run each one on its own (device runs in a child process
// each, so a fault or a hang ends that run only), write and diff its trace.
#include "cli/batch_run.h"
#include "cli/scenario_load.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/batch_parallel.h"
#include "cli/device_child.h"
#include "cli/expectation.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "cli/io/printable.h"
#include "cli/run_json.h"
#include "cli/sanitize_run.h"
#include "device/launch/device_unavailable.h"
#include "scenarios/loader.h"
#include "traces/trace_diff.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {
namespace fs = std::filesystem;
namespace {

bool under_invalid(const fs::path& rel) {
    for (const fs::path& part : rel)
        if (part == "invalid") return true;
    return false;
}

// "guide/a.yaml" -> DIR/guide/a.jsonl
std::string trace_path(const std::string& dir, const std::string& rel) {
    return (fs::path(dir) / fs::path(rel).replace_extension(".jsonl")).string();
}

// The run itself: a RunResult, or the row says why there is none.
bool run_scenario(const Scenario& s, const BatchOptions& o, BatchRow& row, RunResult& result) {
    try {
        if (!o.sanitize.empty()) {
            SanitizedRun run = run_sanitized(s, o.device, o.sanitize, o.sanitizer);
            result = std::move(run.result);
            if (!o.output_dir.empty()) {
                const std::string path = sanitizer_report_path(trace_path(o.output_dir, row.rel), o.sanitize);
                fs::create_directories(fs::path(path).parent_path());
                write_text_output(path, run.report);
            }
            return true;
        }
        result = o.backend == "device" ? run_device_isolated(s, o.device) : run_model(s, o.model);
        return true;
    } catch (const device::DeviceUnavailable& e) {
        row.verdict = BatchRow::Verdict::skipped;
        row.result = "skipped";
        row.why = printable_line(e.what());
    } catch (const std::exception& e) {
        row.verdict = BatchRow::Verdict::error;
        row.result = "error";
        row.why = printable_line(e.what());
    }
    return false;
}

// Diffs against DIR/<rel>.jsonl, the reference as A when this run is the device's (the
// device is the timing reference B either way).
void diff_against(const Scenario& s, const RunResult& result, const OpNames& names, const BatchOptions& o,
                  BatchRow& row) {
    row.diffed = true;
    const std::string ref_path = trace_path(o.diff_dir, row.rel);
    if (!fs::exists(ref_path)) {
        row.memory = "no reference";
        return;
    }
    const TraceFile ref = read_trace_file(ref_path);
    DiffOptions options;
    options.op_names = names;
    options.element_types = element_types_of(s);
    options.compares = image_compares_of(s);
    options.op_names.insert(ref.op_names.begin(), ref.op_names.end());
    const bool device = o.backend == "device";
    const DiffReport report = device ? diff_traces(ref.result, result, options)
                                     : diff_traces(result, ref.result, options);
    row.memory = report.memory_match() ? "match" : "DIFFER";
    if (row.sanitized && ref.result.provenance.backend == "model") row.hazards = report.hazards;
    row.timing_median = report.events.median;
    row.timing_p90 = report.events.p90;
    row.timing_paired = report.events.paired;
    // Both ran ok, as expected: then the bytes must agree too.
    if (s.expect.outcome == Outcome::ok && report.outcome_a == Outcome::ok &&
        report.outcome_b == Outcome::ok && !report.memory_match() && row.verdict == BatchRow::Verdict::agree) {
        row.verdict = BatchRow::Verdict::disagree;
        row.result = "FAIL";
        row.why = "final memory differs from " + ref_path + " (tmasim diff shows where)";
    }
}

// A number the run put in its provenance; -1 where it put none.
int64_t extra_int(const Provenance& p, const std::string& key) {
    const auto it = p.extra.find(key);
    if (it == p.extra.end()) return -1;
    try {
        return std::stoll(it->second);
    } catch (const std::exception&) {
        return -1;
    }
}

// The scenario's `expect` as the model's verdict, when no model trace is at hand: a hazard to
// compare, or the hang or fault where the model's run stops.
std::vector<Diagnostic> expected_hazards(const Scenario& s) {
    if (s.expect.outcome == Outcome::ok) return {};
    Diagnostic d;
    d.outcome = s.expect.outcome;
    d.rule = s.expect.rule;
    for (const Op* op : s.all_ops())
        if (!s.expect.op.empty() && (op->label == s.expect.op || "#" + std::to_string(op->id) == s.expect.op))
            d.op = op->id;
    return {d};
}

// A device batch on a machine where no device run can happen (no driver, no GPU): one
// message, every scenario skipped with that reason and none started, then the count line (or
// the JSON document); the exit code is what a batch of skips always had (batch_exit_code: 2).
int skip_whole_batch(const std::vector<BatchInput>& inputs, const BatchOptions& o, const std::string& why) {
    std::vector<BatchRow> rows(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        rows[i].rel = inputs[i].rel;
        rows[i].verdict = BatchRow::Verdict::skipped;
        rows[i].result = "skipped";
        rows[i].why = printable_line(why);
        rows[i].sanitized = !o.sanitize.empty();
    }
    const int code = batch_exit_code(rows);
    (o.json ? std::cerr : std::cout) << "tmasim: no device run can happen here, so all " << inputs.size()
                                     << " scenarios are skipped: " << printable_line(why) << '\n';
    if (o.json)
        std::cout << dump_json(batch_json(rows, o, code)) << '\n';
    else
        std::cout << verdict_counts(rows, "scenarios") << '\n';
    return code;
}

}  // namespace

std::vector<BatchInput> collect_scenarios(const std::vector<std::string>& args) {
    std::vector<BatchInput> inputs;
    for (const std::string& arg : args) {
        const fs::path root(arg);
        if (fs::is_directory(root)) {
            std::vector<BatchInput> found;
            for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
                const fs::path rel = it->path().lexically_relative(root);
                if (it->is_directory() && rel.filename() == "invalid") {
                    it.disable_recursion_pending();
                    continue;
                }
                if (it->is_regular_file() && it->path().extension() == ".yaml" && !under_invalid(rel))
                    found.push_back({it->path().string(), rel.generic_string()});
            }
            std::sort(found.begin(), found.end(), [](const BatchInput& a, const BatchInput& b) { return a.rel < b.rel; });
            inputs.insert(inputs.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(root)) {
            inputs.push_back({root.string(), root.filename().string()});
        } else {
            throw std::invalid_argument(arg + ": no such file or directory");
        }
    }
    std::map<std::string, std::string> seen;
    for (const BatchInput& in : inputs) {
        auto [it, fresh] = seen.emplace(in.rel, in.path);
        if (!fresh)
            throw std::invalid_argument("two scenarios would share the trace name " + in.rel + ": " + it->second +
                                        " and " + in.path + "; pass their directory instead");
    }
    return inputs;
}

BatchRow run_one(const BatchInput& input, const BatchOptions& o) {
    BatchRow row;
    row.rel = input.rel;
    row.sanitized = !o.sanitize.empty();
    const auto start = std::chrono::steady_clock::now();
    auto finish = [&]() -> BatchRow {
        row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return row;
    };

    Scenario s;
    try {
        s = load_bound_scenario(input.path);
    } catch (const std::exception& e) {
        row.result = "error";
        row.why = printable_line(e.what());
        return finish();
    }
    row.expected = to_string(s.expect.outcome);

    RunResult result;
    if (!run_scenario(s, o, row, result)) return finish();
    row.got = to_string(result.outcome);
    row.kernel_cycles = extra_int(result.provenance, "kernel_span_cycles");
    row.kernel_ns = extra_int(result.provenance, "kernel_span_ns");

    const bool on_device = o.backend == "device";
    const ExpectationCheck check = check_expectation(s, result, on_device);
    row.verdict = check.passed ? BatchRow::Verdict::agree : BatchRow::Verdict::disagree;
    row.result = !check.passed ? "FAIL" : check.checked ? "PASS" : "not checked";
    if (!check.passed) row.why = "expected " + check.expected + ", got " + check.got;
    for (const std::string& note : check.notes) row.why += (row.why.empty() ? "" : "; ") + note;

    const OpNames names = op_names_of(s);
    if (row.sanitized) row.hazards = compare_hazards(expected_hazards(s), result, names);
    try {
        if (!o.output_dir.empty()) {
            const std::string path = trace_path(o.output_dir, row.rel);
            fs::create_directories(fs::path(path).parent_path());
            write_trace_output(result, path, names, o.trace_write);
        }
        if (!o.diff_dir.empty()) diff_against(s, result, names, o, row);
    } catch (const std::exception& e) {
        row.verdict = BatchRow::Verdict::error;
        row.result = "error";
        row.why = printable_line(e.what());
    }
    for (const HazardVerdict& v : row.hazards) {
        if (v.kind == HazardVerdict::Kind::not_ptx_rule || v.kind == HazardVerdict::Kind::not_reached)
            row.why += (row.why.empty() ? "" : "; ") + std::string(verdict_head(v.kind)) + ": " + v.why;
        if (v.kind != HazardVerdict::Kind::sanitizer_only) continue;
        if (row.verdict == BatchRow::Verdict::agree) {
            row.verdict = BatchRow::Verdict::disagree;
            row.result = "FAIL";
        }
        row.why += (row.why.empty() ? "" : "; ") + std::string("sanitizer only (a model gap): ") + v.why;
    }
    return finish();
}

void check_batch_outputs(const std::vector<BatchInput>& inputs, const BatchOptions& o) {
    OutputGuard guard;
    for (const BatchInput& in : inputs) add_scenario_inputs(guard, in.path, "a scenario of the batch");
    if (o.backend == "model") add_arch_inputs(guard, o.model.arch);
    // Every trace there, whether or not a scenario of this batch names it: `-o ref
    // --diff-against ref` would replace the references and then compare the traces with themselves.
    guard.input_folder(o.diff_dir, "the --diff-against references");
    if (!o.output_dir.empty()) {
        guard.output_folder(o.output_dir, "--output");
        for (const BatchInput& in : inputs) {
            const std::string path = trace_path(o.output_dir, in.rel);
            add_trace_output(guard, path, "--output", OutputGuard::Kind::file_in_new_folder);
            if (!o.sanitize.empty())
                guard.output(sanitizer_report_path(path, o.sanitize), "--output (a sanitizer's report)",
                             OutputGuard::Kind::file_in_new_folder);
        }
    }
    guard.check();
}

int run_batch(const std::vector<BatchInput>& inputs, const BatchOptions& o) {
    check_batch_outputs(inputs, o);
    // Asked once: without a driver or GPU every child would start only to say so. Under
    // --sanitize compute-sanitizer runs each scenario, and its run says what it lacks.
    if (o.backend == "device" && o.sanitize.empty() && !inputs.empty())
        if (const std::string why = device_unavailable_here(); !why.empty()) return skip_whole_batch(inputs, o, why);
    // With --json, stdout holds the document alone; progress goes to stderr.
    std::ostream& progress = o.json ? std::cerr : std::cout;
    std::set<std::string> skip_reasons_shown;
    // The device's timings would suffer from runs sharing a GPU: -j spreads a device batch over
    // the visible GPUs, one worker on each, never more workers than GPUs.
    BatchOptions spread = o;
    int jobs = o.jobs;
    if (o.backend == "device") {
        const std::vector<std::string> gpus = visible_gpus(std::getenv("CUDA_VISIBLE_DEVICES"));
        jobs = std::max(1, std::min(o.jobs, static_cast<int>(gpus.size())));
        if (jobs > 1) spread.worker_gpus.assign(gpus.begin(), gpus.begin() + jobs);
        if (o.jobs > jobs && !o.quiet)
            progress << fmt::format("-j {}: {} GPU{} visible, one worker per GPU: {} worker{}\n", o.jobs, gpus.size(),
                                    gpus.size() == 1 ? "" : "s", jobs, jobs == 1 ? "" : "s");
    }
    const std::vector<BatchRow> rows = run_rows(inputs, spread, jobs, [&](size_t i, const BatchRow& r) {
        if (o.quiet) return;
        progress << fmt::format("[{}/{}] {}: {} {} ({:.2f} s)\n", i + 1, inputs.size(), r.rel, r.got, r.result,
                                r.wall_s);
        // One reason (no CUDA driver, say) skips every scenario alike: say it once.
        const bool repeated_skip =
            r.verdict == BatchRow::Verdict::skipped && !skip_reasons_shown.insert(r.why).second;
        if (!r.why.empty() && !repeated_skip) progress << "        " << r.why << '\n';
        progress.flush();
    });
    const int code = batch_exit_code(rows);
    if (o.json) {
        std::cout << dump_json(batch_json(rows, o, code)) << '\n';
        return code;
    }
    std::cout << '\n';
    print_batch_table(rows, !o.diff_dir.empty(), std::cout);
    return code;
}

}  // namespace tmasim::cli
