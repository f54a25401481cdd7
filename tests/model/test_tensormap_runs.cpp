// Model runs with tensor maps in global memory (B15, C17) and an interleaved map: the
// catalog scenarios' outcome, rule, op and exact bytes, and small inline programs for the
// rules the catalog does not show.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <cmath>
#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::catalog;
using test::op_id;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_tensormap_runs {

namespace {
const MemoryImage& memory(const RunResult& r, const std::string& name, int cta = 0) {
    for (const auto& m : r.memory)
        if (m.name == name && (m.space == "global" || m.cta == cta)) return m;
    FAIL("no memory " << name);
    return r.memory.front();
}
std::string all_diagnostics(const RunResult& r) {
    std::string s;
    for (const auto& d : r.diagnostics) s += "\n[" + to_string(d.outcome) + " " + d.rule + "] " + d.message;
    return s;
}
// The one diagnostic of a run, with its rule and op.
const Diagnostic& only(const RunResult& r, Outcome outcome, const std::string& rule, int op) {
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == outcome);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == rule);
    CHECK(r.diagnostics[0].op == op);
    CHECK(r.diagnostics[0].message.find("op #" + std::to_string(op)) != std::string::npos);
    return r.diagnostics[0];
}
int64_t duration(const RunResult& r, int op) {
    int64_t issue = -1, done = -1;
    for (const auto& e : r.events) {
        if (e.op != op) continue;
        if (e.kind == EventKind::issue) issue = e.t;
        if (e.kind == EventKind::complete) done = e.t;
    }
    REQUIRE(issue >= 0);
    REQUIRE(done >= issue);
    return done - issue;
}

// A 1-CTA program over A and B (16 x 64 i32) with mapA in global memory over A.
Scenario program(const std::string& ops, int grid = 1) {
    const std::string text = R"(
scenario: tensormap_inline
summary: inline test program
source: tests/model/test_tensormap_runs.cpp
arch: sm_90
launch: {grid: [)" + std::to_string(grid) + R"(], block: 64}
global:
  A: {type: i32, shape: [16, 64], init: iota}
  B: {type: i32, shape: [16, 64], init: {fill: 3}}
tensormaps:
  mapA: {tensor: A, box: [16, 64], location: global}
shared:
  tile: {type: i32, shape: [16, 64], align: 128}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
)" + ops + R"(expect:
  outcome: ok
)";
    return load_scenario_text(text, "inline.yaml");
}
const char* kLoad = R"(  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0, label: load}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
)";
}  // namespace

TEST_CASE("teach 21a: a released retarget used without acquire is tensormap.no_acquire at the load", "[model][tensormap]") {
    const Scenario s = catalog("teach/21a_tensormap_no_acquire.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only(r, Outcome::hazard, "tensormap.no_acquire", op_id(s, "load"));
    CHECK(d.message.find("no thread of CTA 0 issued fence.proxy.tensormap.acquire on it after op #" +
                         std::to_string(op_id(s, "retarget"))) != std::string::npos);
    CHECK(d.message.find("PTX 9.7.13.4") != std::string::npos);
    CHECK(d.message.find("semantics.md B15") != std::string::npos);
    CHECK(d.detail.at("map") == "mapA");
}

TEST_CASE("teach 21b: with the acquire the load is ok and the tile holds B", "[model][tensormap]") {
    const RunResult r = run_model(catalog("teach/21b_tensormap_acquire.yaml"));
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    REQUIRE(r.diagnostics.empty());
    const auto& tile = memory(r, "tile").bytes;
    CHECK(tile == memory(r, "B").bytes);
    CHECK(tile != memory(r, "A").bytes);
}

TEST_CASE("guide device_encoded_tensormap: the re-encoded map loads rows 0-3, columns 0-127 of G", "[model][tensormap]") {
    const Scenario s = catalog("guide/device_encoded_tensormap.yaml");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    const auto& g = memory(r, "G").bytes;
    const auto& buf = memory(r, "smem_buf").bytes;
    REQUIRE(g.size() == 8 * 256);
    REQUIRE(buf.size() == 4 * 128);
    for (int64_t row = 0; row < 4; ++row)
        for (int64_t col = 0; col < 128; ++col) {
            INFO("row " << row << " col " << col);
            REQUIRE(buf[row * 128 + col] == g[row * 256 + col]);
        }
    // The template's own tensor was never read: the box is G's, 512 bytes.
    for (const auto& e : r.events)
        if (e.op == op_id(s, "load") && e.what == "bytes_landed") CHECK(e.detail.at("tensor") == "G");
}

TEST_CASE("guide global_tensormap_host_copy: each CTA acquires at sys and loads its rows", "[model][tensormap]") {
    const RunResult r = run_model(catalog("guide/global_tensormap_host_copy.yaml"));
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    for (int cta : {0, 1}) {
        const auto& tile = memory(r, "tile", cta);
        for (int64_t e : {int64_t{0}, int64_t{5 * 64 + 7}, int64_t{1023}})
            CHECK(load_element_int(tile.bytes.data(), DType::i32, e) == cta * 1024 + e);
    }
}

TEST_CASE("catalog: a map in global memory without acquire, or at gpu scope after the host's copy", "[model][tensormap]") {
    const Scenario none = catalog("tensormap/global_map_no_acquire.yaml");
    const RunResult r = run_model(none);
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 2);  // one per CTA: each must acquire for itself
    for (int cta : {0, 1}) {
        CHECK(r.diagnostics[cta].rule == "tensormap.no_acquire");
        CHECK(r.diagnostics[cta].cta == cta);
        CHECK(r.diagnostics[cta].op == op_id(none, "load"));
    }
    const Scenario gpu = catalog("tensormap/global_map_acquire_gpu_scope.yaml");
    const RunResult at_gpu = run_model(gpu);  // kept: `only` returns a reference into it
    const Diagnostic& d = only(at_gpu, Outcome::hazard, "tensormap.no_acquire", op_id(gpu, "load"));
    CHECK(d.message.find("it has scope gpu, but the host's copy needs an acquire at scope sys") != std::string::npos);
}

