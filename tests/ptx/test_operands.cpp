#include <iterator>

#include <catch2/catch.hpp>

#include "ptx_test_support.h"

using namespace tmasim::ptx;
using Kind = Operand::Kind;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_operands {

namespace {

const char* kRegs = ".reg .pred %p<4>;\n.reg .b32 %r<38>;\n.reg .b64 %rd<12>;\n.reg .f32 %f<9>;\n.reg .f64 %fd<3>;\n";

// The instructions of a kernel whose body is kRegs then `body`.
Module with_regs(const std::string& body) { return test::parse(test::kernel(std::string(kRegs) + body + "ret;\n")); }

}  // namespace

TEST_CASE("a register range declares its names in order, each one entry") {
    Module m = with_regs("mov.u32 %r12, %r37;\nmov.u32 %r0, 1;\n");
    const Function& k = m.functions.at(0);
    REQUIRE(k.registers.size() == 4 + 38 + 12 + 9 + 3);
    CHECK(k.registers[0].name == "%p0");
    CHECK(k.registers[0].type == ".pred");
    CHECK(k.registers[4].name == "%r0");
    CHECK(k.registers[41].name == "%r37");
    CHECK(k.registers[41].type == ".b32");
    CHECK(k.registers[42].name == "%rd0");
    CHECK(k.registers[42].pos.line == 8);
    const Instruction& mov = k.instructions.at(0);
    REQUIRE(mov.operands.size() == 2);
    CHECK(mov.operands[0].kind == Kind::reg);
    CHECK(mov.operands[0].reg == 4 + 12);
    CHECK(k.registers[size_t(mov.operands[0].reg)].name == "%r12");
    CHECK(mov.operands[1].reg == 41);
    CHECK(k.instructions[1].operands[0].reg == 4);
}

TEST_CASE("a name declared in an inline-asm block resolves to that block's declaration") {
    Module m = test::parse(test::kernel(".reg .pred p;\n.reg .b32 %r<3>;\n"
                                        "{\n.reg .pred p;\nsetp.ne.b32 p, %r1, 0;\n@p mov.u32 %r2, 1;\n"
                                        "{\n.reg .pred p;\nsetp.eq.b32 p, %r1, 0;\n}\n"
                                        "selp.b32 %r2, 1, 0, p;\n}\n"
                                        "@!p bra DONE;\nDONE:\nret;\n"));
    const Function& k = m.functions.at(0);
    // Registers: p (body) 0, %r0..%r2 1..3, p (block 1) 4, p (block 2) 5.
    REQUIRE(k.registers.size() == 6);
    CHECK(k.registers[4].scope == 1);
    CHECK(k.registers[5].scope == 2);
    REQUIRE(k.blocks.size() == 3);
    CHECK(k.blocks[0].parent == -1);
    CHECK(k.blocks[1].parent == 0);
    CHECK(k.blocks[2].parent == 1);
    CHECK(k.blocks[1].first_instruction == 0);
    CHECK(k.blocks[1].end_instruction == 4);
    CHECK(k.blocks[2].first_instruction == 2);
    CHECK(k.blocks[2].end_instruction == 3);
    CHECK(k.blocks[0].end_instruction == 6);
    const auto& ins = k.instructions;
    CHECK(ins[0].operands[0].reg == 4);  // the inner p
    CHECK(ins[0].scope == 1);
    REQUIRE(ins[1].guard);
    CHECK(ins[1].guard->reg == 4);
    CHECK_FALSE(ins[1].guard->negated);
    CHECK(ins[2].operands[0].reg == 5);  // the innermost p
    CHECK(ins[2].scope == 2);
    CHECK(ins[3].operands[3].reg == 4);  // back in block 1 after block 2 closed
    REQUIRE(ins[4].guard);
    CHECK(ins[4].guard->reg == 0);  // the body's p
    CHECK(ins[4].guard->negated);
    CHECK(ins[4].scope == 0);
    CHECK(ins[4].operands[0].label == 0);
}

TEST_CASE("labels repeated in sibling blocks resolve within their block, forward too") {
    Module m = test::parse(test::kernel(".reg .pred %p<2>;\n"
                                        "{\nLAB_WAIT:\n@%p1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n"
                                        "{\nLAB_WAIT:\n@%p1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n"
                                        "bra.uni $L__BB0_9;\n$L__BB0_9:\nret;\n"));
    const Function& k = m.functions.at(0);
    REQUIRE(k.labels.size() == 5);
    const auto& ins = k.instructions;
    CHECK(k.labels[size_t(ins[0].operands[0].label)].pos.line == 11);  // the first DONE
    CHECK(k.labels[size_t(ins[1].operands[0].label)].instruction == 0);
    CHECK(k.labels[size_t(ins[2].operands[0].label)].pos.line == 17);  // the second DONE
    CHECK(k.labels[size_t(ins[2].operands[0].label)].scope == 2);
    CHECK(k.labels[size_t(ins[3].operands[0].label)].instruction == 2);
    CHECK(k.labels[size_t(ins[4].operands[0].label)].instruction == 5);
}

TEST_CASE("every operand kind") {
    Module m = with_regs(
        "mov.u32 %r1, %tid.x;\n"                                 // 0 reg, special
        "mov.u64 %rd1, k_param_0;\n"                             // 1 symbol (a param)
        "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4+16];\n"    // 2 vector, address
        "st.global.v4.f32 [%rd4+-16], {%f1, _, %f3, %f4};\n"     // 3 negative offset, sink in a vector
        "ld.shared.u32 %r2, [0x100];\n"                          // 4 address without a base
        "setp.lt.s32 %p1|%p2, %r1, %r2;\n"                       // 5 pred_pair
        "selp.b32 %r3, 1, 0, !%p2;\n"                            // 6 negated source
        "mbarrier.arrive.shared::cta.b64 _, [%rd5];\n"           // 7 sink
        "shfl.sync.bfly.b32 %r4|%p3, %r1, 1, 31, -1;\n"          // 8 reg|pred
        "ld.shared.u32 %r5, [%rd6-8];\n");                       // 9
    const auto& ins = m.functions.at(0).instructions;
    CHECK(ins[0].operands[1].kind == Kind::special);
    CHECK(ins[0].operands[1].name == "%tid.x");
    CHECK(ins[1].operands[1].kind == Kind::symbol);
    CHECK(ins[1].operands[1].name == "k_param_0");
    CHECK(ins[1].operands[1].label == -1);
    CHECK(ins[1].operands[1].variable == -1);
    const Operand& v = ins[2].operands[0];
    CHECK(v.kind == Kind::vector);
    REQUIRE(v.elems.size() == 4);
    CHECK(v.elems[3].name == "%f4");
    const Operand& a = ins[2].operands[1];
    CHECK(a.kind == Kind::address);
    REQUIRE(a.base.size() == 1);
    CHECK(a.base[0].kind == Kind::reg);
    CHECK(a.base[0].name == "%rd4");
    CHECK(a.offset == 16);
    CHECK(ins[3].operands[0].offset == -16);
    CHECK(ins[3].operands[1].elems[1].kind == Kind::sink);
    CHECK(ins[4].operands[1].base.empty());
    CHECK(ins[4].operands[1].offset == 0x100);
    const Operand& pair = ins[5].operands[0];
    CHECK(pair.kind == Kind::pred_pair);
    REQUIRE(pair.elems.size() == 2);
    CHECK(pair.elems[0].name == "%p1");
    CHECK(pair.elems[1].name == "%p2");
    CHECK(ins[6].operands[3].kind == Kind::reg);
    CHECK(ins[6].operands[3].negated);
    CHECK(ins[6].operands[3].name == "%p2");
    CHECK(ins[7].operands[0].kind == Kind::sink);
    CHECK(ins[8].operands[0].elems[0].name == "%r4");
    CHECK(ins[8].operands[0].elems[1].name == "%p3");
    CHECK(ins[8].operands[4].bits == ~uint64_t(0));
    CHECK(ins[9].operands[1].offset == -8);
    CHECK(ins[2].operands[0].pos.line == 13);
    CHECK(ins[2].operands[0].pos.col == 18);
}

TEST_CASE("symbols as address bases and call arguments") {
    Module m = test::parse(std::string(test::kHeader) +
                           ".shared .align 8 .b8 bar[16];\n.global .align 4 .u32 counter;\n"
                           ".func (.param .b32 r) f(.param .b32 a, .param .b32 b)\n{\nret;\n}\n"
                           ".visible .entry k()\n{\n.reg .b32 %r<4>;\n"
                           "ld.shared.u64 %r1, [bar+8];\nred.global.add.u32 [counter], 1;\ncall (%r1), f, (%r2, %r3);\nret;\n}\n");
    const Function& k = m.functions.at(1);
    const auto& ins = k.instructions;
    const Operand& a = ins[0].operands[1];
    CHECK(a.kind == Kind::address);
    REQUIRE(a.base.size() == 1);
    CHECK(a.base[0].kind == Kind::symbol);
    CHECK(a.base[0].name == "bar");
    CHECK(a.base[0].variable == -1);  // a module variable: found by name
    CHECK(m.find_variable(a.base[0].name)->space == Space::shared);
    CHECK(a.offset == 8);
    CHECK(ins[1].operands[0].base[0].name == "counter");
    CHECK(ins[1].operands[0].offset == 0);
    const Instruction& call = ins[2];
    REQUIRE(call.operands.size() == 3);
    CHECK(call.operands[0].elems.at(0).kind == Kind::reg);
    CHECK(call.operands[1].kind == Kind::symbol);
    CHECK(call.operands[1].label == -1);
    CHECK(call.operands[2].elems.at(1).reg == 3);
}

TEST_CASE("the tensor address form keeps its coordinates") {
    Module m = with_regs("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                         "[%r13], [%rd10, {%r15, %r16}], [%r17];\n"
                         "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%rd1, {%r1, %r2, %r3, %r4, %r5}], [%r6];\n");
    const auto& ins = m.functions.at(0).instructions;
    const Operand& t = ins[0].operands[1];
    CHECK(t.kind == Kind::address);
    CHECK(t.base.at(0).name == "%rd10");
    REQUIRE(t.coords.size() == 2);
    CHECK(t.coords[0].name == "%r15");
    CHECK(t.coords[1].reg == 4 + 16);
    CHECK(ins[0].operands[0].coords.empty());
    CHECK(ins[1].operands[0].coords.size() == 5);
}

TEST_CASE("integer and float immediates keep their bits") {
    Module m = with_regs("mov.u32 %r1, 42;\nmov.u32 %r1, -1;\nmov.u32 %r1, 0x1F;\nmov.u32 %r1, 0b101;\n"
                         "mov.u32 %r1, 017;\nmov.u32 %r1, 42U;\nmov.u32 %r1, 0;\nmov.u64 %rd1, 18446744073709551615;\n"
                         "mov.f32 %f1, 0f3F800000;\nmov.f64 %fd1, 0d3FF0000000000000;\nadd.f32 %f1, %f1, 1.5;\n"
                         "add.f64 %fd1, %fd1, 1.5;\nadd.f32 %f1, %f1, -0f3F800000;\nmul.rn.f64 %fd1, %fd1, 2.5e-1;\n"
                         "mov.s32 %r1, -0x10;\nmov.u32 %r1, 0XFFu;\n");
    const auto& ins = m.functions.at(0).instructions;
    struct Expect {
        Kind kind;
        uint64_t bits;
    };
    const Expect expect[] = {
        {Kind::imm_int, 42},
        {Kind::imm_int, ~uint64_t(0)},
        {Kind::imm_int, 31},
        {Kind::imm_int, 5},
        {Kind::imm_int, 15},
        {Kind::imm_int, 42},
        {Kind::imm_int, 0},
        {Kind::imm_int, ~uint64_t(0)},
        {Kind::imm_f32, 0x3F800000},
        {Kind::imm_f64, 0x3FF0000000000000},
        {Kind::imm_f32, 0x3FC00000},           // a decimal float in an .f32 instruction: f32 bits
        {Kind::imm_f64, 0x3FF8000000000000},   // in an .f64 one: f64 bits
        {Kind::imm_f32, 0xBF800000},
        {Kind::imm_f64, 0x3FD0000000000000},
        {Kind::imm_int, uint64_t(-16)},
        {Kind::imm_int, 255},
    };
    REQUIRE(ins.size() == std::size(expect) + 1);
    for (size_t i = 0; i < std::size(expect); ++i) {
        INFO("instruction " << i << ": " << test::span_of(m, ins[i]));
        const Operand& op = ins[i].operands.back();
        CHECK(op.kind == expect[i].kind);
        CHECK(op.bits == expect[i].bits);
    }
}

TEST_CASE("the special registers are known by name, and any other % name must be declared") {
    const char* specials[] = {"%tid.x", "%ntid.y", "%ctaid.z", "%nctaid.x", "%laneid", "%warpid", "%nwarpid", "%smid",
                              "%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%cluster_ctarank",
                              "%cluster_nctarank", "%clusterid.x", "%nclusterid.x", "%cluster_ctaid.x", "%cluster_nctaid.x",
                              "%is_explicit_cluster", "%lanemask_lt", "%lanemask_eq", "%lanemask_le", "%lanemask_ge",
                              "%lanemask_gt", "%dynamic_smem_size", "%total_smem_size", "%envreg0", "%envreg31"};
    std::string body;
    for (const char* s : specials) body += std::string("mov.u32 %r1, ") + s + ";\n";
    Module m = with_regs(body);
    const auto& ins = m.functions.at(0).instructions;
    for (size_t i = 0; i < std::size(specials); ++i) {
        CHECK(ins[i].operands[1].kind == Kind::special);
        CHECK(ins[i].operands[1].name == specials[i]);
    }
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "mov.u32 %r1, %envreg32;\n")),
               Catch::StartsWith("11:14: '%envreg32' is neither a register declared in scope nor a special register"));
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "mov.u32 %r1, %tid.w;\n")), Catch::StartsWith("11:14: '%tid.w'"));
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "mov.u32 %r38, 1;\n")), Catch::StartsWith("11:9: '%r38'"));
}

