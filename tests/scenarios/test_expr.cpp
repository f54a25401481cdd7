#include <catch2/catch.hpp>

#include "scenarios/expr.h"

using tmasim::Expr;
using tmasim::ScenarioError;
using tmasim::SourceLoc;

static Expr parse(const std::string& t) { return Expr::parse(t, SourceLoc{"f.yaml", 3, 10}, "coords"); }

TEST_CASE("integer expressions follow C precedence and truncating division") {
    CHECK(parse("i*32").eval_int({{"i", 3}}) == 96);
    CHECK(parse("(i/2)%2").eval_int({{"i", 6}}) == 1);
    CHECK(parse("1 + 2 * 3").eval_int({}) == 7);
    CHECK(parse("-7 / 2").eval_int({}) == -3);
    CHECK(parse("-7 % 2").eval_int({}) == -1);
    CHECK(parse("1 << 4 | 1").eval_int({}) == 17);
    CHECK(parse("i < 2 && j >= 1").eval_int({{"i", 1}, {"j", 1}}) == 1);
    CHECK(parse("!(i == 1)").eval_int({{"i", 1}}) == 0);
}

TEST_CASE("literals are decimal: octal and hex spellings are refused, not reinterpreted") {
    CHECK(parse("10 + 1").eval_int({}) == 11);
    CHECK_THROWS_WITH(parse("010"), Catch::Contains("'010' has a leading zero"));
    CHECK_THROWS_WITH(parse("0x10 + 1"), Catch::Contains("bad number '0x10'; allowed: decimal integers"));
    CHECK(parse("0").eval_int({}) == 0);
    // A float literal is refused where an integer is evaluated, rather than truncated.
    CHECK_THROWS_WITH(parse("64.5").eval_int({}), Catch::Contains("has the non-integer 64.5"));
    CHECK(parse("x * 1e-3").eval_float({{"x", 1000.0f}}) == 1.0f);
    CHECK_THROWS_WITH(parse("x + 1e39"), Catch::Contains("outside float's range"));
}

TEST_CASE("integer arithmetic is checked: overflow and bad shifts are errors, not wraps") {
    CHECK(parse("3037000499 * 3037000499").eval_int({}) == INT64_C(9223372030926249001));
    CHECK(parse("1 << 62").eval_int({}) == (INT64_C(1) << 62));
    CHECK(parse("-1 << 63").eval_int({}) == INT64_MIN);
    CHECK(parse("-8 >> 1").eval_int({}) == -4);
    CHECK(parse("-9223372036854775807 - 1").eval_int({}) == INT64_MIN);
    CHECK_THROWS_WITH(parse("4294967296 * 4294967296").eval_int({}),
                      Catch::StartsWith("f.yaml:3:10: error: coords: 4294967296 * 4294967296 overflows"));
    CHECK_THROWS_WITH(parse("9223372036854775807 + i").eval_int({{"i", 1}}), Catch::Contains("overflows"));
    CHECK_THROWS_WITH(parse("-9223372036854775807 - i").eval_int({{"i", 2}}), Catch::Contains("overflows"));
    CHECK_THROWS_WITH(parse("-i").eval_int({{"i", INT64_MIN}}), Catch::Contains("overflows"));
    CHECK_THROWS_WITH(parse("i / -1").eval_int({{"i", INT64_MIN}}), Catch::Contains("overflows"));
    CHECK_THROWS_WITH(parse("i % -1").eval_int({{"i", INT64_MIN}}), Catch::Contains("overflows"));
    CHECK_THROWS_WITH(parse("1 << i").eval_int({{"i", 64}}), Catch::Contains("shift by 64"));
    CHECK_THROWS_WITH(parse("1 >> i").eval_int({{"i", -1}}), Catch::Contains("shift by -1"));
    CHECK_THROWS_WITH(parse("3 << 62").eval_int({}), Catch::Contains("3 << 62 overflows"));
}

TEST_CASE("expressions are bounded in length and nesting before the parser recurses") {
    const std::string deep64 = std::string(64, '(') + "1" + std::string(64, ')');
    CHECK(parse(deep64).eval_int({}) == 1);
    CHECK_THROWS_WITH(parse("(" + deep64 + ")"), Catch::Contains("nested more than 64 levels deep"));
    CHECK_THROWS_WITH(parse(std::string(65, '-') + "1"), Catch::Contains("nested more than 64 levels deep"));
    CHECK_THROWS_WITH(parse(std::string(100000, '(')), Catch::Contains("expression of 100000 characters; allowed: at most 1024"));
    std::string terms = "1";
    while (terms.size() < 1020) terms += "+1";
    CHECK(parse(terms).eval_int({}) == static_cast<int64_t>(terms.size() / 2 + 1));
}

