#include "cli/teaching.h"

#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "cli/doc_paths.h"
#include "model/core/hazard_rules.h"
#include "model/core/rule_help.h"

namespace tmasim::cli {
namespace {

constexpr size_t kLabelWidth = 13;  // "diagnostics: " and the summary's other labels

void labelled(std::ostream& out, const std::string& label, const std::string& text) {
    const std::string head = label + ":";
    out << head << std::string(head.size() < kLabelWidth ? kLabelWidth - head.size() : 1, ' ')
        << wrap_text(cite_docs(text), kLabelWidth) << '\n';  // the installed copy's path, where installed
}

std::string op_where(const Scenario& s, int id) {
    const Op* op = id >= 0 ? s.find_op(id) : nullptr;
    if (!op) return "";
    std::string text = fmt::format("{} (op #{} {}", op->loc.str(), id, to_string(op->kind));
    if (!op->label.empty()) text += ", '" + op->label + "'";
    return text + ")";
}

std::string see_also(const std::string& id, const std::string& section) {
    std::string text = section.empty() ? "" : "docs/semantics.md " + section + "; ";
    return text + "tmasim explain " + id;
}

std::string op_ref(const Op& op) {
    std::string text = fmt::format("op #{} {}", op.id, to_string(op.kind));
    if (!op.label.empty()) text += " '" + op.label + "'";
    return text + fmt::format(" (line {})", op.loc.line);
}

bool is_sync_point(OpKind k) {
    return k == OpKind::sync || k == OpKind::mbarrier_wait || k == OpKind::cluster_sync || k == OpKind::cluster_wait;
}

// proxy.generic_to_async in this scenario's own terms: the writer ops the model named, the
// sync that hands their bytes to the issuing thread, and a fence.proxy.async that is present
// but sits before that sync (it cannot see those writes). Program order stands in for the
// causal path, which holds for the straight-line and loop-free kernels the catalog teaches.
std::string proxy_fence_fix(const Scenario& s, const Diagnostic& d) {
    const Op* reader = s.find_op(d.op);
    const auto writers_it = d.detail.find("writer_ops");
    if (!reader || writers_it == d.detail.end()) return "";
    const Op* writer = nullptr;
    std::stringstream ids(writers_it->second);
    for (std::string id; std::getline(ids, id, ',');) {
        const Op* w = s.find_op(std::stoi(id));
        if (w && w->id < reader->id && (!writer || w->id > writer->id)) writer = w;
    }
    if (!writer) return "";
    const Op* sync = nullptr;
    const Op* fence_before = nullptr;
    const Op* fence_after = nullptr;
    for (const Op* op : s.all_ops()) {
        if (op->id <= writer->id || op->id >= reader->id) continue;
        if (is_sync_point(op->kind)) sync = op;
        if (op->kind == OpKind::fence_proxy_async) (sync ? fence_after : fence_before) = op;
    }
    const auto threads = d.detail.find("writer_threads");
    const std::string who = threads == d.detail.end() ? "the writing threads" : "threads " + threads->second;
    if (!sync)
        return fmt::format("Add {{op: fence.proxy.async}} after {} in {}, before {}.", op_ref(*writer), who,
                           op_ref(*reader));
    std::string fix;
    if (fence_before && !fence_after)
        fix = fmt::format("{} is there but runs before {}, the sync that brings the writes of {} to the issuing "
                          "thread: a fence covers only writes its thread can already see. ",
                          op_ref(*fence_before), op_ref(*sync), who);
    return fix + fmt::format("Add {{op: fence.proxy.async}} after {} in {}, before {}; or {} the issuing thread "
                             "after {} and before {}.",
                             op_ref(*writer), who, op_ref(*sync), fence_before ? "move that fence into" : "fence in",
                             op_ref(*sync), op_ref(*reader));
}

// The rule's general fix, or one naming this scenario's ops where the model gave enough detail.
std::string fix_for(const Scenario& s, const Diagnostic& d, const model::RuleHelp& help) {
    if (d.rule == "proxy.generic_to_async") {
        const std::string concrete = proxy_fence_fix(s, d);
        if (!concrete.empty()) return concrete;
    }
    return help.fix;
}

}  // namespace

std::string diagnostic_why(const Diagnostic& d) {
    const model::RuleHelp* help = model::RuleHelpTable::find(d.rule);
    return help ? help->why : "";
}

std::string diagnostic_fix(const Scenario& s, const Diagnostic& d) {
    const model::RuleHelp* help = model::RuleHelpTable::find(d.rule);
    return help ? fix_for(s, d, *help) : "";
}

std::string wrap_text(const std::string& text, size_t indent, size_t width) {
    std::istringstream words(text);
    std::string word, out;
    size_t column = indent;
    bool first = true;
    while (words >> word) {
        if (!first && column + 1 + word.size() > width) {
            out += '\n' + std::string(indent, ' ');
            column = indent;
        } else if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        first = false;
    }
    return out;
}

void print_teaching(const Scenario& s, const RunResult& r, std::ostream& out) {
    if (!s.summary.empty()) labelled(out, "about", s.summary);
    std::set<std::pair<std::string, int>> shown;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.rule.empty() || !shown.insert({d.rule, d.op}).second) continue;
        const model::RuleHelp* help = model::RuleHelpTable::find(d.rule);
        out << '\n';
        std::string rule_line = d.rule;
        try {
            rule_line += ": " + model::HazardRules::get(d.rule).statement;
        } catch (const std::out_of_range&) {
            // A rule id outside the table (a device-side report): the id alone.
        }
        labelled(out, "rule", rule_line);
        const std::string where = op_where(s, d.op);
        if (!where.empty()) labelled(out, "at", where);
        if (d.rule.rfind("sanitizer.", 0) == 0) {  // compute-sanitizer's finding, not a model rule
            labelled(out, "see", "docs/semantics.md H40 (what compute-sanitizer confirms, and what it cannot see)");
            continue;
        }
        if (help) {
            labelled(out, "why", help->why);
            labelled(out, "fix", fix_for(s, d, *help));
        }
        labelled(out, "see", see_also(d.rule, help ? help->section : ""));
    }
}

bool print_rule_explanation(const std::string& id, std::ostream& out) {
    const model::HazardRule* rule = nullptr;
    for (const model::HazardRule& r : model::HazardRules::all())
        if (r.id == id) rule = &r;
    if (!rule) return false;
    const model::RuleHelp* help = model::RuleHelpTable::find(id);
    labelled(out, "rule", rule->id);
    labelled(out, "outcome", to_string(rule->outcome));
    labelled(out, "statement", rule->statement);
    if (help) {
        labelled(out, "why", help->why);
        labelled(out, "fix", help->fix);
    }
    labelled(out, "reference", rule->reference);
    if (help && !help->section.empty()) labelled(out, "read", "docs/semantics.md " + help->section);
    return true;
}

void print_rule_list(std::ostream& out) {
    for (const model::HazardRule& r : model::HazardRules::all())
        out << fmt::format("{:<40} {:<7} {}\n", r.id, to_string(r.outcome), r.statement);
}

}  // namespace tmasim::cli
