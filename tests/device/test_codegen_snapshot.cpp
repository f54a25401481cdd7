// shared.snapshot on the device backend without a GPU: the snapshot area's plan, the copy
// in the generated kernel (NVRTC-compiled for sm_90a), and the host's decoding of an area
// as the kernel leaves it.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/emit/codegen.h"
#include "device/emit/snapshot_plan.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

Scenario pipeline() {
    return load_scenario_file(source_dir() + "/scenarios/catalog/snapshots/tma_pipeline_stage_snapshots.yaml");
}

// Two CTAs running different loop counts over a 40-byte buffer (not a multiple of 16).
const char* kRing = R"(scenario: snapshot_ring
launch: {grid: [2], block: 64}
shared:
  ring: {type: u8, shape: [40], align: 16, array: 3}
program:
  - {op: compute, buffer: "ring[0]", fn: "idx + 1"}
  - {op: sync}
  - op: loop
    var: i
    count: "cta + 2"
    body:
      - {op: shared.snapshot, buffer: "ring[(i+cta)%3]", by: elected1}
)";

void put_flag(std::vector<uint8_t>& area, int64_t at) {
    const uint32_t one = 1;
    std::memcpy(area.data() + at, &one, 4);
}

}  // namespace

TEST_CASE("snapshot plan: a flag per slot, then a 16-aligned region per op", "[device][snapshot]") {
    const Scenario s = pipeline();
    const SnapshotPlan plan = plan_snapshots(s);
    REQUIRE(plan.regions.size() == 2);
    const SnapshotRegion &put = plan.regions[0], &last = plan.regions[1];
    CHECK(put.op == 8);
    CHECK(last.op == 16);  // after the refill's fence (op 12)
    CHECK(put.bytes == 512);
    CHECK(put.stride == 512);
    CHECK(put.max_instances == 2);
    CHECK(last.max_instances == 2);
    CHECK(put.first_slot == 0);
    CHECK(last.first_slot == 2);
    CHECK(put.data_offset == 16);  // 4 flags of 4 bytes
    CHECK(last.data_offset == 16 + 2 * 512);
    CHECK(plan.bytes_per_cta == 16 + 4 * 512);

    const SnapshotPlan ring = plan_snapshots(load_scenario_text(kRing, "ring.yaml"));
    REQUIRE(ring.regions.size() == 1);
    CHECK(ring.regions[0].max_instances == 3);  // CTA 1 runs 3 iterations, CTA 0 two
    CHECK(ring.regions[0].bytes == 40);
    CHECK(ring.regions[0].stride == 48);
    CHECK(ring.bytes_per_cta == 16 + 3 * 48);
}

TEST_CASE("the kernel copies each snapshot with 16-byte vectors and NVRTC compiles it", "[device][snapshot][nvrtc]") {
    const std::string src = generate_kernel_source(pipeline());
    CHECK_THAT(src, Catch::Contains("unsigned char* const snapshot_area, const unsigned long long watchdog_ns)"));
    CHECK_THAT(src, Catch::Contains("unsigned long long snap_next_8 = 0ull;"));
    CHECK_THAT(src, Catch::Contains("unsigned char* const snap_slice = snapshot_area + (unsigned long long)blockIdx.x * "
                                    "2064ull;"));
    CHECK_THAT(src, Catch::Contains("unsigned char* const snap_dst = snap_slice + 1040ull + snap_next_16 * 512ull;"));
    CHECK_THAT(src, Catch::Contains("for (int i = 0; i < 32; ++i) reinterpret_cast<uint4*>(snap_dst)[i] = "
                                    "reinterpret_cast<const uint4*>(snap_src)[i];"));
    CHECK_THAT(src, Catch::Contains("reinterpret_cast<unsigned*>(snap_slice)[2ull + snap_next_16] = 1u;"));
    CHECK_THAT(src, Catch::Contains("++snap_next_16;"));
    // The copy sits inside thread 0's branch, after the wait of the same iteration.
    const size_t wait = src.find("// op 7: mbarrier.wait");
    const size_t snap = src.find("// op 8: shared.snapshot by thread0\n");
    REQUIRE(wait != std::string::npos);
    REQUIRE(snap != std::string::npos);
    CHECK(wait < snap);
    CHECK_THAT(src.substr(snap, 200), Catch::Contains("if (tid == 0) {"));
    require_compiles(src, "sm_90a");

    const std::string ring = generate_kernel_source(load_scenario_text(kRing, "ring.yaml"));
    CHECK_THAT(ring, Catch::Contains("for (int i = 0; i < 2; ++i) reinterpret_cast<uint4*>(snap_dst)[i]"));
    CHECK_THAT(ring, Catch::Contains("for (int i = 32; i < 40; ++i) snap_dst[i] = snap_src[i];"));
    require_compiles(ring, "sm_90a");
}

TEST_CASE("the host names the snapshots the kernel took and skips the others", "[device][snapshot]") {
    const Scenario s = load_scenario_text(kRing, "ring.yaml");
    const SnapshotPlan plan = plan_snapshots(s);
    std::vector<uint8_t> area(static_cast<size_t>(plan.bytes_per_cta * 2), 0);
    // Slot k of CTA c holds bytes 16*c + k; CTA 0 took both its snapshots, CTA 1 two of
    // its three (it stopped before the last: a hang).
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < 3; ++k) {
            uint8_t* slot = area.data() + c * plan.bytes_per_cta + 16 + k * 48;
            std::memset(slot, 16 * c + k, 48);
            slot[40] = 0xee;  // padding past the 40 bytes: not part of the image
        }
    put_flag(area, 0);
    put_flag(area, 4);
    put_flag(area, plan.bytes_per_cta + 0);
    put_flag(area, plan.bytes_per_cta + 4);
    const std::vector<MemoryImage> images = snapshot_images(s, plan, area);
    REQUIRE(images.size() == 4);
    const std::vector<std::tuple<std::string, int, uint8_t>> want = {
        {"#3[0]:ring[0]", 0, 0}, {"#3[1]:ring[1]", 0, 1}, {"#3[0]:ring[1]", 1, 16}, {"#3[1]:ring[2]", 1, 17}};
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("image " << i);
        CHECK(images[i].space == "snapshot");
        CHECK(images[i].name == std::get<0>(want[i]));
        CHECK(images[i].cta == std::get<1>(want[i]));
        CHECK(images[i].bytes == std::vector<uint8_t>(40, std::get<2>(want[i])));
    }
}
