// Model runs of the wgmma catalog scenarios and of small inline programs: the exact D bytes
// against a reference matmul computed here from the globals' initial bytes, and each
// hazard's rule, op and warp.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/core/arch_config.h"

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_wgmma_runs {

namespace {

std::string catalog(const std::string& rel) { return std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/" + rel; }

const MemoryImage& image(const RunResult& r, const std::string& space, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == space && m.name == name) return m;
    FAIL("no " << space << " image " << name);
    throw std::logic_error("unreachable");
}

std::vector<float> floats_of(const std::vector<uint8_t>& bytes) {
    std::vector<float> out(bytes.size() / 4);
    std::memcpy(out.data(), bytes.data(), out.size() * 4);
    return out;
}

// The f16/bf16 values of a global tensor's initial bytes, flat row-major.
std::vector<double> values_of(const Scenario& s, const std::string& name) {
    const GlobalTensor* t = s.find_global(name);
    REQUIRE(t);
    const std::vector<uint8_t> bytes = initial_bytes(*t);
    std::vector<double> out(t->num_elements());
    for (size_t i = 0; i < out.size(); ++i) out[i] = load_element_float(bytes.data(), t->type, i);
    return out;
}

// D = A [64, K] x B [N, K]^T over all of K, in double; every value must be an integer
// below 2^24 so that f32 holds it, and any summation order, exactly.
std::vector<float> reference_d(const Scenario& s, int64_t k_total, int n) {
    const std::vector<double> a = values_of(s, "A"), b = values_of(s, "B");
    std::vector<float> d(64 * n);
    for (int m = 0; m < 64; ++m)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t k = 0; k < k_total; ++k) sum += a[m * k_total + k] * b[j * k_total + k];
            REQUIRE(sum == std::floor(sum));
            REQUIRE(std::fabs(sum) < 16777216.0);
            d[m * n + j] = static_cast<float>(sum);
        }
    return d;
}

RunResult run_file(const std::string& rel, Scenario& s) {
    s = load_scenario_file(catalog(rel));
    return run_model(s);
}

std::string all_diagnostics(const RunResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += "\n  [" + d.rule + "] " + d.message;
    return out;
}

}  // namespace

TEST_CASE("wgmma catalog: D equals the reference matmul bit for bit", "[model][wgmma]") {
    struct Case {
        const char* file;
        int64_t k;
        int n;
    };
    for (const Case c : {Case{"wgmma/tma_wgmma_32b.yaml", 16, 16}, Case{"wgmma/tma_wgmma_64b_two_k.yaml", 32, 8},
                         Case{"wgmma/tma_wgmma_128b_four_k.yaml", 64, 8}, Case{"wgmma/n256_four_k.yaml", 64, 256},
                         Case{"teach/16b_ldgsts_fence_wgmma.yaml", 16, 16}}) {
        DYNAMIC_SECTION(c.file) {
            Scenario s;
            const RunResult r = run_file(c.file, s);
            INFO("diagnostics:" << all_diagnostics(r));
            REQUIRE(r.outcome == Outcome::ok);
            const std::vector<float> want = reference_d(s, c.k, c.n);
            const std::vector<float> got = floats_of(image(r, "shared", "d").bytes);
            REQUIRE(got.size() == want.size());
            for (size_t i = 0; i < want.size(); ++i) {
                INFO("D[" << i / c.n << "][" << i % c.n << "]");
                REQUIRE(got[i] == want[i]);
            }
            // D is no constant: a wrong row or column shows.
            CHECK(want.front() != want.back());
        }
    }
}

TEST_CASE("wgmma catalog: the 32B scenario's TMA store carries D to global memory", "[model][wgmma]") {
    Scenario s;
    const RunResult r = run_file("wgmma/tma_wgmma_32b.yaml", s);
    REQUIRE(r.outcome == Outcome::ok);
    CHECK(image(r, "global", "C").bytes == image(r, "shared", "d").bytes);
    // D[63][15] = sum_k (1008 + k) (240 + k), k = 0..15.
    double corner = 0;
    for (int k = 0; k < 16; ++k) corner += (1008.0 + k) * (240.0 + k);
    CHECK(floats_of(image(r, "global", "C").bytes).back() == static_cast<float>(corner));
}