TEST_CASE("catalog replace_in_flight: race.tensormap_in_use names the replace and the load", "[model][tensormap]") {
    const Scenario s = catalog("tensormap/replace_in_flight.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only(r, Outcome::hazard, "race.tensormap_in_use", op_id(s, "replace"));
    CHECK(d.detail.at("reader_op") == std::to_string(op_id(s, "load")));
    // The load had read its descriptor at issue: it still moved A.
    CHECK(memory(r, "tile").bytes == memory(r, "A").bytes);
}

TEST_CASE("catalog interleave_16b_load: units 1 and 3 of row 1 of both outer slices", "[model][tensormap][interleave]") {
    const RunResult r = run_model(catalog("tensormap/interleave_16b_load.yaml"));
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    const auto& tile = memory(r, "tile").bytes;
    REQUIRE(tile.size() == 64);
    // A[o][1][4u .. 4u+3] for outer slice o and unit u (iota: o*64 + 16 + column).
    int64_t k = 0;
    for (int64_t outer : {0, 1})
        for (int64_t unit : {1, 3})
            for (int64_t j = 0; j < 4; ++j, ++k)
                CHECK(load_element_float(tile.data(), DType::f32, k) == outer * 64 + 16 + unit * 4 + j);
}

TEST_CASE("tensormap inline: a replace without its release fence is tensormap.no_release", "[model][tensormap]") {
    const Scenario s = program(std::string(R"(  - {op: tensormap.replace, map: mapA, field: global_address, global: B, space: global, by: thread0}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0}
)") + kLoad);
    const RunResult run_d = run_model(s);  // kept: `only` returns a reference into it
    const Diagnostic& d = only(run_d, Outcome::hazard, "tensormap.no_release", op_id(s, "load"));
    CHECK(d.message.find("has no later fence.proxy.tensormap.release by thread 0 of CTA 0") != std::string::npos);
}

TEST_CASE("tensormap inline: another thread's acquire covers a use only after a sync", "[model][tensormap]") {
    const std::string write = R"(  - {op: tensormap.replace, map: mapA, field: global_address, global: B, space: global, by: thread0}
  - {op: fence.proxy.tensormap.release, scope: cta, by: thread0}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread32, label: acquire}
)";
    const std::string load32 = R"(  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0, label: load}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
)";
    const Scenario unsynced = program(write + load32);
    const RunResult run_d = run_model(unsynced);  // kept: `only` returns a reference into it
    const Diagnostic& d = only(run_d, Outcome::hazard, "tensormap.no_acquire", op_id(unsynced, "load"));
    CHECK(d.message.find("the acquire by thread 32 of CTA 0 (op #" + std::to_string(op_id(unsynced, "acquire")) +
                         ") is not ordered before this use") != std::string::npos);
    const RunResult ok = run_model(program(write + "  - {op: sync}\n" + load32));
    INFO(all_diagnostics(ok));
    CHECK(ok.outcome == Outcome::ok);
    CHECK(memory(ok, "tile").bytes == memory(ok, "B").bytes);
}

TEST_CASE("tensormap inline: cp_fenceproxy before a sync after thread 0's edits races", "[model][tensormap]") {
    const std::string edit = R"(  - {op: tensormap.stage, map: mapA, by: thread0}
  - {op: tensormap.replace, map: mapA, field: global_address, global: B, space: shared, by: thread0, label: edit}
)";
    const std::string rest = R"(  - {op: tensormap.cp_fenceproxy, map: mapA, scope: gpu, by: warp0, label: copy}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0}
)";
    const Scenario racy = program(edit + rest + kLoad);
    const RunResult r = run_model(racy);
    const Diagnostic& d = only(r, Outcome::hazard, "race.tensormap_staged", op_id(racy, "copy"));
    CHECK(d.detail.at("writer_op") == std::to_string(op_id(racy, "edit")));
    CHECK(d.detail.at("reader_thread") == "1");
    CHECK(memory(r, "tile").bytes == memory(r, "B").bytes);
    const RunResult synced = run_model(program(edit + "  - {op: sync}\n" + rest + kLoad));
    INFO(all_diagnostics(synced));
    CHECK(synced.outcome == Outcome::ok);
}

