// The guide's examples that select threads with an expression: the model accepts them as
// written and catches the mistake each one is built to avoid.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

std::string catalog_text(const std::string& rel) {
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string without_line(std::string text, const std::string& line) {
    const size_t at = text.find(line);
    REQUIRE(at != std::string::npos);
    return text.erase(at, line.size() + 1);
}

}  // namespace

TEST_CASE("guide stencil: without the sync, neighbours' cp.async data is read unsynchronised", "[model][guide]") {
    const std::string text = catalog_text("guide/stencil_batching.yaml");
    CHECK(run_model(load_scenario_text(text, "stencil.yaml"), {}).outcome == Outcome::ok);
    const RunResult r = run_model(load_scenario_text(without_line(text, "  - {op: sync}"), "nosync.yaml"), {});
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].rule == "race.cp_async_unwaited");
    CHECK(r.diagnostics[0].message.find("thread 0 reads buffer[28..31]") != std::string::npos);
}

TEST_CASE("guide producer/consumer: consumers see the producer's copies through filled[]", "[model][guide]") {
    const std::string text = catalog_text("guide/producer_consumer_warp_specialized.yaml");
    const RunResult ok = run_model(load_scenario_text(text, "pc.yaml"), {});
    CHECK(ok.outcome == Outcome::ok);
    // The consumers' reads of each batch happen after the producer's copies landed.
    int consumes = 0;
    for (const TraceEvent& e : ok.events)
        if (e.kind == EventKind::complete && e.warp >= 1 && e.detail.count("wavefronts")) ++consumes;
    CHECK(consumes == 4 * 2);  // 4 batches, 2 consumer warps
    // Without the producer's cp.async.mbarrier.arrive the copies are not published by
    // filled[]: the consumers read them unsynchronised.
    const RunResult bad = run_model(
        load_scenario_text(without_line(text, "      - {op: cp.async.mbarrier.arrive, barrier: \"filled[i%2]\", by: \"warp == 0\"}"),
                           "pc_bad.yaml"),
        {});
    REQUIRE(bad.outcome != Outcome::ok);
}
