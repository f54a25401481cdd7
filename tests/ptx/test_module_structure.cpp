#include <catch2/catch.hpp>

#include "ptx_test_support.h"

using namespace tmasim::ptx;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_module_structure {

TEST_CASE("the module header: version, targets, address size, files") {
    Module m = test::parse(".version 8.7\n.target sm_90a, texmode_independent\n.address_size 32\n"
                           ".file 1 \"/tmp/k/t1.cu\"\n.file 2 \"/tmp/k/dir\\\\t2.cuh\", 1700000000, 2048\n");
    CHECK(m.version == "8.7");
    REQUIRE(m.targets.size() == 2);
    CHECK(m.targets[0] == "sm_90a");
    CHECK(m.targets[1] == "texmode_independent");
    CHECK(m.address_size == 32);
    REQUIRE(m.files.size() == 2);
    CHECK(m.files.at(1) == "/tmp/k/t1.cu");
    CHECK(m.files.at(2) == "/tmp/k/dir\\t2.cuh");
    CHECK(m.path == "k.ptx");
}

TEST_CASE("params are laid out in order, each at the next multiple of its alignment") {
    Module m = test::parse(test::kernel("ret;\n",
                                        ".param .u32 a, .param .align 128 .b8 map[128], .param .u8 c,\n"
                                        ".param .u64 .ptr .global .align 16 p, .param .b16 h, .param .u64 .ptr.shared.align 8 q,\n"
                                        ".param .align 4 .b8 s[6]"));
    const Function& k = m.functions.at(0);
    REQUIRE(k.params.size() == 7);
    struct Expect {
        const char* name;
        int64_t offset, size, align;
    };
    const Expect expect[] = {{"a", 0, 4, 4},   {"map", 128, 128, 128}, {"c", 256, 1, 1}, {"p", 264, 8, 8},
                             {"h", 272, 2, 2}, {"q", 280, 8, 8},       {"s", 288, 6, 4}};
    for (size_t i = 0; i < 7; ++i) {
        INFO("param " << expect[i].name);
        CHECK(k.params[i].name == expect[i].name);
        CHECK(k.params[i].offset == expect[i].offset);
        CHECK(k.params[i].size_bytes == expect[i].size);
        CHECK(k.params[i].align == expect[i].align);
    }
    CHECK(k.params[1].dims == std::vector<int64_t>{128});
    CHECK(k.params[1].type == ".b8");
    CHECK(k.params[3].ptr_space == "global");
    CHECK(k.params[3].ptr_align == 16);
    CHECK(k.params[3].align == 8);  // the .align after .ptr is the pointee's, not the param's
    CHECK(k.params[5].ptr_space == "shared");
    CHECK(k.params[5].ptr_align == 8);
    CHECK(k.params[0].ptr_space.empty());
    CHECK(k.param_bytes() == 294);
    REQUIRE(k.find_param("p") != nullptr);
    CHECK(k.find_param("p")->offset == 264);
    CHECK(k.find_param("nope") == nullptr);
    CHECK(k.params[2].pos.line == 4);
}

TEST_CASE("performance directives between the signature and the body") {
    Module m = test::parse(std::string(test::kHeader) +
                           ".visible .entry k()\n.maxntid 128, 1, 1\n.reqnctapercluster 2, 1, 1\n.explicitcluster\n"
                           ".maxnreg 168\n.minnctapersm 2\n{\nret;\n}\n"
                           ".entry j()\n.reqntid 256\n.maxclusterrank 8\n.noreturn\n{\nexit;\n}\n");
    const Function& k = m.functions.at(0);
    CHECK(k.directives.at("maxntid") == std::vector<int64_t>{128, 1, 1});
    CHECK(k.directives.at("reqnctapercluster") == std::vector<int64_t>{2, 1, 1});
    CHECK(k.directives.at("explicitcluster").empty());
    CHECK(k.directives.at("maxnreg") == std::vector<int64_t>{168});
    CHECK(k.directives.at("minnctapersm") == std::vector<int64_t>{2});
    CHECK(k.directives.size() == 5);
    CHECK(k.is_visible);
    const Function& j = m.functions.at(1);
    CHECK_FALSE(j.is_visible);
    CHECK(j.directives.at("reqntid") == std::vector<int64_t>{256});
    CHECK(j.directives.at("maxclusterrank") == std::vector<int64_t>{8});
    CHECK(j.directives.count("noreturn") == 1);
    CHECK(j.params.empty());
    CHECK(j.param_bytes() == 0);
}

TEST_CASE("module variables keep their initializers as little-endian bytes") {
    Module m = test::parse(std::string(test::kHeader) +
                           ".global .align 4 .u32 x = 3;\n"
                           ".global .align 1 .b8 s[4] = {1,2,3,4};\n"
                           ".extern .shared .align 16 .b8 smem[];\n"
                           ".visible .global .align 8 .u64 p = generic(x);\n"
                           ".global .align 8 .u64 t[3] = {generic(s)+2, 0, x};\n"
                           ".global .f32 f = 0f3FC00000;\n"
                           ".global .f64 d = 1.5;\n"
                           ".const .align 4 .u32 grid[2][2] = {{1, 2}, {3, 0x10}};\n"
                           ".global .s8 neg[3] = {-1, -128, 255};\n"
                           ".global .b8 str[] = {104, 105, 0};\n"
                           ".global .u32 part[4] = {7};\n"
                           ".shared .align 8 .b8 bar[8];\n");
    REQUIRE(m.variables.size() == 12);
    const Variable* x = m.find_variable("x");
    REQUIRE(x);
    CHECK(x->space == Space::global);
    CHECK(x->init == std::vector<uint8_t>{3, 0, 0, 0});
    CHECK(x->size_bytes() == 4);
    CHECK(x->alignment() == 4);
    CHECK(x->scope == -1);
    const Variable* s = m.find_variable("s");
    CHECK(s->init == std::vector<uint8_t>{1, 2, 3, 4});
    CHECK(s->dims == std::vector<int64_t>{4});
    CHECK(s->size_bytes() == 4);
    const Variable* smem = m.find_variable("smem");
    CHECK(smem->is_extern);
    CHECK(smem->space == Space::shared);
    CHECK(smem->dims == std::vector<int64_t>{0});
    CHECK(smem->size_bytes() == 0);
    CHECK(smem->alignment() == 16);
    CHECK(smem->init.empty());
    const Variable* p = m.find_variable("p");
    CHECK(p->is_visible);
    CHECK(p->init == std::vector<uint8_t>(8, 0));
    REQUIRE(p->init_symbols.size() == 1);
    CHECK(p->init_symbols[0] == std::pair<int64_t, std::string>{0, "x"});
    const Variable* t = m.find_variable("t");
    REQUIRE(t->init.size() == 24);
    CHECK(t->init[0] == 2);  // the addend of generic(s)+2
    CHECK(t->init_symbols == std::vector<std::pair<int64_t, std::string>>{{0, "s"}, {16, "x"}});
    CHECK(m.find_variable("f")->init == std::vector<uint8_t>{0x00, 0x00, 0xC0, 0x3F});
    CHECK(m.find_variable("d")->init == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xF8, 0x3F});
    const Variable* grid = m.find_variable("grid");
    CHECK(grid->space == Space::const_);
    CHECK(grid->dims == std::vector<int64_t>{2, 2});
    CHECK(grid->size_bytes() == 16);
    CHECK(grid->init == std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 16, 0, 0, 0});
    CHECK(m.find_variable("neg")->init == std::vector<uint8_t>{0xFF, 0x80, 0xFF});
    const Variable* str = m.find_variable("str");
    CHECK(str->dims == std::vector<int64_t>{3});  // `[]` sized by its initializer
    CHECK(str->size_bytes() == 3);
    const Variable* part = m.find_variable("part");
    CHECK(part->init == std::vector<uint8_t>{7, 0, 0, 0});  // the rest is zero, not stored
    CHECK(part->size_bytes() == 16);
    CHECK(m.find_variable("bar")->init.empty());
    CHECK(m.find_variable("nope") == nullptr);
    CHECK(x->pos.line == 4);
    CHECK(x->pos.col == 1);
}

