// A captured launch becomes a kernel scenario (capture/replay_scenario.h): each param as the kind
// its bytes are, allocations typed by the tensor maps that view them, and every launch a scenario
// cannot say exactly refused with the reason.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "capture/launch_records.h"
#include "capture/replay_scenario.h"

using namespace tmasim::capture;

namespace {

std::vector<uint8_t> u64_bytes(uint64_t v) {
    std::vector<uint8_t> b(8);
    std::memcpy(b.data(), &v, 8);
    return b;
}

// scale_tile of tests/capture/capture_probe.cu: a map over a 64 x 64 i32 tensor, an output
// pointer, a factor.
CapturedLaunch tile_launch() {
    CapturedLaunch l;
    l.index = 3;
    l.entry = "_Z10scale_tile14CUtensorMap_stPii";
    l.grid[0] = 4;
    l.block[0] = 128;
    l.params.push_back({0, std::vector<uint8_t>(128, 0xab)});
    l.params.push_back({128, u64_bytes(0x7000'0001'0000)});
    l.params.push_back({136, {3, 0, 0, 0}});
    l.regions.push_back({0x7000'0001'0000, 16384, "aaaa", "bbbb"});
    l.regions.push_back({0x7000'0000'0000, 16384, "cccc", "cccc"});
    CapturedMap m;
    m.param = 0;
    m.dtype = 3;  // CU_TENSOR_MAP_DATA_TYPE_INT32 (cuda.h)
    m.global_address = 0x7000'0000'0000;
    m.dims = {64, 64};
    m.strides = {256};
    m.box = {64, 16};
    m.element_strides = {1, 1};
    l.maps.push_back(m);
    return l;
}

ReplayContext context() {
    ReplayContext c;
    c.program = "./capture_probe";
    c.gpu = "NVIDIA H200";
    c.ptx_file = "ptx/0_probe.ptx";
    c.ptx_target = "sm_90a";
    c.data_dir = "raw/data";
    return c;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a captured launch's params become a map, a pointer and raw bytes", "[capture]") {
    const ReplayScenario r = replay_scenario(tile_launch(), context());
    INFO(r.yaml);
    REQUIRE(r.refused.empty());
    CHECK(r.name == "capture_003_scale_tile");
    CHECK(has(r.yaml, "launch: {grid: [4], cluster: [1], block: 128, dynamic_shared: 0}"));
    // The allocation the map views is typed by it (dims fastest first, the scenario outermost first).
    CHECK(has(r.yaml, "g1: {type: i32, shape: [64, 64], init: {file: raw/data/cccc.bin}}"));
    CHECK(has(r.yaml, "g0: {type: u8, shape: [16384], init: {file: raw/data/aaaa.bin}}"));
    CHECK(has(r.yaml, "m0: {tensor: g1, box: [16, 64], swizzle: none, interleave: none, oob_fill: zero}"));
    CHECK(has(r.yaml, "    - {tensormap: m0}\n    - {global: g0}\n    - {bytes: \"03000000\"}\n"));
    REQUIRE(r.outputs.size() == 2);
    CHECK(r.outputs[0] == std::make_pair(std::string("g0"), std::string("bbbb")));
}

TEST_CASE("a params struct keeps its pointers, maps and non-zero bytes where they lie", "[capture]") {
    CapturedLaunch l = tile_launch();
    // One 256-byte param: the map at 0 (a CuTe TMA atom), a pointer 16 bytes into g0 at 128, a
    // number at 140.
    std::vector<uint8_t> blob(256, 0);
    std::memset(blob.data(), 0xab, 128);
    const std::vector<uint8_t> p = u64_bytes(0x7000'0001'0010);
    std::copy(p.begin(), p.end(), blob.begin() + 128);
    blob[140] = 7;
    blob[141] = 1;
    l.params = {{0, blob}};
    const ReplayScenario r = replay_scenario(l, context());
    INFO(r.yaml);
    REQUIRE(r.refused.empty());
    CHECK(has(r.yaml, "{blob: 256, fields: [{at: 0, tensormap: m0}, {at: 128, global: g0, offset: 16}, {at: 140, bytes: \"0701\"}]}"));
}

TEST_CASE("launches a scenario cannot say exactly are refused with the reason", "[capture]") {
    SECTION("a map over padded rows") {
        CapturedLaunch l = tile_launch();
        l.maps[0].strides = {512};
        const ReplayScenario r = replay_scenario(l, context());
        CHECK(has(r.refused, "stride of dimension 1 is 512 bytes, not the dense 256"));
        CHECK(r.yaml.empty());
    }
    SECTION("a map into the middle of its allocation") {
        CapturedLaunch l = tile_launch();
        l.maps[0].global_address += 256;
        l.maps[0].dims = {64, 32};
        CHECK(has(replay_scenario(l, context()).refused, "allowed: a dense map from its first byte"));
    }
    SECTION("a 2-D block") {
        CapturedLaunch l = tile_launch();
        l.block[0] = 32;
        l.block[1] = 4;
        CHECK(has(replay_scenario(l, context()).refused, "block (32, 4, 1): kernel scenarios launch 1-D blocks"));
    }
    SECTION("an element type without a scenario type") {
        CapturedLaunch l = tile_launch();
        l.maps[0].dtype = 1;  // UINT16
        CHECK(has(replay_scenario(l, context()).refused, "element type 1 (CUtensorMapDataType) has no scenario type"));
    }
    SECTION("two maps that view one allocation differently") {
        CapturedLaunch l = tile_launch();
        CapturedMap other = l.maps[0];
        other.dims = {32, 128};
        other.strides = {128};
        other.box = {32, 16};
        other.param = 0;
        other.at = 0;
        l.maps.push_back(other);
        CHECK(has(replay_scenario(l, context()).refused, "two tensor maps view allocation g1 as different tensors"));
    }
}

TEST_CASE("a trapped launch replays expecting a fault, with no reference memory", "[capture]") {
    CapturedLaunch l = tile_launch();
    l.sync_after = 700;  // CUDA_ERROR_ILLEGAL_ADDRESS
    const ReplayScenario r = replay_scenario(l, context());
    CHECK(has(r.yaml, "expect: {outcome: fault}"));
    CHECK(r.outputs.empty());
}

TEST_CASE("mangled entries get their kernel's name", "[capture]") {
    CHECK(short_kernel_name("_Z10scale_tile14CUtensorMap_stPii") == "scale_tile");
    CHECK(short_kernel_name("_ZN4cute11gemm_deviceIiEEvT_") == "gemm_device");
    CHECK(short_kernel_name("triton_poi_fused_0") == "triton_poi_fused_0");
}

TEST_CASE("a broken launch record names its line", "[capture]") {
    const std::string path = "/tmp/tmasim_capture_bad_launches.jsonl";
    std::ofstream(path) << "{\"entry\": \"k\"}\n";
    try {
        read_launches(path);
        FAIL("read a launch without its grid");
    } catch (const std::runtime_error& e) {
        CHECK(has(e.what(), "tmasim_capture_bad_launches.jsonl:1: not a captured launch"));
    }
}
