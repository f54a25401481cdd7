#include <catch2/catch.hpp>

#include "ptx/rewrite.h"
#include "ptx_test_support.h"

using namespace tmasim::ptx;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_rewrite {

TEST_CASE("edits insert at their offsets, in any order given") {
    CHECK(apply_edits("abcdef", {{4, "X"}, {0, "<"}, {6, ">"}, {2, "--"}}) == "<ab--cdXef>");
    CHECK(apply_edits("abc", {}) == "abc");
    CHECK(apply_edits("", {{0, "x"}}) == "x");
}

TEST_CASE("edits at the same offset keep the order they were given") {
    CHECK(apply_edits("ab", {{1, "1"}, {2, "z"}, {1, "2"}, {1, "3"}}) == "a123bz");
}

TEST_CASE("an edit past the end throws out_of_range") {
    CHECK_THROWS_AS(apply_edits("abc", {{4, "x"}}), std::out_of_range);
    CHECK_NOTHROW(apply_edits("abc", {{3, "x"}}));
}

TEST_CASE("the reader's spans are where the device backend inserts") {
    std::string text = test::kernel(".reg .b64 %rd<3>;\nmov.u64 %rd1, %globaltimer;\nret;\n");
    Module m = test::parse(text);
    const Function& k = m.functions.at(0);
    const Instruction& ret = k.instructions.at(1);
    std::string out = apply_edits(m.text, {{k.body_begin, "\n.reg .b64 %clk<2>;"},
                                           {ret.text_begin, "mov.u64 %clk0, %clock64;\n"},
                                           {ret.text_end, " // timed"}});
    CHECK(out.find("{\n.reg .b64 %clk<2>;\n.reg .b64 %rd<3>;") != std::string::npos);
    CHECK(out.find("mov.u64 %clk0, %clock64;\nret; // timed\n}") != std::string::npos);
    // What was inserted is PTX the reader reads again.
    Module again = test::parse(out);
    CHECK(again.functions.at(0).instructions.size() == 3);
    CHECK(again.functions.at(0).registers.size() == 5);
}

}  // namespace test_rewrite
