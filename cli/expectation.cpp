#include "cli/expectation.h"

#include <cstdlib>

#include "traces/sanitizer_verdicts.h"

namespace tmasim::cli {
namespace {

std::string describe_expect(const Expectation& e) {
    std::string s = to_string(e.outcome);
    if (!e.rule.empty()) s += " " + e.rule;
    if (!e.op.empty()) s += " at op '" + e.op + "'";
    return s;
}

std::string describe_op(const Scenario& s, int id) {
    if (id < 0) return "";
    const Op* op = s.find_op(id);
    if (!op) return "#" + std::to_string(id);
    std::string text = "#" + std::to_string(id) + " " + to_string(op->kind);
    return op->label.empty() ? text : text + " (" + op->label + ")";
}

std::string describe_result(const Scenario& s, const RunResult& r) {
    std::string text = to_string(r.outcome);
    for (const Diagnostic& d : r.diagnostics) {
        if (d.outcome != r.outcome) continue;
        if (!d.rule.empty()) text += " " + d.rule;
        if (d.op >= 0) text += " at " + describe_op(s, d.op);
        break;
    }
    return text;
}

// `expect.op` is an op label, or "#id".
int resolve_op(const Scenario& s, const std::string& ref) {
    if (ref.size() > 1 && ref[0] == '#') {
        char* end = nullptr;
        long id = std::strtol(ref.c_str() + 1, &end, 10);
        if (*end == '\0') return static_cast<int>(id);
    }
    for (const Op* op : s.all_ops())
        if (op->label == ref) return op->id;
    return -1;
}

}  // namespace

ExpectationCheck check_expectation(const Scenario& s, const RunResult& r, bool on_device) {
    const Expectation& want = s.expect;
    ExpectationCheck c;
    c.expected = describe_expect(want);
    // No `expect` in the file means ok; say so, so a hazard's FAIL is not a riddle.
    if (want.loc.line == 0) c.expected += " (the scenario has no `expect`; ok is assumed)";
    c.got = describe_result(s, r);

    const std::string tool = sanitizer_tool(r);
    if (on_device && want.outcome == Outcome::hazard && !tool.empty() && r.outcome == Outcome::hazard) {
        // compute-sanitizer saw a hazard: the expectation is checked, in its own classes.
        const int id = resolve_op(s, want.op);
        bool at_op = false;
        const Diagnostic* first = nullptr;
        for (const Diagnostic& d : r.diagnostics) {
            if (!compared_finding(d)) continue;
            if (!first) first = &d;
            auto ops = d.detail.find("ops");
            if (ops != d.detail.end() && ("," + ops->second + ",").find("," + std::to_string(id) + ",") != std::string::npos)
                at_op = true;
        }
        if (first) c.notes.push_back(tool + " confirms the hazard: " + first->message);
        if (!want.rule.empty())
            c.notes.push_back("rule '" + want.rule + "' not checked: " + tool + " reports its own classes");
        if (!want.op.empty() && !at_op)
            c.notes.push_back("op '" + want.op + "' is not among the ops " + tool + "'s reports name");
        return c;
    }
    if (on_device && want.outcome == Outcome::hazard) {
        c.notes.push_back("the device cannot observe a hazard (hardware may or may not show stale bytes); "
                          "the expectation is checked on the model only");
        if (!tool.empty()) {
            const SanitizerCoverage cover = sanitizer_coverage(want.rule);
            c.notes.push_back(tool + " reported no hazard" +
                              (cover.tool.empty() ? ": it cannot see " + cover.blind_to
                               : cover.tool == tool ? std::string(", though it can see this class")
                                                    : ": " + cover.tool + " sees this class"));
        }
        c.checked = false;
        return c;
    }
    if (r.outcome != want.outcome) {
        c.passed = false;
        return c;
    }
    if (want.outcome == Outcome::ok) return c;

    std::vector<const Diagnostic*> reports;
    for (const Diagnostic& d : r.diagnostics)
        if (d.outcome == want.outcome) reports.push_back(&d);

    if (!want.rule.empty()) {
        if (on_device) {
            c.notes.push_back("rule '" + want.rule + "' not checked: the device reports no rule ids");
        } else {
            std::vector<const Diagnostic*> same_rule;
            for (const Diagnostic* d : reports)
                if (d->rule == want.rule) same_rule.push_back(d);
            if (same_rule.empty()) {
                c.passed = false;
                c.notes.push_back("no " + to_string(want.outcome) + " report with rule '" + want.rule + "'");
                return c;
            }
            reports = same_rule;
        }
    }

    if (!want.op.empty()) {
        int id = resolve_op(s, want.op);
        bool any_named = false, match = false;
        for (const Diagnostic* d : reports) {
            any_named = any_named || d->op >= 0;
            match = match || d->op == id;
        }
        if (on_device && !any_named) {
            c.notes.push_back("op '" + want.op + "' not checked: the device report names no op");
        } else if (!match) {
            c.passed = false;
            c.notes.push_back("no " + to_string(want.outcome) + " report names op '" + want.op + "' (" +
                              (id >= 0 ? describe_op(s, id) : std::string("unknown op")) + ")");
        }
    }
    return c;
}

}  // namespace tmasim::cli
