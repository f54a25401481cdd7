#include "scenarios/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <vector>

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
        NodePtr n = parse_level(0);
        skip_space();
        if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        SourceLoc at = loc_;
        at.col += static_cast<int>(pos_);
        throw ScenarioError(at, key_,
                            "bad expression \"" + text_ + "\": " + what +
                                "; allowed: integers, variables, + - * / % << >> & | ^ "
                                "== != < <= > >= && || ! and parentheses");
    }
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
            std::string lit = text_.substr(start, pos_ - start);
            n->kind = ExprNode::Kind::number;
            try {
                size_t used = 0;
                if (lit.find('.') != std::string::npos) {
                    n->float_value = std::stod(lit, &used);
                    n->is_float_literal = true;
                    n->int_value = static_cast<int64_t>(n->float_value);
                } else {
                    n->int_value = std::stoll(lit, &used, 0);
                    n->float_value = static_cast<double>(n->int_value);
                }
                if (used != lit.size()) fail("bad number '" + lit + "'");
            } catch (const std::logic_error&) {
                fail("bad number '" + lit + "'");
            }
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

    const std::string& text_;
    SourceLoc loc_;
    std::string key_;
    size_t pos_ = 0;
};

void collect_vars(const ExprNode* n, std::vector<std::string>& out) {
    if (!n) return;
    if (n->kind == ExprNode::Kind::variable &&
        std::find(out.begin(), out.end(), n->name) == out.end())
        out.push_back(n->name);
    collect_vars(n->lhs.get(), out);
    collect_vars(n->rhs.get(), out);
}

int64_t apply_int(const std::string& op, int64_t a, int64_t b, const SourceLoc& loc,
                  const std::string& text) {
    if (op == "+") return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    if (op == "-") return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    if (op == "*") return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    if (op == "/" || op == "%") {
        if (b == 0) throw ScenarioError(loc, text, "division by zero while evaluating \"" + text + "\"");
        if (a == INT64_MIN && b == -1) return op == "/" ? a : 0;
        return op == "/" ? a / b : a % b;
    }
    if (op == "<<") return static_cast<int64_t>(static_cast<uint64_t>(a) << (b & 63));
    if (op == ">>") return a >> (b & 63);
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
    throw ScenarioError(loc, text, "unknown operator " + op);
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
    return e;
}

bool Expr::is_constant() const { return root_ && variables().empty(); }

std::vector<std::string> Expr::variables() const {
    std::vector<std::string> out;
    collect_vars(root_.get(), out);
    return out;
}

namespace {

int64_t eval_int_node(const ExprNode* n, const Expr::IntEnv& env, const SourceLoc& loc,
                      const std::string& text) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        return n->int_value;
    case ExprNode::Kind::variable: {
        auto it = env.find(n->name);
        if (it == env.end())
            throw ScenarioError(loc, text, "unknown variable '" + n->name + "' in \"" + text + "\"");
        return it->second;
    }
    case ExprNode::Kind::unary: {
        int64_t v = eval_int_node(n->lhs.get(), env, loc, text);
        return n->name == "-" ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : !v;
    }
    case ExprNode::Kind::binary:
        return apply_int(n->name, eval_int_node(n->lhs.get(), env, loc, text),
                         eval_int_node(n->rhs.get(), env, loc, text), loc, text);
    }
    return 0;
}

float eval_float_node(const ExprNode* n, const Expr::FloatEnv& env, const SourceLoc& loc,
                      const std::string& text) {
    switch (n->kind) {
    case ExprNode::Kind::number:
        return static_cast<float>(n->float_value);
    case ExprNode::Kind::variable: {
        auto it = env.find(n->name);
        if (it == env.end())
            throw ScenarioError(loc, text, "unknown variable '" + n->name + "' in \"" + text + "\"");
        return it->second;
    }
    case ExprNode::Kind::unary: {
        float v = eval_float_node(n->lhs.get(), env, loc, text);
        return n->name == "-" ? -v : (v == 0.0f ? 1.0f : 0.0f);
    }
    case ExprNode::Kind::binary: {
        float a = eval_float_node(n->lhs.get(), env, loc, text);
        float b = eval_float_node(n->rhs.get(), env, loc, text);
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
        throw ScenarioError(loc, text, "operator " + op + " is not defined on float elements");
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
        if (n->is_float_literal) {
            std::ostringstream os;
            os << n->float_value;
            return os.str();
        }
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
    if (!root_) throw ScenarioError(loc_, "expression", "empty expression evaluated");
    return eval_int_node(root_.get(), env, loc_, text());
}

float Expr::eval_float(const FloatEnv& env) const {
    if (!root_) throw ScenarioError(loc_, "expression", "empty expression evaluated");
    return eval_float_node(root_.get(), env, loc_, text());
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
