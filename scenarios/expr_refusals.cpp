#include "scenarios/expr_refusals.h"

#include <sstream>

#include "scenarios/source_loc.h"

namespace tmasim::expr_refusals {

void overflow(const std::string& what, const EvalSite& at) {
    throw ScenarioError(at.loc, at.key(), what + " while evaluating \"" + at.text() +
                                              "\"; allowed: results in -9223372036854775808..9223372036854775807 (64-bit)");
}

void overflow_of(int64_t a, const std::string& op, int64_t b, const EvalSite& at) {
    overflow(std::to_string(a) + " " + op + " " + std::to_string(b) + " overflows", at);
}

void negation_overflow(int64_t v, const EvalSite& at) { overflow("-(" + std::to_string(v) + ") overflows", at); }

void division_by_zero(const EvalSite& at) {
    throw ScenarioError(at.loc, at.key(), "division by zero while evaluating \"" + at.text() + "\"");
}

void bad_shift(int64_t b, const EvalSite& at) {
    throw ScenarioError(at.loc, at.key(), "shift by " + std::to_string(b) + " while evaluating \"" + at.text() +
                                              "\"; allowed: shift amounts 0..63");
}

void unknown_operator(const std::string& op, const EvalSite& at) {
    throw ScenarioError(at.loc, at.key(), "unknown operator " + op);
}

void float_literal(double value, const EvalSite& at) {
    std::ostringstream os;  // as the expression text spells a float literal (text_of_float)
    os << value;
    throw ScenarioError(at.loc, at.key(), "\"" + at.text() + "\" has the non-integer " + os.str() +
                                              "; allowed: integers here");
}

void unknown_variable(const std::string& name, const EvalSite& at) {
    throw ScenarioError(at.loc, at.key(), "unknown variable '" + name + "' in \"" + at.text() + "\"");
}

void empty_expression(const SourceLoc& loc) { throw ScenarioError(loc, "expression", "empty expression evaluated"); }

}  // namespace tmasim::expr_refusals