TEST_CASE("a vector variable's element is the type times the vector") {
    Module m = test::parse(std::string(test::kHeader) + ".global .align 16 .v4 .f32 q[2];\n.global .v2 .u16 w;\n");
    CHECK(m.variables[0].vector == 4);
    CHECK(m.variables[0].element_bytes() == 16);
    CHECK(m.variables[0].size_bytes() == 32);
    CHECK(m.variables[1].element_bytes() == 4);
    CHECK(m.variables[1].alignment() == 4);
}

TEST_CASE("variables declared in a body belong to their block") {
    Module m = test::parse(test::kernel(".reg .b64 %rd<2>;\n.local .align 8 .b8 __local_depot0[16];\n"
                                        ".shared .align 8 .b8 bar[8];\n"
                                        "{\n.param .b64 param0;\nst.param.b64 [param0], 1;\n}\n"
                                        "{\n.param .b64 param0;\nst.param.b64 [param0+0], 2;\n}\n"
                                        "mov.u64 %rd1, __local_depot0;\nret;\n"));
    const Function& k = m.functions.at(0);
    REQUIRE(k.variables.size() == 4);
    CHECK(k.variables[0].space == Space::local);
    CHECK(k.variables[0].size_bytes() == 16);
    CHECK(k.variables[0].scope == 0);
    CHECK(k.variables[1].space == Space::shared);
    CHECK(k.variables[2].space == Space::param);
    CHECK(k.variables[2].scope == 1);
    CHECK(k.variables[3].scope == 2);
    // Each call block's `param0` is its own.
    CHECK(k.instructions[0].operands[0].base[0].variable == 2);
    CHECK(k.instructions[1].operands[0].base[0].variable == 3);
    CHECK(k.instructions[2].operands[1].variable == 0);
}

