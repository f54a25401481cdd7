// The device backend without a GPU (a clear error, never a crash) and, where a Hopper is
// present, one real run ([gpu]).
#include <catch2/catch.hpp>

#include <map>

#include "device/launch/cuda_driver.h"
#include "device/launch/gpu_session.h"
#include "device/run/run_device.h"
#include "device_test_support.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {
const char* kNoDriver =
    "no CUDA driver (libcuda.so.1 not found): the device backend needs an NVIDIA GPU; use "
    "--backend model";

bool driver_present() {
    try {
        CudaDriver::get();
        return true;
    } catch (const DeviceUnavailable&) {
        return false;
    }
}
}  // namespace

TEST_CASE("a missing driver library is a clear error, not a crash", "[device][driver]") {
    CHECK_THROWS_MATCHES(CudaDriver("libtmasim_no_such_driver.so.1"), DeviceUnavailable,
                         Catch::Matchers::Message(
                             "no CUDA driver (libtmasim_no_such_driver.so.1 not found): the device "
                             "backend needs an NVIDIA GPU; use --backend model"));
}

TEST_CASE("run_device without a driver reports the no-driver error", "[device][driver]") {
    if (driver_present()) {
        WARN("SKIPPED: a CUDA driver (libcuda.so.1) is present on this machine, so the no-driver "
             "path cannot be observed here");
        return;
    }
    const Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/guide/bulk_add_one_1d.yaml");
    CHECK_THROWS_MATCHES(run_device(s, DeviceOptions{}), DeviceUnavailable, Catch::Matchers::Message(kNoDriver));
}

