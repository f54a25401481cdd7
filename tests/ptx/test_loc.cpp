#include <tuple>

#include <catch2/catch.hpp>

#include "ptx_test_support.h"

using namespace tmasim::ptx;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_loc {

namespace {

// nvcc's shape: the kernel's line, then one .loc per inlining level, each inlined at the
// previous one's own point; .file comes after the functions.
const char* kInlined =
    ".visible .entry k()\n{\n.reg .b32 %r<4>;\n"
    ".loc 1 10 3\n"
    "mov.u32 %r1, 1;\n"
    ".loc 2 50 7, function_name $L__info_string0, inlined_at 1 10 3\n"
    "mov.u32 %r2, 2;\n"
    ".loc 3 5 1, function_name $L__info_string1, inlined_at 2 50 7\n"
    "mov.u32 %r3, 3;\n"
    "add.u32 %r3, %r3, 1;\n"
    ".loc 2 50 7, function_name $L__info_string0, inlined_at 1 10 3\n"
    "mov.u32 %r2, 4;\n"
    ".loc 1 12 0\n"
    ".loc 4 9 2, inlined_at 1 12 0\n"
    "mov.u32 %r1, 5;\n"
    ".loc 3 7 1, inlined_at 9 9 9\n"
    "ret;\n"
    "}\n"
    ".file 1 \"/tmp/k/t1.cu\"\n.file 2 \"/usr/include/cute/tensor.hpp\"\n.file 3 \"/x/y/z.h\"\n";

}  // namespace

TEST_CASE(".loc chains are innermost first and end at the kernel's own line") {
    Module m = test::parse(std::string(test::kHeader) + kInlined);
    const Function& k = m.functions.at(0);
    const auto& ins = k.instructions;
    REQUIRE(ins.size() == 7);
    auto chain = [&](size_t i) {
        REQUIRE(ins[i].loc >= 0);
        std::vector<std::tuple<int, int, int>> points;
        for (const LocPoint& p : k.locs[size_t(ins[i].loc)].chain) points.emplace_back(p.file, p.line, p.col);
        return points;
    };
    using P = std::vector<std::tuple<int, int, int>>;
    CHECK(chain(0) == P{{1, 10, 3}});
    CHECK(chain(1) == P{{2, 50, 7}, {1, 10, 3}});
    CHECK(chain(2) == P{{3, 5, 1}, {2, 50, 7}, {1, 10, 3}});
    CHECK(ins[3].loc == ins[2].loc);  // still in force
    CHECK(ins[4].loc == ins[1].loc);  // the same .loc again: the same entry
    CHECK(chain(5) == P{{4, 9, 2}, {1, 12, 0}});
    CHECK(chain(6) == P{{3, 7, 1}, {9, 9, 9}});  // an inlined_at point no .loc started: the chain ends there
    CHECK(k.locs[size_t(ins[1].loc)].function_name == "$L__info_string0");
    CHECK(k.locs[size_t(ins[0].loc)].function_name.empty());
    CHECK(k.locs.size() == 6);  // distinct: (1 10 3), (2 50 7 ...), (3 5 1 ...), (1 12 0), (4 9 2 ...), (3 7 1 ...)
    // Where: the PTX position, then the outermost point by its file's base name.
    CHECK(m.where(k, ins[2]) == "k.ptx:12:1 (t1.cu:10:3)");
    CHECK(m.where(k, ins[5]) == "k.ptx:18:1 (t1.cu:12)");
    CHECK(m.where(k, ins[6]) == "k.ptx:20:1 (<file 9>:9:9)");
}

TEST_CASE("an instruction before any .loc has none, and each function starts afresh") {
    Module m = test::parse(std::string(test::kHeader) +
                           ".entry a()\n{\nret;\n.loc 1 4 1\nret;\n}\n.entry b()\n{\nret;\n}\n.file 1 \"a.cu\"\n");
    CHECK(m.functions[0].instructions[0].loc == -1);
    CHECK(m.functions[0].instructions[1].loc == 0);
    CHECK(m.functions[1].instructions[0].loc == -1);
    CHECK(m.functions[1].locs.empty());
    CHECK(m.where(m.functions[1], m.functions[1].instructions[0]) == "k.ptx:12:1");
}

TEST_CASE("an inlined_at chain deeper than the limit is refused") {
    // Each .loc is inlined at the one before: chains of 1, 2, 3, ... points.
    std::string body = ".loc 1 1 1\n";
    for (int i = 2; i <= 6; ++i) body += ".loc 1 " + std::to_string(i) + " 1, inlined_at 1 " + std::to_string(i - 1) + " 1\n";
    body += "ret;\n";
    ParseLimits limits;
    limits.max_inline_depth = 5;
    CHECK(test::error_of(test::kernel(body), limits) == "11:1: the inlined_at chain of this .loc is 6 deep; allowed: at most 5");
    limits.max_inline_depth = 6;
    Module m = test::parse(test::kernel(body), limits);
    CHECK(m.functions[0].locs.back().chain.size() == 6);
    CHECK(m.functions[0].locs.back().chain.back().line == 1);
}

}  // namespace test_loc
