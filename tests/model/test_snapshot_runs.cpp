// shared.snapshot on the model: the images of the snapshots catalog, their names, order
// and bytes as shared memory held them at the read, and the race a snapshot before the
// wait is.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::op_id;

namespace {
Scenario snapshots_catalog(const std::string& file) {
    return load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/snapshots/" + file);
}

std::vector<const MemoryImage*> snapshot_images(const RunResult& r) {
    std::vector<const MemoryImage*> out;
    for (const MemoryImage& m : r.memory)
        if (m.space == "snapshot") out.push_back(&m);
    return out;
}


}  // namespace

TEST_CASE("snapshots: each pipeline stage right after its wait holds its batch", "[model][snapshot]") {
    const Scenario s = snapshots_catalog("tma_pipeline_stage_snapshots.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    // The final images come first (input, stage[0], stage[1]), then the snapshots.
    REQUIRE(r.memory.size() == 7);
    CHECK(r.memory[2].space == "shared");
    const auto snaps = snapshot_images(r);
    REQUIRE(snaps.size() == 4);
    CHECK(snaps.front() == &r.memory[3]);
    // Ordered by op id (put before last), then iteration.
    const std::vector<std::pair<std::string, int64_t>> want = {
        {"put[0]:stage[0]", 0}, {"put[1]:stage[1]", 128}, {"last[0]:stage[0]", 256}, {"last[1]:stage[1]", 384}};
    for (size_t k = 0; k < want.size(); ++k) {
        const MemoryImage& m = *snaps[k];
        INFO("snapshot " << k << " " << m.name);
        CHECK(m.name == want[k].first);
        CHECK(m.cta == 0);
        REQUIRE(m.bytes.size() == 512);
        // Batch b lands input[b*128 + i] = b*128 + i (iota) in the stage.
        for (int64_t i = 0; i < 128; ++i) REQUIRE(load_element_int(m.bytes.data(), DType::i32, i) == want[k].second + i);
    }
    // One issue and one complete per instance, on thread 0 (warp 0, lane 0), after the
    // wait of the same iteration ended on warp 0.
    const int put = op_id(s, "put"), wait = op_id(s, "wait_refill");
    for (int64_t b = 0; b < 2; ++b) {
        int64_t issue = -1, wait_end = -1;
        for (const TraceEvent& e : r.events) {
            if (e.iters != std::vector<int64_t>{b} || e.warp != 0 || e.model_only) continue;
            if (e.op == put && e.kind == EventKind::issue) {
                CHECK(e.lane == 0);
                issue = e.t;
            }
            if (e.op == wait && e.kind == EventKind::wait_end) wait_end = e.t;
        }
        INFO("iteration " << b);
        REQUIRE(issue >= 0);
        CHECK(issue >= wait_end);
    }
}

TEST_CASE("snapshots: a snapshot before the wait races and shows the bytes not yet landed",
          "[model][snapshot]") {
    const Scenario s = snapshots_catalog("snapshot_before_wait.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::hazard);
    const int early = op_id(s, "early");
    REQUIRE(r.diagnostics.size() == 2);
    for (int64_t i = 0; i < 2; ++i) {
        const Diagnostic& d = r.diagnostics[static_cast<size_t>(i)];
        CHECK(d.rule == "race.read_before_complete");
        CHECK(d.op == early);
        CHECK(d.iters == std::vector<int64_t>{i});
        CHECK(d.detail.at("buffer") == "stage[" + std::to_string(i) + "]");
        CHECK_THAT(d.message, Catch::Contains("shared.snapshot (early): thread 0 reads stage[" + std::to_string(i) +
                                              "][0..511] while bulk.load op #4"));
    }
    const auto snaps = snapshot_images(r);
    REQUIRE(snaps.size() == 2);
    CHECK(snaps[0]->name == "early[0]:stage[0]");
    CHECK(snaps[1]->name == "early[1]:stage[1]");
    // Read right after the copy was issued: none of its bytes had landed...
    for (const MemoryImage* m : snaps) CHECK(m->bytes == std::vector<uint8_t>(512, 0));
    // ...while the final stage holds batch 2 (the copy did land, later).
    const MemoryImage& final_stage0 = r.memory[1];
    REQUIRE(final_stage0.name == "stage[0]");
    CHECK(load_element_int(final_stage0.bytes.data(), DType::i32, 5) == 261);
}

TEST_CASE("snapshots: two runs give the same images", "[model][snapshot]") {
    const Scenario s = snapshots_catalog("tma_pipeline_stage_snapshots.yaml");
    const RunResult a = run_model(s), b = run_model(s);
    REQUIRE(a.memory.size() == b.memory.size());
    for (size_t i = 0; i < a.memory.size(); ++i) {
        CHECK(a.memory[i].name == b.memory[i].name);
        CHECK(a.memory[i].bytes == b.memory[i].bytes);
    }
}
