// Kernel scenarios through the binary: what the model cannot run, and params the PTX does not
// take, are refused before anything runs, with exit 2 and the line to look at; a catalog kernel
// runs and its twin's diagnostic names the PTX and .cu lines.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cli_kernels {

namespace {

// A module with one instruction the front end does not model (multimem: NVLink multicast
// memory, which no scenario can declare) on line 9, after ones it does.
const char* kUnsupportedPtx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                              ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
                              "\tmov.u32 %r1, 7;\n"
                              "\tbrev.b32 %r2, %r1;\n"
                              "\tmultimem.ld_reduce.relaxed.sys.global.add.u32 %r2, [%r1];\n"
                              "\tret;\n}\n";

const char* kTwoParamPtx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n\tret;\n}\n";

std::string kernel_yaml(const std::string& params) {
    return "scenario: k\nlaunch: {grid: [1], block: 32}\nglobal:\n  A: {type: f32, shape: [16]}\n"
           "kernel: {ptx: k.ptx, entry: k" + params + "}\n";
}

}  // namespace

TEST_CASE("cli kernels: an unsupported instruction exits 2 naming it and its PTX line", "[cli][kernel]") {
    write_file(scratch("k.ptx"), kUnsupportedPtx);
    write_file(scratch("k.yaml"), kernel_yaml(""));
    const std::string out = scratch("unsupported.jsonl");
    const auto r = run_cli("run '" + scratch("k.yaml") + "' --backend model -o '" + out + "'");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("k.ptx:9:") != std::string::npos);
    CHECK(r.err.find("multimem.ld_reduce") != std::string::npos);
    CHECK(r.err.find("unsupported instruction") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));  // refused before the run: no trace
}

TEST_CASE("cli kernels: a param the PTX does not take exits 2 naming both sides", "[cli][kernel]") {
    write_file(scratch("k.ptx"), kTwoParamPtx);
    SECTION("too few params") {
        write_file(scratch("k.yaml"), kernel_yaml(", params: [{global: A}]"));
        const auto r = run_cli("validate '" + scratch("k.yaml") + "'");
        INFO(r.err);
        CHECK(r.code == 2);
        CHECK(r.err.find("k.yaml:5:") != std::string::npos);
        CHECK(r.err.find("gives 1 params") != std::string::npos);
        CHECK(r.err.find("takes 2") != std::string::npos);
    }
    SECTION("a param of the wrong size") {
        write_file(scratch("k.yaml"), kernel_yaml(", params: [{global: A}, {u64: 3}]"));
        const auto r = run_cli("run '" + scratch("k.yaml") + "' --backend model -o '" + scratch("size.jsonl") + "'");
        INFO(r.err);
        CHECK(r.code == 2);
        CHECK(r.err.find("kernel.params[1]") != std::string::npos);
        CHECK(r.err.find("k_param_1") != std::string::npos);
        CHECK(r.err.find("k.ptx:6:") != std::string::npos);
        CHECK(r.err.find("u64 is 8 bytes") != std::string::npos);
    }
    SECTION("params that agree validate") {
        write_file(scratch("k.yaml"), kernel_yaml(", params: [{global: A}, {u32: 3}]"));
        CHECK(run_cli("validate '" + scratch("k.yaml") + "'").code == 0);
    }
}

TEST_CASE("cli kernels: a twin's hazard names the rule, the PTX line and the .cu line", "[cli][kernel]") {
    const auto r = run_cli("run scenarios/catalog/kernels/tma_store_no_proxy_fence.yaml --backend model -o '" +
                           scratch("twin.jsonl") + "'");
    INFO(r.out << r.err);
    CHECK(r.code == 0);  // the twin expects its hazard
    CHECK(r.out.find("hazard proxy.generic_to_async") != std::string::npos);
    CHECK(r.out.find(".ptx:") != std::string::npos);
    CHECK(r.out.find("tma_2d_load_modify_store.cu:") != std::string::npos);
}

}  // namespace test_cli_kernels
