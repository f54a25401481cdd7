#pragma once
// The sections of docs/semantics.md, the rule reference every diagnostic cites by a
// letter-number id ("docs/semantics.md B12"), so `tmasim explain B12` can print the one a
// diagnostic names. A section is the paragraph that starts "**B12. Title.**" and the lines
// after it, up to the next section or heading.
#include <optional>
#include <string>
#include <vector>

namespace tmasim::cli {

// "B12", "b12": a letter and a number, the shape of a section id (whether or not it exists).
bool looks_like_section_id(const std::string& text);

// The section's text (its lines as the document has them, trailing blank lines dropped),
// or nullopt when `doc` has no section `id` (compared without case).
std::optional<std::string> semantics_section(const std::string& doc, const std::string& id);

// Every section id of `doc`, in document order.
std::vector<std::string> semantics_section_ids(const std::string& doc);

}  // namespace tmasim::cli
