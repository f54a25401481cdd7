#include "scenarios/expr.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "scenarios/expr_refusals.h"

namespace tmasim {

struct ExprNode {
    enum class Kind { number, variable, unary, binary };
    Kind kind = Kind::number;
    int64_t int_value = 0;
    double float_value = 0;
    bool is_float_literal = false;
    std::string name;  // variable name or operator spelling
    std::shared_ptr<const ExprNode> lhs, rhs;
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

// Binary operators by precedence, loosest first (C precedence).
const std::vector<std::vector<std::string>> kBinaryLevels = {
    {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};

class Parser {
public:
    Parser(const std::string& text, const SourceLoc& loc, const std::string& key)
        : text_(text), loc_(loc), key_(key) {}

    NodePtr parse_all() {
        // The parser and every walk over the tree recurse; bounding the text bounds the
        // tree's depth, so hostile input cannot overflow the stack.
        if (text_.size() > kMaxExprLength)
            throw ScenarioError(loc_, key_, "expression of " + std::to_string(text_.size()) +
                                                " characters; allowed: at most " + std::to_string(kMaxExprLength));
        NodePtr n = parse_level(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
        return n;
    }

private:
    // Parentheses and unary signs nest the parser; each level is checked before it recurses.
    struct Nesting {
        Parser& p;
        explicit Nesting(Parser& parser) : p(parser) {
            if (++p.depth_ > kMaxExprDepth)
                p.fail("nested more than " + std::to_string(kMaxExprDepth) + " levels deep (parentheses and unary "
                       "signs); allowed: at most " + std::to_string(kMaxExprDepth));
        }
        ~Nesting() { --p.depth_; }
    };

    [[noreturn]] void fail(const std::string& what) const {
        SourceLoc at = loc_;
        at.col += static_cast<int>(pos_);
        // A message that already says what is allowed (a limit, a literal) keeps just that.
        const bool says_allowed = what.find("allowed:") != std::string::npos;
        throw ScenarioError(at, key_,
                            "bad expression \"" + shown() + "\": " + what +
                                (says_allowed ? "" : "; allowed: integers, variables, + - * / % << >> & | ^ "
                                                     "== != < <= > >= && || ! and parentheses"));
    }
    std::string shown() const { return text_.size() > 80 ? text_.substr(0, 80) + "..." : text_; }
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool accept(const std::string& op) {
        skip_space();
        if (text_.compare(pos_, op.size(), op) != 0) return false;
        // "<" must not swallow "<<" or "<="; "&" must not swallow "&&"; "|" not "||".
        const std::string next = text_.substr(pos_ + op.size(), 1);
        if (op.size() == 1 && !next.empty()) {
            const std::string two = op + next;
            for (const auto& level : kBinaryLevels)
                if (std::find(level.begin(), level.end(), two) != level.end()) return false;
        }
        pos_ += op.size();
        return true;
    }
    NodePtr parse_level(size_t level) {
        if (level == kBinaryLevels.size()) return parse_unary();
        NodePtr lhs = parse_level(level + 1);
        for (;;) {
            std::string matched;
            for (const auto& op : kBinaryLevels[level])
                if (accept(op)) { matched = op; break; }
            if (matched.empty()) return lhs;
            auto n = std::make_shared<ExprNode>();
            n->kind = ExprNode::Kind::binary;
            n->name = matched;
            n->lhs = lhs;
            n->rhs = parse_level(level + 1);
            lhs = n;
        }
    }
    NodePtr parse_unary() {
        for (const char* op : {"-", "!"}) {
            if (accept(op)) {
                Nesting guard(*this);
                auto n = std::make_shared<ExprNode>();
                n->kind = ExprNode::Kind::unary;
                n->name = op;
                n->lhs = parse_unary();
                return n;
            }
        }
        return parse_primary();
    }
    NodePtr parse_primary() {
        skip_space();
        if (pos_ >= text_.size()) fail("expression ends early");
        char c = text_[pos_];
        if (c == '(') {
            ++pos_;
            Nesting guard(*this);
            NodePtr inner = parse_level(0);
            if (!accept(")")) fail("missing ')'");
            return inner;
        }
        auto n = std::make_shared<ExprNode>();
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            size_t start = pos_;
            while (pos_ < text_.size() &&
                   (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
                ++pos_;
            // An exponent's sign belongs to the literal: 1e-3.
            if (pos_ + 1 < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+') &&
                (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
                std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) &&
                text_.substr(start, pos_ - start).find_first_not_of("0123456789.eE") == std::string::npos) {
                ++pos_;
                while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            }
            std::string lit = text_.substr(start, pos_ - start);
            pos_ = start;  // errors about the literal point at its first character
            n->kind = ExprNode::Kind::number;
            if (lit.find('.') != std::string::npos || lit.find_first_of("eE") != std::string::npos) {
                n->float_value = parse_float_literal(lit);
                n->is_float_literal = true;
            } else {
                n->int_value = parse_int_literal(lit);
                n->float_value = static_cast<double>(n->int_value);
            }
            pos_ = start + lit.size();
            return n;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos_;
            while (pos_ < text_.size() &&
                   (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
                ++pos_;
            n->kind = ExprNode::Kind::variable;
            n->name = text_.substr(start, pos_ - start);
            return n;
        }
        fail(std::string("unexpected '") + c + "'");
    }

    // Decimal only: "010" would be 8 to a C reader and 10 to a person, "0x10" is not a
    // number most readers of a scenario expect; both are refused rather than guessed.
    int64_t parse_int_literal(const std::string& lit) {
        for (char ch : lit)
            if (!std::isdigit(static_cast<unsigned char>(ch)))
                fail("bad number '" + lit + "'; allowed: decimal integers");
        if (lit.size() > 1 && lit[0] == '0')
            fail("'" + lit + "' has a leading zero (octal in C); allowed: decimal integers without leading zeros");
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(lit.c_str(), &end, 10);
        if (errno == ERANGE)
            fail("'" + lit + "' does not fit in 64 bits; allowed: -9223372036854775808..9223372036854775807");
        return v;
    }
    // Float literals become float32 on both backends: one beyond float's range would be
    // infinity on the device and undefined behaviour in a C++ cast.
    double parse_float_literal(const std::string& lit) {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(lit.c_str(), &end);
        if (lit.empty() || *end != '\0' || lit.find_first_of("xXpPnNiI") != std::string::npos)
            fail("bad number '" + lit + "'");
        if (errno == ERANGE || !std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
            fail("'" + lit + "' is outside float's range; allowed: magnitudes up to 3.4e38");
        return v;
    }

    const std::string& text_;
    SourceLoc loc_;
    std::string key_;
    size_t pos_ = 0;
    int depth_ = 0;
};

void collect_vars(const ExprNode* n, std::vector<std::string>& out) {
    if (!n) return;
    if (n->kind == ExprNode::Kind::variable &&
        std::find(out.begin(), out.end(), n->name) == out.end())
        out.push_back(n->name);
    collect_vars(n->lhs.get(), out);
    collect_vars(n->rhs.get(), out);
}

// The refusals of integer evaluation, out of line (scenarios/expr_refusals.h).
using expr_refusals::bad_shift;
using expr_refusals::division_by_zero;
using expr_refusals::EvalSite;
using expr_refusals::float_literal;
using expr_refusals::negation_overflow;
using expr_refusals::overflow_of;
using expr_refusals::unknown_operator;
using expr_refusals::unknown_variable;

// C semantics where C is defined; where it is not (overflow, INT64_MIN / -1, shifts by a
// negative amount or by 64 or more), the scenario is refused instead of wrapped.
int64_t apply_int(const std::string& op, int64_t a, int64_t b, const EvalSite& at) {
    int64_t r = 0;
    if (op == "+") {
        if (__builtin_add_overflow(a, b, &r)) overflow_of(a, op, b, at);
        return r;
    }
    if (op == "-") {
        if (__builtin_sub_overflow(a, b, &r)) overflow_of(a, op, b, at);
        return r;
    }
    if (op == "*") {
        if (__builtin_mul_overflow(a, b, &r)) overflow_of(a, op, b, at);
        return r;
    }
    if (op == "/" || op == "%") {
        if (b == 0) division_by_zero(at);
        if (a == INT64_MIN && b == -1) overflow_of(a, op, b, at);  // "... / -1 overflows"
        return op == "/" ? a / b : a % b;
    }
    if (op == "<<" || op == ">>") {
        if (b < 0 || b > 63) bad_shift(b, at);
        if (op == ">>") return a >> b;
        // a << b is a * 2^b; refused when that does not fit, as C leaves it undefined.
        const __int128 wide = static_cast<__int128>(a) * (static_cast<__int128>(1) << b);
        if (wide > INT64_MAX || wide < INT64_MIN) overflow_of(a, op, b, at);
        return static_cast<int64_t>(wide);
    }
    if (op == "&") return a & b;
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "&&") return a && b;
    if (op == "||") return a || b;
    unknown_operator(op, at);
}

}  // namespace

Expr Expr::constant(int64_t v) {
    auto n = std::make_shared<ExprNode>();
    n->int_value = v;
    n->float_value = static_cast<double>(v);
    Expr e;
    e.root_ = n;
    return e;
}

Expr Expr::parse(const std::string& text, const SourceLoc& loc, const std::string& key) {
    Expr e;
    e.root_ = Parser(text, loc, key).parse_all();
    e.loc_ = loc;
    e.key_ = key;
    return e;
}

bool Expr::is_constant() const { return root_ && variables().empty(); }

namespace {

bool uses_any(const ExprNode* n, const std::vector<std::string>& names) {
    if (!n) return false;
    if (n->kind == ExprNode::Kind::variable) return std::find(names.begin(), names.end(), n->name) != names.end();
    return uses_any(n->lhs.get(), names) || uses_any(n->rhs.get(), names);
}

int count_divisions(const ExprNode* n, const std::vector<std::string>& names) {
    if (!n) return 0;
    const bool divides = n->kind == ExprNode::Kind::binary && (n->name == "/" || n->name == "%");
    return (divides && uses_any(n, names) ? 1 : 0) + count_divisions(n->lhs.get(), names) +
           count_divisions(n->rhs.get(), names);
}

}  // namespace

int Expr::divisions_of(const std::vector<std::string>& names) const {
    return count_divisions(root_.get(), names);
}

std::vector<std::string> Expr::variables() const {
    std::vector<std::string> out;
    collect_vars(root_.get(), out);
    return out;
}

namespace {

std::string text_of_float(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

int64_t eval_int_node(const ExprNode* n, const Expr::IntEnv& env, const EvalSite& at) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        if (n->is_float_literal) float_literal(n->float_value, at);
        return n->int_value;
    case ExprNode::Kind::variable: {
        auto it = env.find(n->name);
        if (it == env.end()) unknown_variable(n->name, at);
        return it->second;
    }
    case ExprNode::Kind::unary: {
        int64_t v = eval_int_node(n->lhs.get(), env, at);
        if (n->name == "!") return !v;
        if (v == INT64_MIN) negation_overflow(v, at);
        return -v;
    }
    case ExprNode::Kind::binary:
        return apply_int(n->name, eval_int_node(n->lhs.get(), env, at), eval_int_node(n->rhs.get(), env, at), at);
    }
    return 0;
}

float eval_float_node(const ExprNode* n, const Expr::FloatEnv& env, const SourceLoc& loc, const Expr& expr) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        return static_cast<float>(n->float_value);
    case ExprNode::Kind::variable: {
        auto it = env.find(n->name);
        if (it == env.end())
            throw ScenarioError(loc, expr.text(), "unknown variable '" + n->name + "' in \"" + expr.text() + "\"");
        return it->second;
    }
    case ExprNode::Kind::unary: {
        float v = eval_float_node(n->lhs.get(), env, loc, expr);
        return n->name == "-" ? -v : (v == 0.0f ? 1.0f : 0.0f);
    }
    case ExprNode::Kind::binary: {
        float a = eval_float_node(n->lhs.get(), env, loc, expr);
        float b = eval_float_node(n->rhs.get(), env, loc, expr);
        const std::string& op = n->name;
        if (op == "+") return a + b;
        if (op == "-") return a - b;
        if (op == "*") return a * b;
        if (op == "/") return a / b;
        if (op == "==") return a == b;
        if (op == "!=") return a != b;
        if (op == "<") return a < b;
        if (op == "<=") return a <= b;
        if (op == ">") return a > b;
        if (op == ">=") return a >= b;
        if (op == "&&") return (a != 0.0f) && (b != 0.0f);
        if (op == "||") return (a != 0.0f) || (b != 0.0f);
        throw ScenarioError(loc, expr.text(), "operator " + op + " is not defined on float elements");
    }
    }
    return 0;
}

std::string float_literal(double v) {
    std::ostringstream os;
    os.precision(9);
    os << std::scientific << static_cast<float>(v) << "f";
    return os.str();
}

std::string cxx_node(const ExprNode* n, const std::function<std::string(const std::string&)>& var,
                     bool as_float) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        if (as_float) return float_literal(n->float_value);
        return "(" + std::to_string(n->int_value) + "LL)";
    case ExprNode::Kind::variable:
        return "(" + var(n->name) + ")";
    case ExprNode::Kind::unary: {
        std::string inner = cxx_node(n->lhs.get(), var, as_float);
        if (n->name == "!") return as_float ? "((" + inner + ") == 0.0f ? 1.0f : 0.0f)" : "(!" + inner + ")";
        return "(-" + inner + ")";
    }
    case ExprNode::Kind::binary: {
        std::string a = cxx_node(n->lhs.get(), var, as_float);
        std::string b = cxx_node(n->rhs.get(), var, as_float);
        static const std::vector<std::string> kCompare = {"==", "!=", "<", "<=", ">", ">=", "&&", "||"};
        bool is_compare = std::find(kCompare.begin(), kCompare.end(), n->name) != kCompare.end();
        if (as_float && is_compare) return "((" + a + " " + n->name + " " + b + ") ? 1.0f : 0.0f)";
        if (!as_float && is_compare) return "((long long)(" + a + " " + n->name + " " + b + "))";
        if (!as_float && (n->name == "<<" || n->name == ">>"))
            return "(" + a + " " + n->name + " (" + b + " & 63LL))";
        return "(" + a + " " + n->name + " " + b + ")";
    }
    }
    return "";
}

std::string text_node(const ExprNode* n) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        if (n->is_float_literal) return text_of_float(n->float_value);
        return std::to_string(n->int_value);
    case ExprNode::Kind::variable:
        return n->name;
    case ExprNode::Kind::unary:
        return n->name + text_node(n->lhs.get());
    case ExprNode::Kind::binary:
        return "(" + text_node(n->lhs.get()) + " " + n->name + " " + text_node(n->rhs.get()) + ")";
    }
    return "";
}

}  // namespace