TEST_CASE("tensormap inline: replacing a staged copy never staged is tensormap.unstaged", "[model][tensormap]") {
    const Scenario s = program(R"(  - {op: tensormap.replace, map: mapA, field: box_dim, dim: 0, value: 8, space: shared, by: thread0, label: edit}
)");
    only(run_model(s), Outcome::hazard, "tensormap.unstaged", op_id(s, "edit"));
}

TEST_CASE("tensormap inline: dims past the allocation and an invalid inner box are faults", "[model][tensormap]") {
    const std::string fenced = R"(  - {op: fence.proxy.tensormap.release, scope: cta, by: thread0}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [16, 0], dst: tile, barrier: bar, by: thread0, label: load}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
)";
    const Scenario outside = program(std::string(R"(  - {op: tensormap.replace, map: mapA, field: global_dim, dim: 0, value: 32, space: global, by: thread0}
)") + fenced);
    const RunResult run_d = run_model(outside);  // kept: `only` returns a reference into it
    const Diagnostic& d = only(run_d, Outcome::fault, "tensormap.outside_allocation", op_id(outside, "load"));
    // Rows 16-31 are inside the new dims but past A's 16 rows (4096 bytes).
    CHECK(d.message.find("reaches byte 8191 of tensor A, which holds 4096 bytes") != std::string::npos);

    const Scenario invalid = program(std::string(R"(  - {op: tensormap.replace, map: mapA, field: box_dim, dim: 1, value: 3, space: global, by: thread0}
)") + fenced);
    const RunResult run_e = run_model(invalid);  // kept: `only` returns a reference into it
    const Diagnostic& e = only(run_e, Outcome::fault, "tensormap.invalid_fields", op_id(invalid, "load"));
    CHECK(e.message.find("the inner box is 12 bytes, not a multiple of 16") != std::string::npos);
}

TEST_CASE("tensormap inline: a store through a retargeted map writes B", "[model][tensormap]") {
    const Scenario s = program(R"(  - {op: tensormap.replace, map: mapA, field: global_address, global: B, space: global, by: thread0}
  - {op: fence.proxy.tensormap.release, scope: cta, by: thread0}
  - {op: shared.store, buffer: tile, index: "tid", value: "tid + 100"}
  - {op: fence.proxy.async}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0}
  - {op: tma.store, map: mapA, coords: [0, 0], src: tile, by: thread0, label: store}
  - {op: bulk.commit_group, by: thread0}
  - {op: bulk.wait_group, n: 0, by: thread0}
)");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    const auto& a = memory(r, "A").bytes;
    const auto& b = memory(r, "B").bytes;
    for (int64_t e : {int64_t{0}, int64_t{63}}) CHECK(load_element_int(b.data(), DType::i32, e) == e + 100);
    CHECK(load_element_int(b.data(), DType::i32, 64) == 0);  // the tile beyond the 64 stores
    for (int64_t e : {int64_t{0}, int64_t{63}, int64_t{1023}}) CHECK(load_element_int(a.data(), DType::i32, e) == e);
}

TEST_CASE("tensormap timing: the first load after a write of the map fetches the descriptor again", "[model][tensormap]") {
    const Scenario s = program(R"(  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: sys, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0, label: first}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0, label: again}
  - {op: mbarrier.wait, barrier: bar, parity: 1}
  - {op: tensormap.replace, map: mapA, field: global_address, global: B, space: global, by: thread0, label: replace}
  - {op: fence.proxy.tensormap.release, scope: cta, by: thread0, label: release}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0, label: acquire}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0, label: changed}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
)");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.outcome == Outcome::ok);
    const auto tp = model::ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing();
    const auto cycles = [](double c) { return static_cast<int64_t>(std::ceil(c - 1e-9)); };
    CHECK(duration(r, op_id(s, "again")) == cycles(tp.tensor_load_issue_cycles));
    CHECK(duration(r, op_id(s, "first")) == cycles(tp.tensor_load_issue_cycles + tp.tensormap_fetch_cycles));
    CHECK(duration(r, op_id(s, "changed")) == cycles(tp.tensor_load_issue_cycles + tp.tensormap_fetch_cycles));
    CHECK(duration(r, op_id(s, "replace")) == cycles(tp.tensormap_replace_cycles));
    CHECK(duration(r, op_id(s, "release")) == cycles(tp.fence_proxy_tensormap_release_cycles));
    CHECK(duration(r, op_id(s, "acquire")) == cycles(tp.fence_proxy_tensormap_acquire_cycles));
    CHECK(memory(r, "tile").bytes == memory(r, "B").bytes);
}

}  // namespace test_tensormap_runs