TEST_CASE("bulk_add_one_1d on the GPU adds one to the second half of data", "[device][gpu]") {
    const Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/guide/bulk_add_one_1d.yaml");
    RunResult r;
    try {
        r = run_device(s, DeviceOptions{});
    } catch (const DeviceUnavailable& e) {
        WARN("SKIPPED [gpu] test: " << e.what());
        return;
    }
    INFO((r.diagnostics.empty() ? std::string() : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    CHECK(r.provenance.backend == "device");
    CHECK(r.provenance.extra.at("sm").rfind("sm_", 0) == 0);

    REQUIRE(r.memory.size() == 2);
    const MemoryImage& data = r.memory[0];
    CHECK(data.name == "data");
    CHECK(data.space == "global");
    REQUIRE(data.bytes.size() == 2048 * 4);
    for (int64_t e = 0; e < 2048; ++e) {
        const int64_t want = e < 1024 ? e : e + 1;
        if (load_element_int(data.bytes.data(), DType::i32, e) != want)
            FAIL("data[" << e << "] = " << load_element_int(data.bytes.data(), DType::i32, e)
                         << ", want " << want);
    }
    const MemoryImage& smem = r.memory[1];
    CHECK(smem.name == "smem_data");
    CHECK(smem.space == "shared");
    REQUIRE(smem.bytes.size() == 1024 * 4);
    CHECK(load_element_int(smem.bytes.data(), DType::i32, 0) == 1025);
    CHECK(load_element_int(smem.bytes.data(), DType::i32, 1023) == 2048);

    // 8 warps: the all-thread ops give one issue/complete (or wait) pair per warp.
    REQUIRE(!r.events.empty());
    int waits_begun = 0, waits_ended = 0;
    for (const TraceEvent& e : r.events) {
        if (e.op == 5 && e.kind == EventKind::wait_begin) ++waits_begun;
        if (e.op == 5 && e.kind == EventKind::wait_end) ++waits_ended;
    }
    CHECK(waits_begun == 8);
    CHECK(waits_ended == 8);
    for (size_t i = 1; i < r.events.size(); ++i) CHECK(r.events[i - 1].t <= r.events[i].t);
}

TEST_CASE("tma_2d_expect_tx_mismatch hangs at the wait on the GPU", "[device][gpu]") {
    const Scenario s = load_scenario_file(test::source_dir() +
                                          "/scenarios/catalog/hazards/tma_2d_expect_tx_mismatch.yaml");
    RunResult r;
    DeviceOptions opt;
    opt.watchdog_seconds = 0.2;
    try {
        r = run_device(s, opt);
    } catch (const DeviceUnavailable& e) {
        WARN("SKIPPED [gpu] test: " << e.what());
        return;
    }
    REQUIRE(r.outcome == Outcome::hang);
    REQUIRE(!r.diagnostics.empty());
    CHECK(r.diagnostics[0].rule == "mbarrier.wait_timeout");
    CHECK(r.diagnostics[0].op == 5);
    CHECK(r.diagnostics[0].message ==
          "hang at op #5 mbarrier.wait (wait): watchdog expired after 0.2 s waiting for barrier bar parity 0");
}

namespace {
// gather4 needs sm_100a; no Blackwell exists here, so this never runs.
const char* kBlackwellOnly = R"yaml(
scenario: gather4_on_hopper
summary: an sm_100 scenario the device backend must refuse on a Hopper
arch: sm_100
launch: {grid: [1], block: 32}
global:
  X: {type: bf16, shape: [64, 64], init: iota}
tensormaps:
  rowmap: {tensor: X, box: [1, 64]}
shared:
  rows4: {type: bf16, shape: [4, 64]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 512, by: thread0}
  - {op: tma.gather4, map: rowmap, rows: [0, 1, 2, 3], col: 0, dst: rows4, barrier: bar, by: thread0}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
expect:
  outcome: ok
)yaml";

GpuInfo gpu(const char* name, int major, int minor) {
    GpuInfo g;
    g.name = name;
    g.cc_major = major;
    g.cc_minor = minor;
    return g;
}
}  // namespace

TEST_CASE("an sm_100 scenario is refused on a Hopper with the GPU named", "[device]") {
    CHECK_THROWS_MATCHES(require_architecture("sm_100", gpu("NVIDIA H200", 9, 0)), DeviceUnavailable,
                         Catch::Matchers::Message(
                             "scenario needs sm_100 (Blackwell); this GPU is NVIDIA H200 (sm_90)"));
    CHECK_NOTHROW(require_architecture("sm_100", gpu("NVIDIA B200", 10, 0)));
    CHECK_NOTHROW(require_architecture("sm_90", gpu("NVIDIA H100 80GB HBM3", 9, 0)));
    CHECK_THROWS_WITH(require_architecture("sm_90", gpu("NVIDIA A100-SXM4-80GB", 8, 0)),
                      Catch::Contains("needs compute capability 9.0 or newer"));
}

TEST_CASE("run_device refuses an sm_100 scenario on this machine's GPU before compiling", "[device][gpu]") {
    const Scenario s = load_scenario_text(kBlackwellOnly, "gather4_on_hopper.yaml");
    try {
        run_device(s, DeviceOptions{});
    } catch (const DeviceUnavailable& e) {
        const std::string what = e.what();
        if (what.rfind("scenario needs sm_100", 0) != 0) {
            WARN("SKIPPED [gpu] test (no GPU to refuse it on): " << what);
            return;
        }
        CHECK_THAT(what, Catch::Matches(R"(scenario needs sm_100 \(Blackwell\); this GPU is .+ \(sm_\d+\))"));
        CHECK(what.find("(sm_100)") == std::string::npos);
        return;
    }
    FAIL("run_device ran an sm_100 scenario: only a Blackwell may, and none exists here");
}

TEST_CASE("the trace levels on the GPU: same bytes, none has no events, waits only the waits", "[device][gpu]") {
    const Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/tma_round_trip.yaml");
    std::map<TraceLevel, RunResult> runs;
    try {
        for (TraceLevel level : {TraceLevel::all, TraceLevel::waits, TraceLevel::none}) {
            DeviceOptions o;
            o.trace = level;
            runs[level] = run_device(s, o);
        }
    } catch (const DeviceUnavailable& e) {
        WARN("SKIPPED [gpu] test: " << e.what());
        return;
    }
    for (auto& [level, r] : runs) {
        INFO("trace level " << to_string(level));
        REQUIRE(r.outcome == Outcome::ok);
        CHECK(r.provenance.extra.at("trace_level") == to_string(level));
        CHECK(std::stoll(r.provenance.extra.at("kernel_time_ns")) > 0);
        CHECK(std::stoll(r.provenance.extra.at("kernel_span_ns")) > 0);
        REQUIRE(r.memory.size() == runs[TraceLevel::all].memory.size());
        for (size_t i = 0; i < r.memory.size(); ++i) CHECK(r.memory[i].bytes == runs[TraceLevel::all].memory[i].bytes);
    }
    CHECK(runs[TraceLevel::none].events.empty());
    // The first sync (4 warps), then per tile the wait and the sync of 4 warps and the elected wait_group.read.
    size_t waits = 0;
    for (const TraceEvent& e : runs[TraceLevel::waits].events) {
        const Op* op = s.find_op(e.op);
        REQUIRE(op != nullptr);
        CHECK((op->kind == OpKind::mbarrier_wait || op->kind == OpKind::sync ||
               op->kind == OpKind::bulk_wait_group_read));
        waits += e.kind == EventKind::wait_end;
    }
    CHECK(waits == 1 * 4 + 8 * (4 + 4 + 1));
    // Clocks from the CTA's first entry, ns (interpolated) from the kernel's.
    const RunResult& all = runs[TraceLevel::all];
    CHECK(all.events.size() == 2 * (1 + 4 + 8 * (4 * 4 + 5)));  // init and sync, then 8 tiles
    for (const TraceEvent& e : all.events) {
        CHECK(e.t >= 0);
        CHECK(e.t_ns >= 0);
    }
}

TEST_CASE("warm launches on the GPU: the recorded launch starts from the declared memory again", "[device][gpu]") {
    // bulk_add_one_1d adds one to half its input in place: had the recorded launch found
    // the warm launch's result, every element of that half would be one too high.
    const Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/guide/bulk_add_one_1d.yaml");
    RunResult cold, warm;
    try {
        DeviceOptions single;
        single.warm_launches = 0;
        cold = run_device(s, single);
        DeviceOptions o;
        o.warm_launches = 2;
        warm = run_device(s, o);
    } catch (const DeviceUnavailable& e) {
        WARN("SKIPPED [gpu] test: " << e.what());
        return;
    }
    REQUIRE(warm.outcome == Outcome::ok);
    CHECK(warm.provenance.extra.at("warm_launches") == "2");
    CHECK(cold.provenance.extra.count("warm_launches") == 0);
    REQUIRE(warm.memory.size() == cold.memory.size());
    for (size_t i = 0; i < warm.memory.size(); ++i) CHECK(warm.memory[i].bytes == cold.memory[i].bytes);
    // The recorded launch's own trace: as many events as a cold run's, none left over.
    CHECK(warm.events.size() == cold.events.size());
}
