#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "ptx_test_support.h"

using namespace tmasim::ptx;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_limits_and_files {

TEST_CASE("the limits refuse what is too much, before it is made") {
    ParseLimits limits;
    SECTION("text") {
        limits.max_text_bytes = 50;
        std::string text = test::kernel("ret;\n");
        REQUIRE(text.size() > 50);
        CHECK(test::error_of(text, limits) == "0:0: the text is " + std::to_string(text.size()) + " bytes; allowed: at most 50");
        limits.max_text_bytes = text.size();
        CHECK(test::error_of(text, limits) == "parsed");
    }
    SECTION("block depth") {
        limits.max_block_depth = 2;
        CHECK(test::error_of(test::kernel("{\n{\nret;\n}\n}\n"), limits) == "parsed");
        CHECK(test::error_of(test::kernel("{\n{\n{\nret;\n}\n}\n}\n"), limits) == "8:1: blocks nest 3 deep in 'k'; allowed: at most 2");
    }
    SECTION("registers in a function") {
        limits.max_registers = 100;
        CHECK(test::error_of(test::kernel(".reg .b32 %r<60>;\n.reg .b32 %q<40>;\n"), limits) == "parsed");
        CHECK(test::error_of(test::kernel(".reg .b32 %r<60>;\n.reg .b32 %q<41>;\n"), limits) ==
              "7:11: 'k' has 101 registers with %q<41>; allowed: at most 100");
        CHECK(test::error_of(test::kernel(".reg .b32 %r<100>;\n.reg .b32 x;\n"), limits) ==
              "7:11: too many registers with 'x'; allowed: at most 100 in a function, 1048576 in the module");
    }
    SECTION("registers in the module") {
        limits.max_module_registers = 150;
        std::string text = std::string(test::kHeader) + ".func a()\n{\n.reg .b32 %r<100>;\n}\n.func b()\n{\n.reg .b32 %r<51>;\n}\n";
        CHECK(test::error_of(text, limits) == "10:11: the module has 151 registers with %r<51>; allowed: at most 150");
    }
    SECTION("operands") {
        limits.max_operands = 4;
        // Every operand counts, a vector and each of its entries.
        CHECK(test::error_of(test::kernel(".reg .b32 %r<2>;\nmov.b32 {%r1, %r1}, %r1;\n"), limits) == "parsed");
        CHECK(test::error_of(test::kernel(".reg .b32 %r<2>;\nmov.b32 {%r1, %r1, %r1}, %r1;\n"), limits) ==
              "7:26: 'mov.b32' has more than 4 operands (vector entries counted); allowed: at most 4");
        limits.max_operands = 256;
        limits.max_module_operands = 5;
        CHECK(test::error_of(test::kernel(".reg .b32 %r<2>;\nmov.b32 %r1, %r1;\nmov.b32 %r1, %r1;\nmov.b32 %r1, %r1;\n"), limits) ==
              "9:14: the module has more than 5 operands; allowed: at most 5");
    }
    SECTION("instructions") {
        limits.max_instructions = 2;
        CHECK(test::error_of(test::kernel("ret;\nret;\nret;\n"), limits) == "8:1: the module has more than 2 instructions; allowed: at most 2");
    }
    SECTION("variable bytes, checked on the product of the dimensions") {
        limits.max_variable_bytes = 1024;
        CHECK(test::error_of(std::string(test::kHeader) + ".global .u32 a[16][16];\n", limits) == "parsed");
        CHECK(test::error_of(std::string(test::kHeader) + ".global .u32 a[16][17];\n", limits) ==
              "4:14: 'a' is more than 1024 bytes; allowed: at most 1024");
        CHECK(test::error_of(test::kernel("ret;\n", ".param .align 8 .b8 p[1025]"), limits) ==
              "4:41: the param's array dimension is 1025; allowed: 1..1024");
        // A product that would overflow 64 bits is refused at the dimension that passes the limit.
        limits.max_variable_bytes = int64_t(1) << 30;
        CHECK_THAT(test::error_of(std::string(test::kHeader) + ".global .b8 a[1073741824][1073741824][1073741824];\n", limits),
                   Catch::StartsWith("4:13: 'a' is more than 1073741824 bytes"));
    }
}

TEST_CASE("read_module_file reads a file, and refuses what it cannot read at line 0") {
    char dir_template[] = "/tmp/tmasim-ptx-test-XXXXXX";
    REQUIRE(mkdtemp(dir_template));
    const std::string dir = dir_template;
    const std::string path = dir + "/k.ptx";
    {
        std::ofstream out(path, std::ios::binary);
        out << test::kernel("ret;\n");
    }
    Module m = read_module_file(path);
    CHECK(m.path == path);
    CHECK(m.functions.size() == 1);
    try {
        read_module_file(dir + "/missing.ptx");
        FAIL("read a missing file");
    } catch (const ParseError& e) {
        CHECK(e.pos().line == 0);
        CHECK(std::string(e.what()) == dir + "/missing.ptx: error: cannot read: not a regular file");
    }
    CHECK_THROWS_AS(read_module_file(dir), ParseError);
    ParseLimits small;
    small.max_text_bytes = 10;
    try {
        read_module_file(path, small);
        FAIL("read a file past the limit");
    } catch (const ParseError& e) {
        CHECK_THAT(e.message(), Catch::StartsWith("the file is "));
        CHECK_THAT(e.message(), Catch::EndsWith(" bytes; allowed: at most 10"));
    }
    std::remove(path.c_str());
    rmdir(dir.c_str());
}

TEST_CASE("a ParseError reads FILE:LINE:COL: error: MESSAGE") {
    ParseError e("k.ptx", TextPos{3, 7}, "what went wrong");
    CHECK(std::string(e.what()) == "k.ptx:3:7: error: what went wrong");
    CHECK(e.path() == "k.ptx");
    CHECK(e.message() == "what went wrong");
    CHECK(std::string(ParseError("k.ptx", TextPos{}, "unreadable").what()) == "k.ptx: error: unreadable");
}

TEST_CASE("type sizes") {
    CHECK(type_bytes(".b8") == 1);
    CHECK(type_bytes(".u64") == 8);
    CHECK(type_bytes(".f16x2") == 4);
    CHECK(type_bytes(".bf16") == 2);
    CHECK(type_bytes(".pred") == 1);
    CHECK(type_bytes(".b128") == 16);
    CHECK(type_bytes(".s32") == 4);
    CHECK(type_bytes(".f64") == 8);
    CHECK(type_bytes(".e4m3x2") == 2);
    CHECK(type_bytes(".u128") == 0);
    CHECK(type_bytes("b32") == 0);
    CHECK(type_bytes("") == 0);
}

}  // namespace test_limits_and_files
