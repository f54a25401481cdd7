// tmasim explain [ID]: what a rule id means, why it exists and how to fix a report of it;
// for a section id of docs/semantics.md (B12, as every diagnostic's `see:` cites it), that
// section; without ID, every rule id with its outcome and statement.
#include <cctype>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/doc_paths.h"
#include "cli/io/printable.h"
#include "cli/semantics_sections.h"
#include "cli/teaching.h"
#include "model/core/rule_help.h"

namespace tmasim::cli {
namespace {

constexpr const char* kSemantics = "docs/semantics.md";

// The section, headed by where it is and followed by the rule ids that cite it.
int print_section(const std::string& text, const std::string& id, std::ostream& out) {
    std::string rules;
    for (const model::RuleHelp& help : model::RuleHelpTable::all())
        if (help.section == id) rules += (rules.empty() ? "" : ", ") + help.id;
    out << cite_docs(std::string(kSemantics) + " " + id) << ":\n\n" << text;
    if (!rules.empty()) out << '\n' << wrap_text("rule ids citing it: " + rules, 4) << '\n';
    return kOk;
}

}  // namespace

void add_explain_command(CLI::App& app, Action& action) {
    auto id = std::make_shared<std::string>();
    CLI::App* sub = app.add_subcommand(
        "explain", "Explain a rule id of the model's reports, or print a section of docs/semantics.md (no ID: list "
                   "the rule ids)");
    sub->add_option("id", *id, "A rule id, e.g. proxy.generic_to_async, or a section id a diagnostic cites, e.g. B12");
    sub->callback([&action, id] {
        action = [id]() -> int {
            if (id->empty()) {
                print_rule_list(std::cout);
                return kOk;
            }
            if (print_rule_explanation(*id, std::cout)) return kOk;
            std::string where;
            const std::optional<std::string> doc = read_doc(kSemantics, where);
            std::string sections;
            if (doc) {
                for (const std::string& s : semantics_section_ids(*doc)) sections += (sections.empty() ? "" : " ") + s;
                if (looks_like_section_id(*id))
                    if (const auto text = semantics_section(*doc, *id)) {
                        std::string upper = *id;
                        upper[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[0])));
                        return print_section(*text, upper, std::cout);
                    }
            }
            std::cerr << "tmasim: error: explain: unknown " << (looks_like_section_id(*id) ? "section" : "rule")
                      << " id '" << printable_line(*id)
                      << "'; allowed: a rule id (`tmasim explain` lists them) or a section id of " << kSemantics
                      << (doc ? " (" + sections + ")" : " (which could not be read at " + where + ")") << '\n';
            return kBadInput;
        };
    });
}

}  // namespace tmasim::cli