TEST_CASE("expressions report their variables and constness") {
    CHECK(parse("4096").is_constant());
    CHECK_FALSE(parse("i + j*i").is_constant());
    CHECK(parse("i + j*i").variables() == std::vector<std::string>{"i", "j"});
}

TEST_CASE("expressions count the divisions of the variables named") {
    const std::vector<std::string> thread{"tid", "warp"};
    CHECK(parse("(warp / 4 - 1) * 1024 + (tid % 128) * 8").divisions_of(thread) == 2);
    CHECK(parse("k / 2 + tid").divisions_of(thread) == 0);       // k is not named: it folds
    CHECK(parse("128 % (tid + 1)").divisions_of(thread) == 1);   // a run-time divisor
    CHECK(parse("(tid / 2) / 2").divisions_of(thread) == 2);
    CHECK(Expr().divisions_of(thread) == 0);
}

TEST_CASE("syntax errors point at the column inside the expression") {
    try {
        parse("i * (2 + ");
        FAIL("no error");
    } catch (const ScenarioError& e) {
        CHECK(e.loc().line == 3);
        CHECK(e.loc().col == 19);
        CHECK(e.key() == "coords");
        CHECK(std::string(e.what()).find("f.yaml:3:19: error: coords: bad expression") == 0);
    }
    CHECK_THROWS_AS(parse("i $ 2"), ScenarioError);
    CHECK_THROWS_AS(parse("i 2"), ScenarioError);
}

TEST_CASE("evaluation errors name the variable or the division by zero") {
    CHECK_THROWS_WITH(parse("k + 1").eval_int({{"i", 0}}), Catch::Contains("unknown variable 'k'"));
    CHECK_THROWS_WITH(parse("4 / i").eval_int({{"i", 0}}), Catch::Contains("division by zero"));
}

TEST_CASE("float evaluation rounds once per operation in the order written") {
    // (1e8 + 1) - 1e8 is 0 in float32 but 1 in exact arithmetic.
    CHECK(parse("x + 1 - x").eval_float({{"x", 1e8f}}) == 0.0f);
    CHECK(parse("x * 0.5 + idx").eval_float({{"x", 3.0f}, {"idx", 2.0f}}) == 3.5f);
}

TEST_CASE("C++ emission comes from the AST, not from the source text") {
    auto var = [](const std::string& v) { return "v_" + v; };
    CHECK(parse("i*32 + 1").to_cxx(var, false) == "(((v_i) * (32LL)) + (1LL))");
    std::string f = parse("x + 1").to_cxx(var, true);
    CHECK(f.find("v_x") != std::string::npos);
    CHECK(f.find("1.000000000e+00f") != std::string::npos);
    CHECK(parse("(i/2)%2").text() == "(i / 2) % 2");
}

TEST_CASE("integer refusals keep their whole text (built out of line)") {
    const std::string range = "\"; allowed: results in -9223372036854775808..9223372036854775807 (64-bit)";
    auto refusal = [](const std::string& text, const Expr::IntEnv& env) {
        try {
            parse(text).eval_int(env);
        } catch (const ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string at = "f.yaml:3:10: error: coords: ";
    CHECK(refusal("9223372036854775807 + i", {{"i", 1}}) ==
          at + "9223372036854775807 + 1 overflows while evaluating \"9223372036854775807 + i" + range);
    CHECK(refusal("-9223372036854775807 - i", {{"i", 2}}) ==
          at + "-9223372036854775807 - 2 overflows while evaluating \"-9223372036854775807 - i" + range);
    CHECK(refusal("i / -1", {{"i", INT64_MIN}}) ==
          at + "-9223372036854775808 / -1 overflows while evaluating \"i / -1" + range);
    CHECK(refusal("i % -1", {{"i", INT64_MIN}}) ==
          at + "-9223372036854775808 % -1 overflows while evaluating \"i % -1" + range);
    CHECK(refusal("3 << 62", {}) == at + "3 << 62 overflows while evaluating \"3 << 62" + range);
    CHECK(refusal("-i", {{"i", INT64_MIN}}) ==
          at + "-(-9223372036854775808) overflows while evaluating \"-i" + range);
    CHECK(refusal("1 << i", {{"i", 64}}) ==
          at + "shift by 64 while evaluating \"1 << i\"; allowed: shift amounts 0..63");
    CHECK(refusal("1 / i", {{"i", 0}}) == at + "division by zero while evaluating \"1 / i\"");
    CHECK(refusal("j + 1", {{"i", 0}}) == at + "unknown variable 'j' in \"j + 1\"");
    CHECK(refusal("64.5", {}) == at + "\"64.5\" has the non-integer 64.5; allowed: integers here");
}
