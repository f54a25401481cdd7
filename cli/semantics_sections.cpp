#include "cli/semantics_sections.h"

#include <cctype>
#include <sstream>

namespace tmasim::cli {
namespace semantics_sections_detail {

// The id a line opens a section with ("**B12. ..." -> "B12"), or "".
std::string section_opened(const std::string& line) {
    if (line.rfind("**", 0) != 0) return "";
    size_t i = 2;
    if (i >= line.size() || !std::isupper(static_cast<unsigned char>(line[i]))) return "";
    ++i;
    const size_t digits = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == digits || i >= line.size() || line[i] != '.') return "";
    return line.substr(2, i - 2);
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace semantics_sections_detail

using namespace semantics_sections_detail;

bool looks_like_section_id(const std::string& text) {
    if (text.size() < 2 || text.size() > 6 || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
    for (size_t i = 1; i < text.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    return true;
}

std::optional<std::string> semantics_section(const std::string& doc, const std::string& id) {
    const std::string wanted = upper(id);
    std::istringstream in(doc);
    std::string text;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        const std::string opened = section_opened(line);
        if (inside && (!opened.empty() || line.rfind('#', 0) == 0)) break;
        if (!inside && opened == wanted) inside = true;
        if (inside) text += line + '\n';
    }
    if (!inside) return std::nullopt;
    while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
    return text;
}

std::vector<std::string> semantics_section_ids(const std::string& doc) {
    std::vector<std::string> ids;
    std::istringstream in(doc);
    for (std::string line; std::getline(in, line);)
        if (std::string id = section_opened(line); !id.empty()) ids.push_back(id);
    return ids;
}

}  // namespace tmasim::cli
