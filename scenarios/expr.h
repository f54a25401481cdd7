#pragma once
// Expressions in scenarios: integer expressions over loop variables ("i*32", "(i/2)%2")
// and element-wise value expressions for `compute` ("x + 1"). Both are parsed into one
// AST and re-emitted as C++ by the device backend, so generated CUDA never contains text
// copied from the YAML.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "scenarios/source_loc.h"

namespace tmasim {

struct ExprNode;

// Expressions longer than this, or nested deeper (parentheses, unary signs), are refused
// at parse time: the parser and the tree walks recurse.
constexpr size_t kMaxExprLength = 1024;
constexpr int kMaxExprDepth = 64;

class Expr {
public:
    Expr() = default;  // empty: "not given"
    static Expr constant(int64_t v);
    // Throws ScenarioError (at `loc`, naming `key`) on a syntax error.
    static Expr parse(const std::string& text, const SourceLoc& loc, const std::string& key);

    bool empty() const { return !root_; }
    bool is_constant() const;
    bool has_float_literal() const;  // "64.5": refused where an integer is meant
    // Variables the expression names, in first-use order.
    std::vector<std::string> variables() const;
    // How many `/` and `%` have an operand that depends on one of `names` (what the generated
    // kernel computes at run time; the rest folds at compile time).
    int divisions_of(const std::vector<std::string>& names) const;

    // Integer evaluation (C semantics: truncating division). Division by zero, overflow,
    // shifts outside 0..63 and float literals throw ScenarioError at the expression's
    // location, naming its key.
    using IntEnv = std::map<std::string, int64_t>;
    int64_t eval_int(const IntEnv& env) const;
    // float32 evaluation: every operation rounds to float, in the order written, so
    // the device (compiled with --fmad=false) produces the same bits.
    using FloatEnv = std::map<std::string, float>;
    float eval_float(const FloatEnv& env) const;

    // C++ text for the expression; `var` maps a variable name to the C++ expression
    // that holds it. `as_float` emits float literals and float arithmetic.
    std::string to_cxx(const std::function<std::string(const std::string&)>& var,
                       bool as_float) const;
    // The expression as a user would write it (for messages and traces).
    std::string text() const;
    const SourceLoc& loc() const { return loc_; }
    const std::string& key() const { return key_; }  // the key it was read from ("program[2].count")

private:
    std::shared_ptr<const ExprNode> root_;
    SourceLoc loc_;
    std::string key_;
};

}  // namespace tmasim
