// Where a traced kernel keeps its records while it runs: the shared-memory ring's place after
// the scenario's buffers, and its size, which takes what the scenario leaves free without
// lowering the CTAs an SM must hold for the launch.
#include <catch2/catch.hpp>

#include "device/codegen.h"
#include "device/trace_records.h"
#include "device/trace_ring.h"
#include "device_test_support.h"
#include "scenarios/layout.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// An H100 SXM / H200 as cuDeviceGetAttribute reports it.
SmLimits hopper() { return {132, 233472, 1024, 232448, 2048, 32}; }

Scenario tma_stream(int ctas) {
    Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/tma_stream.yaml");
    s.launch.grid = {ctas};
    return s;
}

}  // namespace

TEST_CASE("the ring sits after the scenario's buffers and the per-warp counts", "[trace_ring]") {
    const Scenario s = tma_stream(1);
    const TraceRingOffsets o = trace_ring_offsets(s);
    // Four 16 KiB stages and four 8-byte barriers, then 4 warps' counts rounded to 16 bytes.
    CHECK(compute_shared_layout(s).total_bytes == 65568);
    CHECK(o.used == 65568);
    CHECK(o.rings == 65584);
    const std::string src = generate_kernel_source(s, TraceLevel::all);
    CHECK(src.find("reinterpret_cast<DeviceRecord*>(smem + 65584)") != std::string::npos);
    CHECK(src.find("copy_trace_rings(") != std::string::npos);
    // Untraced: no ring, whatever the launch passes.
    CHECK(generate_kernel_source(s, TraceLevel::none).find("const unsigned ring_slots = 0u;") != std::string::npos);
}

TEST_CASE("one CTA per SM: the ring takes what the opt-in limit leaves", "[trace_ring]") {
    const Scenario s = tma_stream(132);
    const TraceRingSize r = size_trace_ring(s, 100000, true, hopper());
    // (232448 - 65584 - 1024) / (4 warps * 16 bytes)
    CHECK(r.slots == 2591);
    CHECK(r.ctas_per_sm == 1);
    CHECK(r.untraced_smem_bytes == 65568 + 1024);
    CHECK(r.smem_bytes == 65584 + 1024 + 2591 * 64);
    CHECK(r.smem_bytes <= 232448);
    // A region smaller than that: the ring holds it all.
    CHECK(size_trace_ring(s, 300, true, hopper()).slots == 300);
    CHECK(size_trace_ring(s, 300, true, hopper()).smem_bytes == 65584 + 1024 + 300 * 64);
}

TEST_CASE("a grid that needs three CTAs per SM keeps three", "[trace_ring]") {
    const Scenario s = tma_stream(3 * 132);
    const TraceRingSize r = size_trace_ring(s, 100000, true, hopper());
    CHECK(r.ctas_per_sm == 3);
    // 233472 / 3 - 1024 reserved = 76800 per block, less the 66608 before the ring.
    CHECK(r.slots == (76800 - 66608) / 64);
    CHECK(3 * (r.smem_bytes + 1024) <= 233472);
    // More CTAs than fit three at a time: still three (the untraced kernel's limit).
    CHECK(size_trace_ring(tma_stream(10 * 132), 100000, true, hopper()).ctas_per_sm == 3);
}

TEST_CASE("no ring without tracing, or without room for one record per warp", "[trace_ring]") {
    const Scenario s = tma_stream(1);
    const TraceRingSize none = size_trace_ring(s, 1000, false, hopper());
    CHECK(none.slots == 0u);
    CHECK(none.smem_bytes == none.untraced_smem_bytes);
    SmLimits tight = hopper();
    tight.max_smem_optin = 65584 + 1024 + 63;  // less than 4 warps x 16 bytes
    const TraceRingSize r = size_trace_ring(s, 1000, true, tight);
    CHECK(r.slots == 0u);
    CHECK(r.smem_bytes == r.untraced_smem_bytes);
}