TEST_CASE("wgmma teaching scenarios report their rule at their op", "[model][wgmma][teach]") {
    Scenario s;
    SECTION("16: cp.async operands without fence.proxy.async") {
        const RunResult r = run_file("teach/16_ldgsts_to_wgmma.yaml", s);
        REQUIRE(r.outcome == Outcome::hazard);
        REQUIRE(r.diagnostics.size() == 1);
        const Diagnostic& d = r.diagnostics[0];
        CHECK(d.rule == "proxy.generic_to_async");
        CHECK(d.op == 5);
        // Both operands, with the bytes and writers: A whole (128 threads x 16 B), B by threads 0-31.
        CHECK(d.message.find("a[0..2047] (written by threads 0-127)") != std::string::npos);
        CHECK(d.message.find("b[0..511] (written by threads 0-31)") != std::string::npos);
        CHECK(d.message.find("op #0") != std::string::npos);
        CHECK(d.message.find("op #1") != std::string::npos);
    }
    SECTION("25a: acc_fill after the fence, then mma") {
        const RunResult r = run_file("teach/25a_wgmma_acc_no_fence.yaml", s);
        REQUIRE(r.outcome == Outcome::hazard);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].rule == "wgmma.missing_fence");
        CHECK(r.diagnostics[0].op == 9);
        CHECK(r.diagnostics[0].detail.at("access_op") == "8");
        CHECK(r.diagnostics[0].message.find("'fill', op #8") != std::string::npos);
    }
    SECTION("25b: acc_store before wait_group stores the registers' old value") {
        const RunResult r = run_file("teach/25b_wgmma_read_before_wait.yaml", s);
        REQUIRE(r.outcome == Outcome::hazard);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].rule == "wgmma.acc_before_wait");
        CHECK(r.diagnostics[0].op == 11);
        CHECK(r.diagnostics[0].detail.at("mma_op") == "9");
        const std::vector<float> d = floats_of(image(r, "shared", "d").bytes);
        CHECK(std::count(d.begin(), d.end(), 0.0f) == 64 * 8);
    }
}

namespace {

// TMA-free programs: `prologue` fills A and B (f16 [64, 16] and [8, 16]) in shared memory.
std::string program(const std::string& block, const std::string& body) {
    return R"(
scenario: wgmma_inline
summary: inline wgmma program
source: tests/model
arch: sm_90
launch: {grid: [1], block: )" + block + R"(}
global:
  A: {type: f16, shape: [64, 16], init: iota}
  B: {type: f16, shape: [8, 16], init: iota}
tensormaps:
  mapA: {tensor: A, box: [64, 16], swizzle: 32B}
  mapB: {tensor: B, box: [8, 16], swizzle: 32B}
shared:
  a: {type: f16, shape: [64, 16], align: 256}
  b: {type: f16, shape: [8, 16], align: 256}
  d: {type: f32, shape: [64, 8]}
barriers:
  full: {}
accumulators:
  acc: {n: 8}
program:
)" + body + "expect:\n  outcome: ok\n";
}

const char* kLoad = R"(  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 2304, by: elected}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: a, barrier: full, by: elected}
  - {op: tma.load, map: mapB, coords: [0, 0], dst: b, barrier: full, by: elected}
)";

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "wgmma_inline.yaml")); }

}  // namespace

TEST_CASE("wgmma: a warpgroup without wgmma.fence is reported at its own warp", "[model][wgmma]") {
    // Two warpgroups; only the first fences. The second's first mma is uncovered.
    const RunResult r = run_text(program("256", std::string(kLoad) + R"(  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: wgmma.fence, by: "warp < 4"}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, label: mma}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
)"));
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "wgmma.missing_fence");
    CHECK(std::stoi(r.diagnostics[0].detail.at("warp")) >= 4);
    CHECK(r.diagnostics[0].message.find("no wgmma.fence before its first") != std::string::npos);
}

