#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "ptx_invariants.h"
#include "ptx_test_support.h"

using namespace tmasim::ptx;
using Kind = Operand::Kind;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_fixtures {

namespace {

std::string fixture_path(const std::string& name) { return std::string(TMASIM_SOURCE_DIR) + "/tests/ptx/fixtures/" + name; }

Module fixture(const std::string& name) {
    Module m = read_module_file(fixture_path(name + ".ptx"));
    INFO(name);
    CHECK(test::check_invariants(m) == "");
    return m;
}

// The 1-based line of the first line of the fixture's .cu that contains `text`.
int cu_line(const std::string& name, const std::string& text) {
    std::ifstream in(fixture_path(name + ".cu"));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
        if (line.find(text) != std::string::npos) return n;
    return -1;
}

const Function& entry(const Module& m, const std::string& name_part) {
    for (const Function& f : m.functions)
        if (f.is_entry && f.name.find(name_part) != std::string::npos) return f;
    FAIL("no entry named *" << name_part << "*");
    throw;
}

std::vector<const Instruction*> with_opcode(const Function& f, const std::string& opcode) {
    std::vector<const Instruction*> found;
    for (const Instruction& ins : f.instructions)
        if (ins.opcode == opcode) found.push_back(&ins);
    return found;
}

const Register& reg_of(const Function& f, const Operand& op) {
    REQUIRE(op.kind == Kind::reg);
    return f.registers.at(size_t(op.reg));
}

}  // namespace

TEST_CASE("tma_barrier: TMA copies, the barrier wait loop, the timer, the kernel's params") {
    Module m = fixture("tma_barrier");
    CHECK(m.version == "9.0");
    CHECK(m.targets == std::vector<std::string>{"sm_90a"});
    const Function& k = entry(m, "tma_tile");
    REQUIRE(k.params.size() == 3);  // two CUtensorMaps (__grid_constant__) and a pointer
    CHECK(k.params[0].align == 128);
    CHECK(k.params[0].size_bytes == 128);
    CHECK(k.params[1].offset == 128);
    CHECK(k.params[2].offset == 256);
    CHECK(k.param_bytes() == 264);
    CHECK(k.directives.at("maxntid") == std::vector<int64_t>{128, 1, 1});
    CHECK(k.directives.at("minnctapersm") == std::vector<int64_t>{1});

    auto loads = with_opcode(k, "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes");
    REQUIRE(loads.size() == 1);
    const Instruction& load = *loads[0];
    REQUIRE(load.operands.size() == 3);
    CHECK(load.operands[1].kind == Kind::address);
    CHECK(reg_of(k, load.operands[1].base.at(0)).type == ".b64");
    CHECK(load.operands[1].coords.size() == 2);
    // Its .loc chain ends at the kernel's line that called cuda::ptx.
    REQUIRE(load.loc >= 0);
    const DebugLoc& loc = k.locs[size_t(load.loc)];
    REQUIRE(loc.chain.size() >= 2);
    CHECK(m.files.at(loc.chain.back().file).find("tma_barrier.cu") != std::string::npos);
    CHECK(loc.chain.back().line == cu_line("tma_barrier", "ptx::cp_async_bulk_tensor(ptx::space_shared"));
    CHECK(m.files.at(loc.chain.front().file).find("cp_async_bulk_tensor.h") != std::string::npos);
    CHECK_THAT(m.where(k, load), Catch::Contains("(tma_barrier.cu:" + std::to_string(loc.chain.back().line)));

    auto stores = with_opcode(k, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group");
    REQUIRE(stores.size() == 1);
    CHECK(stores[0]->operands[0].coords.size() == 2);
    CHECK(with_opcode(k, "cp.async.bulk.commit_group").size() == 1);
    REQUIRE(with_opcode(k, "cp.async.bulk.wait_group.read").size() == 1);
    CHECK(with_opcode(k, "cp.async.bulk.wait_group.read")[0]->operands.at(0).bits == 0);

    // The inline-asm wait: its P_OUT is its block's own, a .pred, and selp reads the same one.
    auto waits = with_opcode(k, "mbarrier.try_wait.parity.shared::cta.b64");
    REQUIRE(waits.size() >= 2);
    for (const Instruction* w : waits) {
        const Register& p = reg_of(k, w->operands.at(0));
        CHECK(p.name == "P_OUT");
        CHECK(p.type == ".pred");
        CHECK(p.scope == w->scope);
        CHECK(w->scope != 0);
        const Instruction& selp = *(w + 1);
        CHECK(selp.opcode == "selp.b32");
        CHECK(selp.operands.at(3).reg == w->operands.at(0).reg);
    }
    CHECK(waits[0]->operands[0].reg != waits[1]->operands[0].reg);

    int timers = 0, sleeps = 0;
    for (const Instruction& ins : k.instructions) {
        if (ins.opcode == "mov.u64" && ins.operands.at(1).kind == Kind::special && ins.operands[1].name == "%globaltimer") ++timers;
        if (ins.opcode == "nanosleep.u32") ++sleeps;
    }
    CHECK(timers >= 2);
    CHECK(sleeps >= 1);
    const Variable* bar = nullptr;
    for (const Variable& v : k.variables)
        if (v.name.find("3bar") != std::string::npos) bar = &v;
    REQUIRE(bar);
    CHECK(bar->space == Space::shared);
    CHECK(bar->size_bytes() == 8);
    REQUIRE(m.sections.size() == 1);
    CHECK(m.sections[0].name == ".debug_str");
}

TEST_CASE("wgmma: 64 accumulators in one vector, descriptors, the scale predicate of its block") {
    Module m = fixture("wgmma");
    const Function& k = entry(m, "wgmma_tile");
    auto mmas = with_opcode(k, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16");
    REQUIRE(mmas.size() == 1);
    const Instruction& mma = *mmas[0];
    REQUIRE(mma.operands.size() == 8);
    const Operand& d = mma.operands[0];
    CHECK(d.kind == Kind::vector);
    REQUIRE(d.elems.size() == 64);
    for (const Operand& e : d.elems) CHECK(reg_of(k, e).type == ".f32");
    CHECK(reg_of(k, mma.operands[1]).type == ".b64");
    CHECK(reg_of(k, mma.operands[2]).type == ".b64");
    const Register& p = reg_of(k, mma.operands[3]);
    CHECK(p.name == "p");
    CHECK(p.scope == mma.scope);
    CHECK(mma.scope != 0);
    CHECK(mma.operands[4].bits == 1);
    CHECK(mma.operands[7].bits == 0);
    const Instruction& setp = *(mmas[0] - 1);
    CHECK(setp.opcode == "setp.ne.b32");
    CHECK(setp.operands[0].reg == mma.operands[3].reg);
    for (const char* op : {"wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned",
                           "fence.proxy.async.shared::cta"})
        CHECK(with_opcode(k, op).size() == 1);
    CHECK(k.directives.at("maxntid") == std::vector<int64_t>{128, 1, 1});
    const std::string span = test::span_of(m, mma);
    CHECK(span.rfind("wgmma.mma_async", 0) == 0);
    CHECK(span.substr(span.size() - 14) == "p, 1, 1, 0, 0;");
}

TEST_CASE("cluster: cluster directives, mapa, st.async, barrier.cluster, the cluster registers") {
    Module m = fixture("cluster");
    const Function& x = entry(m, "cluster_exchange");
    CHECK(x.directives.at("reqnctapercluster") == std::vector<int64_t>{2, 1, 1});
    CHECK(x.directives.count("explicitcluster") == 1);
    CHECK(with_opcode(x, "mapa.u64").size() == 2);
    CHECK(with_opcode(x, "barrier.cluster.arrive").size() >= 1);
    CHECK(with_opcode(x, "barrier.cluster.wait").size() >= 1);
    auto st = with_opcode(x, "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.b32");
    REQUIRE(st.size() == 1);
    REQUIRE(st[0]->operands.size() == 3);
    CHECK(st[0]->operands[0].kind == Kind::address);
    CHECK(st[0]->operands[2].kind == Kind::address);
    int rank_reads = 0;
    for (const Instruction& ins : x.instructions)
        for (const Operand& op : ins.operands) rank_reads += op.kind == Kind::special && op.name == "%cluster_ctarank";
    CHECK(rank_reads >= 2);
    const Function& bounded = entry(m, "cluster_bounded");
    CHECK(bounded.directives.at("maxclusterrank") == std::vector<int64_t>{4});
    CHECK(bounded.directives.at("maxntid") == std::vector<int64_t>{256, 1, 1});
    CHECK(entry(m, "register_bounded").directives.at("maxnreg") == std::vector<int64_t>{168});
}

TEST_CASE("cp_async_warp: cp.async groups, vector memory, warp collectives, atomics") {
    Module m = fixture("cp_async_warp");
    const Function& k = entry(m, "copy_reduce");
    auto copies = with_opcode(k, "cp.async.cg.shared.global");
    REQUIRE(copies.size() == 2);
    CHECK(copies[0]->operands.size() == 4);
    CHECK(copies[0]->operands[2].bits == 16);
    CHECK(with_opcode(k, "cp.async.commit_group").size() == 2);
    REQUIRE(with_opcode(k, "cp.async.wait_group").size() == 2);
    CHECK(with_opcode(k, "cp.async.wait_group")[0]->operands[0].bits == 1);
    auto v4 = with_opcode(k, "ld.global.v4.f32");
    REQUIRE(v4.size() == 1);
    CHECK(v4[0]->operands[0].elems.size() == 4);
    CHECK(v4[0]->operands[1].offset == 16);
    auto st4 = with_opcode(k, "st.global.v4.f32");
    REQUIRE(st4.size() == 1);
    CHECK(st4[0]->operands[1].kind == Kind::vector);
    auto shfl = with_opcode(k, "shfl.sync.bfly.b32");
    REQUIRE(shfl.size() == 5);
    CHECK(shfl[0]->operands[0].kind == Kind::pred_pair);
    CHECK(reg_of(k, shfl[0]->operands[0].elems[1]).type == ".pred");
    auto elect = with_opcode(k, "elect.sync");
    REQUIRE(elect.size() == 1);
    const Operand& pair = elect[0]->operands[0];
    CHECK(reg_of(k, pair.elems[0]).name == "%rx");
    CHECK(reg_of(k, pair.elems[1]).scope == elect[0]->scope);
    const Instruction& guarded = *(elect[0] + 1);
    REQUIRE(guarded.guard);
    CHECK(guarded.guard->reg == pair.elems[1].reg);
    auto setp = with_opcode(k, "setp.lt.s32");
    REQUIRE(!setp.empty());
    const Instruction& pq = *setp.back();
    REQUIRE(pq.operands[0].kind == Kind::pred_pair);
    CHECK(reg_of(k, pq.operands[0].elems[0]).name == "p");
    const Instruction& selp = *(setp.back() + 1);
    CHECK(selp.opcode == "selp.s32");
    CHECK(selp.operands[3].negated);
    CHECK(selp.operands[3].reg == pq.operands[0].elems[1].reg);
    CHECK(selp.operands[2].bits == uint64_t(-1));
    for (const char* op : {"red.relaxed.gpu.global.add.u32", "vote.sync.ballot.b32", "vote.sync.any.pred", "match.any.sync.b32",
                           "atom.global.cas.b32", "atom.global.add.f32", "atom.global.max.u32"})
        CHECK(with_opcode(k, op).size() == 1);
}

TEST_CASE("device_calls: a .func and its call, printf, .local, conversions, module variables") {
    Module m = fixture("device_calls");
    const Function* vprintf = m.find_function("vprintf");
    REQUIRE(vprintf);
    CHECK(vprintf->is_extern);
    CHECK(vprintf->returns.size() == 1);
    CHECK(vprintf->params.size() == 2);
    const Function* blend = m.find_function("_Z5blendffi");
    REQUIRE(blend);
    CHECK(blend->has_body);
    CHECK_FALSE(blend->is_entry);
    CHECK(blend->returns.at(0).name == "func_retval0");
    CHECK(blend->params.size() == 3);
    CHECK(blend->params[2].offset == 8);

    const Function& k = entry(m, "calls_and_conversions");
    int calls_blend = 0, calls_vprintf = 0;
    for (const Instruction* call : with_opcode(k, "call.uni")) {
        REQUIRE(call->operands.size() == 3);
        CHECK(call->operands[0].kind == Kind::vector);
        CHECK(call->operands[2].kind == Kind::vector);
        if (call->operands[1].name == "_Z5blendffi") {
            ++calls_blend;
            CHECK(call->operands[2].elems.size() == 3);
        }
        if (call->operands[1].name == "vprintf") {
            ++calls_vprintf;
            CHECK(call->operands[2].elems.size() == 2);
            CHECK(call->operands[2].elems[0].variable >= 0);
            CHECK(k.variables.at(size_t(call->operands[2].elems[0].variable)).space == Space::param);
        }
        CHECK(test::span_of(m, *call).find("call.uni (retval0),") == 0);
    }
    CHECK(calls_blend == 1);
    CHECK(calls_vprintf == 1);
    const Variable* depot = nullptr;
    for (const Variable& v : k.variables)
        if (v.name.rfind("__local_depot", 0) == 0) depot = &v;
    REQUIRE(depot);
    CHECK(depot->space == Space::local);
    CHECK(depot->size_bytes() >= 64);
    for (const char* op : {"cvt.rn.f16.f32", "cvt.rn.bf16.f32", "cvt.f32.f16", "cvt.rzi.s32.f32", "cvt.rni.s32.f32", "cvt.rpi.s32.f32",
                           "cvt.rn.f32.f64", "cvt.rn.f32.s32"})
        CHECK_FALSE(with_opcode(k, op).empty());

    CHECK(m.find_variable("counter")->init == std::vector<uint8_t>{3, 0, 0, 0});
    CHECK(m.find_variable("tag")->init == std::vector<uint8_t>{1, 2, 3, 4});
    CHECK(m.find_variable("scale")->init == std::vector<uint8_t>{0x00, 0x00, 0xC0, 0x3F});
    const Variable* ptr = m.find_variable("counter_ptr");
    REQUIRE(ptr);
    CHECK(ptr->init_symbols == std::vector<std::pair<int64_t, std::string>>{{0, "counter"}});
    const Variable* table = m.find_variable("table");
    CHECK(table->space == Space::const_);
    CHECK(table->size_bytes() == 16);
    CHECK(table->init.at(4) == 236);  // -20, little-endian
    const Variable* smem = m.find_variable("dynamic_smem");
    CHECK(smem->is_extern);
    CHECK(smem->alignment() == 16);
    CHECK(smem->dims == std::vector<int64_t>{0});
    const Variable* str = m.find_variable("$str");
    REQUIRE(str);
    // nvcc leaves out the trailing NUL: the bytes past the initializer are zero.
    CHECK(std::string(str->init.begin(), str->init.end()) == "out[0] = %f, counter %u, smem %f\n");
    CHECK(str->size_bytes() == 34);
}

}  // namespace test_fixtures
