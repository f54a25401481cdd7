#include "cli/sweep_template.h"

#include <cerrno>
#include <cctype>
#include <cstdlib>

namespace tmasim::cli {
namespace {

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string joined(const std::set<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "(none)" : out;
}

}  // namespace

bool parse_int_value(const std::string& text, int64_t& out) {
    if (text.empty() || text.size() > 20) return false;
    const size_t digits_from = text[0] == '-' || text[0] == '+' ? 1 : 0;
    if (digits_from == text.size()) return false;
    // "010": the scenario loader refuses leading zeros (octal to C), so expressions do too.
    if (text.size() > digits_from + 1 && text[digits_from] == '0') return false;
    for (size_t i = digits_from; i < text.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || *end != '\0') return false;
    out = v;
    return true;
}

SweepTemplate SweepTemplate::parse(const std::string& text, const std::string& file) {
    SweepTemplate t;
    t.file_ = file;
    Piece current;
    int line = 1, col = 1;
    size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 2, "${") != 0) {
            current.literal += text[i];
            if (text[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
            ++i;
            continue;
        }
        const SourceLoc at{file, line, col};
        const size_t close = text.find_first_of("}\n", i + 2);
        if (close == std::string::npos || text[close] != '}')
            throw ScenarioError(at, "${", "a reference without its closing } on the same line; allowed: ${name} or "
                                          "${integer expression over the parameters}");
        const std::string inner = trim(text.substr(i + 2, close - i - 2));
        current.ref_text = text.substr(i, close - i + 1);
        if (inner.empty()) throw ScenarioError(at, current.ref_text, "an empty reference; allowed: ${name}");
        current.has_ref = true;
        current.line = line;
        current.col = col;
        if (is_identifier(inner))
            current.name = inner;
        else
            current.expr = Expr::parse(inner, at, current.ref_text);
        t.pieces_.push_back(std::move(current));
        current = Piece{};
        col += static_cast<int>(close - i + 1);
        i = close + 1;
    }
    t.pieces_.push_back(std::move(current));
    return t;
}

std::set<std::string> SweepTemplate::names() const {
    std::set<std::string> out;
    for (const Piece& p : pieces_) {
        if (!p.has_ref) continue;
        if (!p.name.empty()) out.insert(p.name);
        else
            for (const std::string& v : p.expr.variables()) out.insert(v);
    }
    return out;
}

void SweepTemplate::require_known(const std::set<std::string>& params) const {
    for (const Piece& p : pieces_) {
        if (!p.has_ref) continue;
        const std::vector<std::string> used = p.name.empty() ? p.expr.variables() : std::vector<std::string>{p.name};
        for (const std::string& name : used)
            if (!params.count(name))
                throw ScenarioError(SourceLoc{file_, p.line, p.col}, p.ref_text,
                                    "'" + name + "' is not a parameter of the sweep; allowed: " + joined(params));
    }
}

std::string SweepTemplate::expand(const std::map<std::string, std::string>& values) {
    shifts_.clear();
    std::string out;
    for (const Piece& p : pieces_) {
        out += p.literal;
        if (!p.has_ref) continue;
        const SourceLoc at{file_, p.line, p.col};
        std::string value;
        if (!p.name.empty()) {
            value = values.at(p.name);
        } else {
            Expr::IntEnv env;
            for (const std::string& name : p.expr.variables()) {
                int64_t v = 0;
                if (!parse_int_value(values.at(name), v))
                    throw ScenarioError(at, p.ref_text, "parameter " + name + " is \"" + values.at(name) +
                                                            "\" here, not an integer; allowed in an expression: "
                                                            "integer parameters (use ${" + name + "} for its text)");
                env[name] = v;
            }
            value = std::to_string(p.expr.eval_int(env));
        }
        shifts_.push_back({p.line, p.col, static_cast<int>(p.ref_text.size()), static_cast<int>(value.size())});
        out += value;
    }
    return out;
}

int SweepTemplate::to_template_col(int line, int col) const {
    int moved = 0;  // how far the point's text on this line has moved right so far
    for (const Shift& s : shifts_) {
        if (s.line != line) continue;
        const int start = s.col + moved;
        if (col < start) break;
        if (col < start + s.new_len) return s.col;  // inside a replaced value: its reference
        moved += s.new_len - s.old_len;
    }
    return col - moved;
}

}  // namespace tmasim::cli