TEST_CASE("a .func with return params, an .extern prototype and the call forms") {
    Module m = test::parse(std::string(test::kHeader) +
                           ".extern .func (.param .b32 func_retval0) vprintf\n(\n.param .b64 vprintf_param_0,\n"
                           ".param .b64 vprintf_param_1\n)\n;\n"
                           ".func (.param .b32 func_retval0) f(.param .b32 f_param_0, .param .b32 f_param_1);\n"
                           ".func (.param .b32 func_retval0) f(.param .b32 f_param_0, .param .b32 f_param_1)\n{\n"
                           ".reg .b32 %r<3>;\nld.param.b32 %r1, [f_param_0];\nst.param.b32 [func_retval0], %r1;\nret;\n}\n"
                           ".func g()\n{\nret;\n}\n"
                           ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                           "{ // callseq 0, 0\n.param .b32 param0;\n.param .b32 param1;\n.param .b32 retval0;\n"
                           "call.uni (retval0), f, (param0, param1);\nld.param.b32 %r2, [retval0];\n}\n"
                           "{\n.param .b64 param0;\n.param .b64 param1;\n.param .b32 retval0;\n"
                           "call.uni (retval0),\nvprintf,\n(\nparam0,\nparam1\n);\n}\n"
                           "call g;\ncall.uni g, ();\n"
                           "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                           "{\n.param .b32 param0;\n.param .b32 retval0;\ncall (retval0), %rd1, (param0), prototype_0;\n}\n"
                           "ret;\n}\n");
    REQUIRE(m.functions.size() == 5);
    const Function& vprintf = m.functions[0];
    CHECK(vprintf.is_extern);
    CHECK_FALSE(vprintf.has_body);
    REQUIRE(vprintf.returns.size() == 1);
    CHECK(vprintf.returns[0].name == "func_retval0");
    CHECK(vprintf.params.size() == 2);
    CHECK(vprintf.params[1].offset == 8);
    CHECK_FALSE(m.functions[1].has_body);  // the forward declaration
    const Function* f = m.find_function("f");
    REQUIRE(f == &m.functions[2]);  // the definition, not the prototype before it
    CHECK(f->has_body);
    CHECK_FALSE(f->is_entry);
    CHECK(f->returns.at(0).size_bytes == 4);
    CHECK(f->params.at(1).offset == 4);
    CHECK(m.find_function("g")->params.empty());
    CHECK(m.find_function("nope") == nullptr);

    const Function& k = m.functions[4];
    CHECK(k.is_entry);
    const Instruction& call = k.instructions[0];
    CHECK(call.opcode == "call.uni");
    REQUIRE(call.operands.size() == 3);
    CHECK(call.operands[0].kind == Operand::Kind::vector);
    REQUIRE(call.operands[0].elems.size() == 1);
    CHECK(call.operands[0].elems[0].name == "retval0");
    CHECK(call.operands[0].elems[0].kind == Operand::Kind::symbol);
    CHECK(call.operands[1].kind == Operand::Kind::symbol);
    CHECK(call.operands[1].name == "f");
    CHECK(call.operands[2].elems.size() == 2);
    CHECK(call.operands[2].elems[1].name == "param1");
    const Instruction& vcall = k.instructions[2];
    CHECK(vcall.operands[1].name == "vprintf");
    CHECK(test::span_of(m, vcall) == "call.uni (retval0),\nvprintf,\n(\nparam0,\nparam1\n);");
    CHECK(k.instructions[3].opcode == "call");
    CHECK(k.instructions[3].operands.size() == 1);
    CHECK(k.instructions[4].operands[1].kind == Operand::Kind::vector);
    CHECK(k.instructions[4].operands[1].elems.empty());
    const Instruction& indirect = k.instructions[5];
    REQUIRE(indirect.operands.size() == 4);
    CHECK(indirect.operands[1].kind == Operand::Kind::reg);
    CHECK(indirect.operands[3].kind == Operand::Kind::symbol);
    REQUIRE(indirect.operands[3].label >= 0);
    CHECK(k.labels[size_t(indirect.operands[3].label)].name == "prototype_0");
}

