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
    CHECK(parse("0x10 + 1").eval_int({}) == 17);
}

TEST_CASE("expressions report their variables and constness") {
    CHECK(parse("4096").is_constant());
    CHECK_FALSE(parse("i + j*i").is_constant());
    CHECK(parse("i + j*i").variables() == std::vector<std::string>{"i", "j"});
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
