#include "cli/teaching.h"

#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/rule_help.h"

namespace tmasim::cli {
namespace {

constexpr size_t kLabelWidth = 13;  // "diagnostics: " and the summary's other labels

void labelled(std::ostream& out, const std::string& label, const std::string& text) {
    const std::string head = label + ":";
    out << head << std::string(head.size() < kLabelWidth ? kLabelWidth - head.size() : 1, ' ')
        << wrap_text(text, kLabelWidth) << '\n';
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

}  // namespace

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
        if (help) {
            labelled(out, "why", help->why);
            labelled(out, "fix", help->fix);
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
