#pragma once
// The text of a sweep's template scenario with its `${...}` references (sweep_expand.h).
// A reference is replaced in the text before the point is loaded, so the point is then
// loaded and validated by the ordinary scenario loader: `${name}` by the parameter's value
// as written, `${expression}` by the integer the expression gives over the parameters.
// A reference stays on one line and a value holds no newline, so a point's line numbers are
// the template's; to_template_col maps a point's column back for error messages.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "scenarios/expr.h"
#include "scenarios/source_loc.h"

namespace tmasim::cli {

class SweepTemplate {
public:
    // Throws ScenarioError at the reference for an unclosed or empty `${`, or an
    // expression that does not parse.
    static SweepTemplate parse(const std::string& text, const std::string& file);

    // Every parameter a reference names (directly or in an expression).
    std::set<std::string> names() const;
    // Throws ScenarioError at the first reference naming something not in `params`.
    void require_known(const std::set<std::string>& params) const;

    // A point's text. `values`: parameter -> value as written. An expression over a value
    // that is not an integer throws ScenarioError at the reference; so do overflow and
    // division by zero. Records where the text moved, for to_template_col.
    std::string expand(const std::map<std::string, std::string>& values);
    // The template's column (1-based) of a point's line:col, for the last expand().
    int to_template_col(int line, int col) const;

    const std::string& file() const { return file_; }

private:
    struct Piece {
        std::string literal;  // text before the reference (all of it for the last piece)
        bool has_ref = false;
        std::string name;     // ${name}
        Expr expr;            // ${expression}: set when name is empty
        std::string ref_text; // "${...}" as written
        int line = 0, col = 0;
    };
    struct Shift {
        int line, col;        // the reference in the template (1-based)
        int old_len, new_len;
    };
    std::vector<Piece> pieces_;
    std::vector<Shift> shifts_;
    std::string file_;
};

// Parses a value as an int64 ("12", "-3"); false for anything else ("128B", "1.5").
bool parse_int_value(const std::string& text, int64_t& out);

}  // namespace tmasim::cli