TEST_CASE("debug sections are kept as text, not parsed") {
    std::string text = std::string(test::kHeader) + ".visible .entry k()\n{\nret;\n}\n" +
                       "\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,78,0\n// } in a comment\n"
                       ".b8 \"}\"\n/* { */\n}\n"
                       ".section .debug_abbrev { .b8 1, 17, 1 { nested } }\n.file 1 \"k.cu\"\n";
    Module m = test::parse(text);
    REQUIRE(m.sections.size() == 2);
    CHECK(m.sections[0].name == ".debug_str");
    CHECK(m.sections[0].pos.line == 8);
    std::string body = m.text.substr(m.sections[0].text_begin, m.sections[0].text_end - m.sections[0].text_begin);
    CHECK(body.find("$L__info_string0:") != std::string::npos);
    CHECK(body.find("/* { */") != std::string::npos);
    CHECK(m.sections[1].name == ".debug_abbrev");
    CHECK(m.text.substr(m.sections[1].text_begin, m.sections[1].text_end - m.sections[1].text_begin) ==
          " .b8 1, 17, 1 { nested } ");
    CHECK(m.files.at(1) == "k.cu");  // what follows the sections is read again
}

TEST_CASE("comments and pragmas are skipped wherever they are") {
    Module m = test::parse(std::string(test::kHeader) + "// a comment\n.pragma \"nounroll\";\n"
                           ".visible /* linkage */ .entry k(\n/* no params */)\n{\n"
                           ".reg .b32 %r<2>; // trailing\n.pragma \"nounroll\";\n"
                           "mov.u32 /* a\nmulti-line\ncomment */ %r1, 7;\n}\n");
    const Instruction& mov = m.functions.at(0).instructions.at(0);
    CHECK(mov.pos.line == 11);
    CHECK(mov.operands[0].pos.line == 13);
    CHECK(mov.operands[0].pos.col == 12);
    CHECK(mov.operands[1].bits == 7);
}

TEST_CASE("lookups: Instruction::has, find_label") {
    Module m = test::parse(test::kernel(".reg .pred %p<2>;\n.reg .b64 %rd<5>;\n.reg .b32 %r<3>;\n.reg .b16 %rs<2>;\n"
                                        "$L__BB0_1:\n@%p1 bra.uni $L__BB0_1;\n"
                                        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                                        ".multicast::cluster.L2::cache_hint [%rd1], [%rd2, {%r1, %r2}], [%rd3], %rs1, %rd4;\n"
                                        "ret;\n$L__BB0_end:\n"));
    const Function& k = m.functions.at(0);
    const Instruction& copy = k.instructions.at(1);
    CHECK(copy.parts == std::vector<std::string>{"cp", "async", "bulk", "tensor", "2d", "shared::cluster", "global", "tile",
                                                 "mbarrier::complete_tx::bytes", "multicast::cluster", "L2::cache_hint"});
    CHECK(copy.has("multicast::cluster"));
    CHECK(copy.has("2d"));
    CHECK_FALSE(copy.has("multicast"));
    CHECK_FALSE(copy.has("cp.async"));
    REQUIRE(copy.operands.size() == 5);
    CHECK(copy.operands[1].coords.size() == 2);
    REQUIRE(k.find_label("$L__BB0_1"));
    CHECK(k.find_label("$L__BB0_1")->instruction == 0);
    REQUIRE(k.find_label("$L__BB0_end"));
    CHECK(k.find_label("$L__BB0_end")->instruction == 3);  // at the end: the instruction count
    CHECK(k.find_label("$L__BB0_2") == nullptr);
    CHECK(k.instructions[0].operands[0].label == 0);
}

}  // namespace test_module_structure
