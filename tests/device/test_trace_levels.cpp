// Trace levels in the generated kernel (all, waits, none), and the benchmark's kernels:
// every bench scenario at every level and every hand-written reference compile for sm_90a.
#include <catch2/catch.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "device/bench/bench_executor.h"
#include "device/emit/codegen.h"
#include "device/emit/kernel_abi.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// The kernel itself, without the wrappers in front of it.
std::string kernel_of(const std::string& source) { return source.substr(source.find("extern \"C\" __global__")); }

// A benchmark scenario; `steady` (when not 0) sets its loop over t, as the benchmark scales it.
Scenario bench(const std::string& name, int64_t steady = 0) {
    Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/" + name + ".yaml");
    for (Op& op : s.program)
        if (steady > 0 && op.kind == OpKind::loop && op.var == "t") op.loop_count = Expr::constant(steady);
    return s;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("trace level none leaves no per-op clock read or store, entry and exit keep theirs", "[device][codegen]") {
    // The benchmark's scale: 512 tiles, so the steady loop stays a loop (the others, 4
    // iterations each, are written out).
    const Scenario s = bench("tma_stream", 508);
    const std::string none = kernel_of(generate_kernel_source(s, TraceLevel::none));
    CHECK(none.find("// Trace level `none`") != std::string::npos);
    CHECK(count(none, "= read_clock64();") == 3);  // entry_clock, start_clock and exit_clock
    CHECK(count(none, "read_globaltimer();") == 2);
    CHECK(count(none, "tbuf[") == 1);  // its declaration
    CHECK(count(none, "st_global_u32(") == 0);
    CHECK(count(none, "trace_exit(") == 1);
    CHECK(count(none, "tw += ") == 0);
    // The ops themselves are all there: 4 written-out prologue copies and the steady loop's.
    CHECK(count(none, "mbarrier_arrive_expect_tx_shared_cta_b64(") == 4 + 1);
    CHECK(count(none, "cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(") == 4 + 1);
    // Each wait's first probe, and the one call that retries (and reports a hang) after it.
    CHECK(count(none, "mbarrier_wait_parity_fast(") == 1 + 4);
    CHECK(count(none, "mbarrier_wait_parity_slow(") == 0);  // inside the call
    CHECK(count(none, "mbarrier_wait_parity_or_exit(") == 1 + 4);
    CHECK(count(none, "report_hang(") == 0);

    const std::string all = kernel_of(generate_kernel_source(s, TraceLevel::all));
    // One word per timed op instance written (every op follows a timed one: no begin reads),
    // one store each, by the elected lane, at the end of each segment between loop boundaries.
    // An elected run's arrive_expect_tx is folded into the run: the copy's read after the
    // branch times both, and the arrive stores no word.
    const size_t reads = count(all, " ends\n") + count(all, " ends (the run's end)\n");
    CHECK(count(all, "  // op 1 ends") == 4);  // the inits, written out
    CHECK(reads == 4 + 1 + 4 + 3 + 8);  // inits, sync, the prologue's 4 runs, the steady body, the drain
    CHECK(count(all, "mbarrier.arrive_expect_tx (folded into the run)") == 4 + 1);
    // The elected arrive_expect_tx and copy share one branch: the prologue's 4 and the steady loop's.
    CHECK(count(all, ": by elected, one branch") == 4 + 1);
    CHECK(count(all, "// op 7 begins") == 0);
    // The steady loop's three words (in global memory here), stored at its end by three lanes in
    // one store instruction, each lane picking its word with selp (no branch); a __syncwarp
    // holds the sync's clock read.
    CHECK(all.find("{ unsigned word = tbuf[0]; word = selp_b32(tbuf[1], word, lane == 1); word = selp_b32(tbuf[2], "
                   "word, lane == 2); if (lane < 3) st_global_u32(tw + 0 + lane, word); }\n            tw += 3;") !=
          std::string::npos);
    // Segments: before the steady loop (9 words), its body (3), after it (8).
    CHECK(count(all, "tw += ") == 2);
    CHECK(all.find("tw += 9;") != std::string::npos);
    CHECK(all.find("tw += 3;") != std::string::npos);
    CHECK(count(all, "read_globaltimer();") == 2);  // no per-op %globaltimer
}

TEST_CASE("a timed barrier's clock read waits for the release: a store or a __syncwarp comes first",
          "[device][codegen]") {
    // Each holds the read until the barrier released (kernel_writer_trace.cpp,
    // hold_clock_after_barrier): words kept in shared memory, stored; with words in global
    // memory (stored together at the loop's end) or none pending, a __syncwarp.
    int by_store = 0, by_syncwarp = 0;
    for (const char* name : {"tma_stream", "multicast_cluster", "ldgsts_stream"}) {
        for (TraceLevel level : {TraceLevel::all, TraceLevel::waits})
        for (TraceWordsIn words_in : {TraceWordsIn::global, TraceWordsIn::shared}) {
            const Scenario s = bench(name, 508);
            const std::string src = kernel_of(generate_kernel_source(s, level, words_in));
            INFO(name << " at " << to_string(level) << (words_in == TraceWordsIn::shared ? ", words in shared" : ""));
            for (const char* barrier : {"barrier_sync_aligned_0();", "barrier_cluster_wait_aligned();"}) {
                for (size_t at = src.find(barrier); at != std::string::npos; at = src.find(barrier, at + 1)) {
                    const size_t clock = std::min(src.find("read_clock64()", at), src.find("trace_clock64()", at));
                    if (clock == std::string::npos) continue;  // the kernel's final barrier
                    const std::string between = src.substr(at, clock - at);
                    if (between.find("trace_exit(") != std::string::npos) continue;
                    const bool store = between.find("if (lane == (int)leader_lane) { st_shared_u32(") != std::string::npos;
                    const bool syncwarp = between.find("trace_after_barrier();") != std::string::npos;
                    CHECK((store || syncwarp));
                    if (store) CHECK(words_in == TraceWordsIn::shared);
                    by_store += store;
                    by_syncwarp += syncwarp;
                }
            }
        }
    }
    CHECK(by_store > 0);
    CHECK(by_syncwarp > 0);
    // A sync that opens a loop body has no word to store before it: a __syncwarp holds it.
    const Scenario opens = load_scenario_text(R"(
scenario: sync_first
launch: {grid: [1], block: 64}
shared:
  buf: {type: f32, shape: [64]}
program:
  - op: loop
    var: t
    count: 100
    body:
      - {op: sync}
      - {op: shared.store, buffer: buf, index: "tid", value: "t"}
)", "sync_first.yaml");
    const std::string src = kernel_of(generate_kernel_source(opens, TraceLevel::all));
    const size_t sync = src.find("barrier_sync_aligned_0();");
    REQUIRE(sync != std::string::npos);
    CHECK(src.find("trace_after_barrier();", sync) < src.find("trace_clock64()", sync));
    // ... which is a __syncwarp unless the benchmark's experiment leaves it out.
    const std::string abi(kernel_abi_device_source());
    const size_t fn = abi.find("void trace_after_barrier()");
    REQUIRE(fn != std::string::npos);
    const std::string body = abi.substr(fn, abi.find('}', fn) - fn);
    CHECK(body.find("#if !defined(TMASIM_TRACE_NO_SYNCWARP)\n    __syncwarp(__activemask());") != std::string::npos);
}

TEST_CASE("a sync followed by copies the tracer does not time reads its end after their issue", "[device][codegen]") {
    // The LDGSTS stream's stage: wait_group, sync, eight cp.async (a written-out loop, untimed),
    // commit. The sync's hold and end clock come after the eighth copy; its word keeps its
    // place, so the trace decodes as before.
    const std::string src = kernel_of(generate_kernel_source(bench("ldgsts_stream", 508), TraceLevel::all));
    const size_t loop = src.find("for (int L0 = 0; L0 < n0; ++L0)", src.find("// op 4: loop"));
    REQUIRE(loop != std::string::npos);
    const size_t barrier = src.find("barrier_sync_aligned_0();", loop);
    const size_t last_copy = src.rfind("cp_async_cg_shared_global<16>(dst, src);", src.find("// op 9:", loop));
    const size_t hold = src.find("trace_after_barrier();", barrier);
    const size_t end = src.find("// op 6 ends", barrier);
    REQUIRE(barrier != std::string::npos);
    REQUIRE(end != std::string::npos);
    CHECK(count(src.substr(barrier, end - barrier), "cp_async_cg_shared_global<16>(dst, src);") == 8);
    CHECK(last_copy < hold);
    CHECK(hold < end);
    CHECK(end < src.find("// op 9:", loop));  // before the commit, whose word follows
    // A sync followed by a timed op keeps its hold and end right after the barrier.
    const std::string tma = kernel_of(generate_kernel_source(bench("tma_stream", 508), TraceLevel::all));
    const size_t sync = tma.find("barrier_sync_aligned_0();", tma.find("// op 8: sync"));
    REQUIRE(sync != std::string::npos);
    CHECK(tma.find("// op 8 ends", sync) < tma.find("// op 9:", sync));
    CHECK(tma.find("the barrier's end, after the untimed copies") == std::string::npos);
}

TEST_CASE("trace level waits times the waits and syncs only", "[device][codegen]") {
    const Scenario s = bench("tma_stream");
    const std::string src = generate_kernel_source(s, TraceLevel::waits);
    for (const Op* op : s.all_ops()) {
        if (op->kind == OpKind::loop) continue;
        const bool timed = op->kind == OpKind::mbarrier_wait || op->kind == OpKind::sync;
        INFO("op " << op->id << " " << to_string(op->kind));
        CHECK((src.find(fmt::format("  // op {} ends", op->id)) != std::string::npos) == timed);
    }
}

TEST_CASE("the final shared buffers are copied out only when asked: a timing run ends at its last op",
          "[device][codegen]") {
    const Scenario s = bench("ldgsts_stream");
    const std::string copied = kernel_of(generate_kernel_source(s, TraceLevel::none, TraceWordsIn::global,
                                                                SharedDump::copy_out));
    const std::string skipped = kernel_of(generate_kernel_source(s, TraceLevel::none, TraceWordsIn::global,
                                                                 SharedDump::skip));
    // Four 16 KiB stages, 16 bytes per thread and step: one loop per stage, after a CTA barrier
    // and a check of the hang flag.
    CHECK(count(copied, "reinterpret_cast<uint4*>(dump + ") == 4);
    CHECK(count(copied, "ld_volatile_global_s32(&status->hang_flag)") == 1);
    CHECK(count(skipped, "dump + ") == 0);
    CHECK(count(skipped, "hang_flag") == 0);
    // Without the copy nothing waits for the other warps at the end: the last CTA barrier is
    // the drain's, and the kernel's last line is the exit record.
    CHECK(count(copied, "barrier_sync_aligned_0();") == count(skipped, "barrier_sync_aligned_0();") + 1);
    CHECK(skipped.substr(skipped.rfind("if (lane == 0) trace_exit(")).find(";\n}") != std::string::npos);
    // The default is the copy (what a traced run keeps for the byte comparison).
    CHECK(generate_kernel_source(s, TraceLevel::none) ==
          generate_kernel_source(s, TraceLevel::none, TraceWordsIn::global, SharedDump::copy_out));
}

TEST_CASE("a wait reads the watchdog's timer only after a first probe failed", "[device][codegen]") {
    const std::string src = generate_kernel_source(bench("tma_stream"), TraceLevel::none);
    // The kernel probes once; the retry loop (and its timer) is a function it calls after.
    const size_t kernel = src.find("extern \"C\" __global__");
    const size_t probe = src.find("if (__builtin_expect(!mbarrier_wait_parity_fast(", kernel);
    REQUIRE(probe != std::string::npos);
    CHECK(src.find("mbarrier_wait_parity_slow(", kernel) > probe);
    CHECK(src.find("read_clock64()", src.find("unsigned long long mbarrier_wait_parity_slow(")) <
          src.find("read_globaltimer()", src.find("unsigned long long mbarrier_wait_parity_slow(")));
}

TEST_CASE("every bench scenario compiles at every trace level, and every reference kernel", "[device][codegen][nvrtc]") {
    for (const std::string& name : bench_case_names()) {
        INFO(name);
        const Scenario s = bench(name);
        for (TraceLevel level : {TraceLevel::all, TraceLevel::waits, TraceLevel::none})
            for (TraceWordsIn words_in : {TraceWordsIn::global, TraceWordsIn::shared})
                test::require_compiles(generate_kernel_source(s, level, words_in), "sm_90a");
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
    count: 64
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
    CHECK(src.find("for (int L0 = 0; L0 < n0; ++L0)") != std::string::npos);        // count 64
    CHECK(src.find("for (long long L0 = 0; L0 < n0; ++L0)") != std::string::npos);  // count cta + 2
    CHECK(block_of(4).find("checked_index(") != std::string::npos);  // a count that is not a constant
}