int64_t Expr::eval_int(const IntEnv& env) const {
    if (!root_) expr_refusals::empty_expression(loc_);
    return eval_int_node(root_.get(), env, EvalSite{*this, loc_, key_});
}

bool Expr::has_float_literal() const {
    std::vector<const ExprNode*> todo;
    if (root_) todo.push_back(root_.get());
    while (!todo.empty()) {
        const ExprNode* n = todo.back();
        todo.pop_back();
        if (n->kind == ExprNode::Kind::number && n->is_float_literal) return true;
        if (n->lhs) todo.push_back(n->lhs.get());
        if (n->rhs) todo.push_back(n->rhs.get());
    }
    return false;
}

float Expr::eval_float(const FloatEnv& env) const {
    if (!root_) throw ScenarioError(loc_, "expression", "empty expression evaluated");
    return eval_float_node(root_.get(), env, loc_, *this);
}

std::string Expr::to_cxx(const std::function<std::string(const std::string&)>& var,
                         bool as_float) const {
    return root_ ? cxx_node(root_.get(), var, as_float) : std::string();
}

std::string Expr::text() const {
    if (!root_) return "";
    std::string t = text_node(root_.get());
    // Drop the outermost parentheses a binary root adds.
    if (t.size() >= 2 && t.front() == '(' && root_->kind == ExprNode::Kind::binary)
        t = t.substr(1, t.size() - 2);
    return t;
}

}  // namespace tmasim
