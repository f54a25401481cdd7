// Trace levels in the generated kernel (all, waits, none), and the benchmark's kernels:
// every bench scenario at every level and every hand-written reference compile for sm_90a.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "device/bench_executor.h"
#include "device/codegen.h"
#include "device/kernel_abi.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// The kernel itself, without the wrappers in front of it.
std::string kernel_of(const std::string& source) { return source.substr(source.find("extern \"C\" __global__")); }

Scenario bench(const std::string& name) {
    return load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/" + name + ".yaml");
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("trace level none leaves no per-op clock read or store; entry and exit keep theirs", "[device][codegen]") {
    const Scenario s = bench("tma_stream");
    const std::string none = kernel_of(generate_kernel_source(s, TraceLevel::none));
    CHECK(none.find("// Trace level `none`") != std::string::npos);
    CHECK(count(none, "= read_clock64();") == 3);  // entry_clock, start_clock and exit_clock
    CHECK(count(none, "read_globaltimer();") == 2);
    CHECK(count(none, "st_global_u64(") == 0);
    CHECK(count(none, "trace_exit(") == 1);
    CHECK(count(none, "trace_advance(") == 0);
    // The ops themselves are all there.
    CHECK(count(none, "mbarrier_arrive_expect_tx_shared_cta_b64(") == 2);
    CHECK(count(none, "cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(") == 2);
    CHECK(count(none, "mbarrier_wait_parity_watchdog(") == 2);

    const std::string all = kernel_of(generate_kernel_source(s, TraceLevel::all));
    // One clock read and one 8-byte store per op (4 of the "ops" are loops): every op follows
    // a timed one, so none reads a begin of its own.
    const size_t ops = count(all, "// op ") - 4;
    CHECK(count(all, "const unsigned long long c0_") == 0);
    CHECK(count(all, "const unsigned long long c1_") == ops);
    CHECK(count(all, "st_global_u64(tw + ") == ops);
    // A word stored right before a sync or an arrive would hold it back: three are stored
    // after the op that follows them (wait -> sync, sync -> arrive_expect_tx, and in the
    // drain, wait -> sync).
    CHECK(count(all, "held back") == 3);
    CHECK(count(all, "read_globaltimer();") == 2);  // no per-op %globaltimer
    // Per iteration of each of the 4 loops, and before the loop that follows the first sync.
    CHECK(count(all, "trace_advance(tw, ") == 4 + 1);
}

TEST_CASE("a timed barrier's clock read waits for the release: a store or __syncwarp comes first", "[device][codegen]") {
    for (const char* name : {"tma_stream", "multicast_cluster"}) {
        for (TraceLevel level : {TraceLevel::all, TraceLevel::waits}) {
            const Scenario s = bench(name);
            const std::string src = kernel_of(generate_kernel_source(s, level));
            INFO(name << " at " << to_string(level));
            for (const char* barrier : {"barrier_sync_aligned_0();", "barrier_cluster_wait_aligned();"}) {
                for (size_t at = src.find(barrier); at != std::string::npos; at = src.find(barrier, at + 1)) {
                    const size_t clock = src.find("read_clock64()", at);
                    if (clock == std::string::npos) continue;  // the kernel's final barrier
                    const std::string between = src.substr(at, clock - at);
                    if (between.find("trace_exit(") != std::string::npos) continue;
                    CHECK((between.find("st_global_u64(") != std::string::npos ||
                           between.find("__syncwarp(") != std::string::npos));
                }
            }
        }
    }
}

TEST_CASE("trace level waits times the waits and syncs only", "[device][codegen]") {
    const Scenario s = bench("tma_stream");
    const std::string src = generate_kernel_source(s, TraceLevel::waits);
    for (const Op* op : s.all_ops()) {
        if (op->kind == OpKind::loop) continue;
        const bool timed = op->kind == OpKind::mbarrier_wait || op->kind == OpKind::sync;
        INFO("op " << op->id << " " << to_string(op->kind));
        CHECK((src.find(fmt::format("const unsigned long long c1_{} =", op->id)) != std::string::npos) == timed);
    }
}

TEST_CASE("a wait reads the watchdog's timer only after a first probe failed", "[device][codegen]") {
    const std::string src = generate_kernel_source(bench("tma_stream"), TraceLevel::none);
    const size_t fn = src.find("bool mbarrier_wait_parity_watchdog(");
    REQUIRE(fn != std::string::npos);
    const size_t probe = src.find("if (mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) return true;", fn);
    const size_t timer = src.find("read_globaltimer()", fn);
    CHECK(probe < timer);
}

TEST_CASE("every bench scenario compiles at every trace level, and every reference kernel", "[device][codegen][nvrtc]") {
    for (const std::string& name : bench_case_names()) {
        INFO(name);
        const Scenario s = bench(name);
        for (TraceLevel level : {TraceLevel::all, TraceLevel::waits, TraceLevel::none})
            test::require_compiles(generate_kernel_source(s, level), "sm_90a");
        test::require_compiles(reference_kernel_source(name, 512), "sm_90a");
    }
    CHECK_THROWS_AS(reference_kernel_source("no_such_case", 8), std::invalid_argument);
}

TEST_CASE("an array index is checked at run time unless every value it can take is inside the array",
          "[device][codegen]") {
    const std::string text = R"(
scenario: indices
launch: {grid: [2], block: 32}
shared:
  s: {type: i32, shape: [32], array: 4}
program:
  - op: loop
    var: i
    count: 8
    body:
      - {op: compute, buffer: "s[i%4]", fn: "x + 1", label: in_range}
      - {op: compute, buffer: "s[(i+cta)%4]", fn: "x + 1", label: with_cta}
  - op: loop
    var: j
    count: "cta + 2"
    body:
      - {op: compute, buffer: "s[j]", fn: "x + 1", label: runtime_count}
)";
    const Scenario s = load_scenario_text(text, "indices.yaml");
    const std::string src = kernel_of(generate_kernel_source(s));
    const auto block_of = [&](int id) {
        const size_t at = src.find(fmt::format("// op {}:", id));
        return src.substr(at, src.find("// op ", at + 6) - at);
    };
    CHECK(block_of(1).find("checked_index(") == std::string::npos);
    CHECK(block_of(2).find("checked_index(") == std::string::npos);
    CHECK(src.find("for (int L0 = 0; L0 < n0; ++L0)") != std::string::npos);        // count 8
    CHECK(src.find("for (long long L0 = 0; L0 < n0; ++L0)") != std::string::npos);  // count cta + 2
    CHECK(block_of(4).find("checked_index(") != std::string::npos);  // a count that is not a constant
}
