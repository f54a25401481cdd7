// Barrier storage lifetime (semantics.md A11) on the PTX front end: a kernel's barrier is an
// address like any other, so the same checks apply when its word is stored to as data. One
// small kernel, compiled by NVRTC at the run: thread 0 inits a barrier in a shared word,
// everyone arrives and waits, then warp 1 stores data into the word, after thread 0's inval
// and a __syncthreads (ok) or with the inval left out (a store into a live barrier).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog_support.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace test_barrier_storage_kernel {
using tmasim::test::all_diagnostics;
namespace {

const char* kKernel = R"(
extern "C" __global__ void barrier_word_reuse(int* out) {
    __shared__ alignas(8) unsigned long long word[2];
    const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&word[0]));
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(blockDim.x));
    __syncthreads();
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "l"(state) : "memory");
    __syncthreads();
#ifndef SKIP_INVAL
    if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
    __syncthreads();
#endif
    if (threadIdx.x == 32) reinterpret_cast<volatile int*>(word)[0] = 7;
    __syncthreads();
    out[threadIdx.x] = static_cast<int>(threadIdx.x);
}
)";

RunResult run_kernel(const std::string& defines) {
    const fs::path dir = fs::temp_directory_path() / "tmasim_barrier_storage_kernel";
    fs::create_directories(dir);
    std::ofstream(dir / "barrier_word_reuse.cu") << kKernel;
    const std::string yaml = "scenario: barrier_word_reuse\n"
                             "launch: {grid: [1], block: 64}\n"
                             "global:\n  O: {type: i32, shape: [64], init: {fill: 0}}\n"
                             "kernel:\n  cuda: barrier_word_reuse.cu\n  entry: barrier_word_reuse\n" +
                             defines + "  params:\n    - {global: O}\n";
    const fs::path file = dir / ("s" + std::to_string(defines.size()) + ".yaml");
    std::ofstream(file) << yaml;
    return run_model(load_scenario_file(file.string()));
}

}  // namespace

TEST_CASE("kernel barrier storage: data stored into a barrier's word after its inval is ok, before is a hazard",
          "[model][kernel][barriers]") {
    {
        const RunResult r = run_kernel("");
        INFO(all_diagnostics(r));
        CHECK(r.outcome == Outcome::ok);
        CHECK(r.diagnostics.empty());
    }
    const RunResult r = run_kernel("  defines: [SKIP_INVAL]\n");
    INFO(all_diagnostics(r));
    CHECK(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 1);
    const Diagnostic& d = r.diagnostics[0];
    CHECK(d.rule == "mbarrier.live_bytes_access");
    CHECK(d.detail.at("thread") == "32");
    CHECK(d.detail.at("first_byte") + ".." + d.detail.at("last_byte") == "0..3");
    CHECK(d.message.find("semantics.md A11") != std::string::npos);
}

}  // namespace test_barrier_storage_kernel
