#pragma once
// Why an integer expression was refused (Expr::eval_int): overflow, division by zero, a shift
// outside 0..63, a float literal, an unknown name. Built out of line, in cold functions: with
// their strings inlined, eval_int_node's frame was 320 bytes, and it recurses on a warp's
// coroutine stack, whose lines are cold at 132 CTAs (an op's address "cta*8192 + (t+4)*64"
// went 20 lines deep into it; 80 bytes a level now).
#include <cstdint>
#include <string>

#include "scenarios/expr.h"
#include "scenarios/source_loc.h"

namespace tmasim::expr_refusals {

// Where an integer expression is evaluated, for its error messages. The text is spelt only
// when a message needs it: the model evaluates coordinates and parities per op (a full-chip
// run spelt them ~500k times, 3% of its time).
struct EvalSite {
    const Expr& expr;
    const SourceLoc& loc;
    const std::string& key_or_empty;  // the scenario key, or empty: the text stands for it
    std::string text() const { return expr.text(); }
    std::string key() const { return key_or_empty.empty() ? expr.text() : key_or_empty; }
};

// "`what` while evaluating "<text>"; allowed: results in <int64 range> (64-bit)".
[[noreturn, gnu::noinline, gnu::cold]] void overflow(const std::string& what, const EvalSite& at);
// "<a> <op> <b> overflows ...".
[[noreturn, gnu::noinline, gnu::cold]] void overflow_of(int64_t a, const std::string& op, int64_t b,
                                                       const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void negation_overflow(int64_t v, const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void division_by_zero(const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void bad_shift(int64_t b, const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void unknown_operator(const std::string& op, const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void float_literal(double value, const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void unknown_variable(const std::string& name, const EvalSite& at);
[[noreturn, gnu::noinline, gnu::cold]] void empty_expression(const SourceLoc& loc);

}  // namespace tmasim::expr_refusals