TEST_CASE("wgmma: wait_group does not cover an mma never committed", "[model][wgmma]") {
    const RunResult r = run_text(program("128", std::string(kLoad) + R"(  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, label: mma}
  - {op: wgmma.wait_group, n: 0}
  - {op: wgmma.acc_store, acc: acc, buffer: d, label: store}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
)"));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "wgmma.acc_before_wait");
    CHECK(r.diagnostics[0].op == 10);
    CHECK(r.diagnostics[0].detail.at("mma_op") == "8");
}

TEST_CASE("wgmma: reading operands a TMA load still writes races with it", "[model][wgmma]") {
    const RunResult r = run_text(program("128", std::string(kLoad) + R"(  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, label: mma}
  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
)"));
    INFO(all_diagnostics(r));
    REQUIRE(!r.diagnostics.empty());
    CHECK(r.diagnostics[0].rule == "race.read_before_complete");
    CHECK(r.diagnostics[0].op == 7);
}

TEST_CASE("wgmma: generic operand writes need the proxy fence of every issuing thread", "[model][wgmma]") {
    // compute writes A and B (generic); the async-proxy read by the warpgroup needs a fence
    // on each thread's causality path: writers fence then sync (B12 a) is enough; one
    // thread fencing after the sync (B12 b) covers that thread only, and all 128 issue the mma.
    const std::string write = R"(  - {op: compute, buffer: a, fn: "idx"}
  - {op: compute, buffer: b, fn: "idx"}
)";
    const std::string mma = R"(  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, label: mma}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
)";
    SECTION("writers fence, then sync: ok") {
        const RunResult r = run_text(program("128", write + "  - {op: fence.proxy.async}\n  - {op: sync}\n" + mma));
        INFO(all_diagnostics(r));
        CHECK(r.outcome == Outcome::ok);
    }
    SECTION("sync, then only thread 0 fences: the other threads' reads are unordered") {
        const RunResult r = run_text(program("128", write + "  - {op: sync}\n  - {op: fence.proxy.async, by: thread0}\n" + mma));
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].rule == "proxy.generic_to_async");
        CHECK(r.diagnostics[0].op == 5);
    }
    SECTION("sync, then every thread fences: ok") {
        const RunResult r = run_text(program("128", write + "  - {op: sync}\n  - {op: fence.proxy.async}\n" + mma));
        CHECK(r.outcome == Outcome::ok);
    }
}

TEST_CASE("wgmma timing: mmas queue on the warp's tensor core, wait_group resumes after the last", "[model][wgmma]") {
    // A copy of the h200 config with a near-zero probe and a slow tensor core, so that the
    // second mma queues behind the first.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "tmasim_wgmma_timing";
    fs::create_directories(dir);
    std::ifstream in(std::string(TMASIM_ARCH_DIR) + "/h200.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    auto set = [&](const std::string& key, const std::string& value) {
        const size_t at = text.find("value: ", text.find("  " + key + ":"));
        REQUIRE(at != std::string::npos);
        text.replace(at + 7, text.find('\n', at) - at - 7, value);
    };
    set("trace_probe_cycles", "1");
    set("wgmma_flops_per_cycle", "256");
    std::ofstream(dir / "h200.yaml") << text;
    const model::ArchConfig cfg = model::ArchConfig::load_file((dir / "h200.yaml").string());
    const model::TimingParams& tp = cfg.timing();
    REQUIRE(tp.wgmma_flops_per_cycle == 256);

    ModelOptions options;
    options.arch = "h200";
    options.arch_dir = dir.string();
    const Scenario s = load_scenario_text(program("128", std::string(kLoad) + R"(  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 1}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
)"), "timing.yaml");
    const RunResult r = run_model(s, options);
    REQUIRE(r.outcome == Outcome::ok);
    auto at = [&](int op, EventKind kind, bool model_only) {
        for (const TraceEvent& e : r.events)
            if (e.op == op && e.warp == 0 && e.kind == kind && e.model_only == model_only) return e.t;
        FAIL("no event for op " << op);
        return int64_t{-1};
    };
    const int64_t busy = static_cast<int64_t>(2.0 * 64 * 8 * 16 / tp.wgmma_flops_per_cycle);  // N = 8
    const int64_t issue = static_cast<int64_t>(tp.wgmma_issue_cycles);
    const int64_t latency = static_cast<int64_t>(tp.wgmma_latency_cycles);
    REQUIRE(busy > issue + 1);  // the second mma issues while the first still runs
    const int64_t first = at(8, EventKind::issue, false);
    const int64_t done1 = at(8, EventKind::state, true);
    const int64_t done2 = at(9, EventKind::state, true);
    CHECK(done1 == first + issue + busy + latency);
    CHECK(done2 == done1 + busy);
    CHECK(at(11, EventKind::wait_end, false) == done2 + static_cast<int64_t>(tp.wgmma_wait_resume_cycles));
}

}  // namespace test_wgmma_runs