TEST_CASE("text spans cover the instruction with its guard and its semicolon") {
    Module m = with_regs("\t@%p1 bra \t$L__BB0_2;\n$L__BB0_2:\n  mov.u32 %r1,\n    %r2 ;  // done\n"
                         "{ add.s32 %r1, %r1, 1; }\n");
    const auto& ins = m.functions.at(0).instructions;
    CHECK(test::span_of(m, ins[0]) == "@%p1 bra \t$L__BB0_2;");
    CHECK(ins[0].pos.line == 11);
    CHECK(ins[0].pos.col == 2);
    CHECK(test::span_of(m, ins[1]) == "mov.u32 %r1,\n    %r2 ;");
    CHECK(test::span_of(m, ins[2]) == "add.s32 %r1, %r1, 1;");
    CHECK(ins[2].scope == 1);
    const Function& k = m.functions.at(0);
    CHECK(m.text[k.body_begin - 1] == '{');
    CHECK(m.text[k.body_end] == '}');
    CHECK(m.text.substr(k.body_begin, 6) == "\n.reg ");
}

TEST_CASE("a guard must be a declared .pred register") {
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "@%r1 bra L;\nL:\n")),
               Catch::StartsWith("11:2: the guard '%r1' is a .b32 register; allowed: a .pred register"));
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "@%q1 bra L;\nL:\n")), Catch::StartsWith("11:2: '%q1'"));
    CHECK_THAT(test::error_of(test::kernel(std::string(kRegs) + "@ ;\n")), Catch::StartsWith("11:3: expected a predicate register after '@'"));
}

TEST_CASE("a vector register's component resolves to the vector") {
    Module m = test::parse(test::kernel(".reg .v4 .f32 %v1;\n.reg .f32 %f1;\nmov.f32 %f1, %v1.y;\n"));
    const Function& k = m.functions.at(0);
    CHECK(k.registers[0].vector == 4);
    CHECK(k.instructions[0].operands[1].kind == Kind::reg);
    CHECK(k.instructions[0].operands[1].reg == 0);
    CHECK(k.instructions[0].operands[1].name == "%v1.y");
}

}  // namespace test_operands
