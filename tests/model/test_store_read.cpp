// A bulk or tensor store reads its shared-memory source out at tma_store_bytes_per_cycle after a
// fixed tma_store_read_cycles, and its writes are done tma_store_latency_cycles after that
// (calibrate/bulk_store_read on the H200 and H100: wait_group.read 436 / 792 / 2329 cycles after
// stores of 4 / 16 / 64 KiB).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "catalog_support.h"
#include "model/core/arch_config.h"
#include "model/run/run_model.h"

using namespace tmasim;
using tmasim::test::catalog;
using tmasim::test::op_id;

TEST_CASE("store read: the source read takes its fixed part plus the bytes at the store rate", "[model][timing]") {
    const Scenario s = catalog("calibrate/bulk_store_read.yaml");
    ModelOptions o;
    o.arch = "h200";
    const model::ArchConfig arch = model::ArchConfig::load_named("h200", o.arch_dir);
    const auto& tp = arch.timing();
    const RunResult r = run_model(s, o);
    REQUIRE(r.outcome == Outcome::ok);
    const int store = op_id(s, "bulk_store");
    std::vector<int64_t> start, read_done;
    for (const TraceEvent& e : r.events) {
        if (e.op != store || e.kind != EventKind::state) continue;
        if (e.what == "tma_start") start.push_back(e.t);
        if (e.what == "bulk_read_done") read_done.push_back(e.t);
    }
    REQUIRE(start.size() == 4);
    REQUIRE(read_done.size() == 4);
    for (size_t i = 0; i < 4; ++i) {
        const double bytes = 1024 << (2 * i);
        INFO("store of " << bytes << " bytes");
        CHECK(read_done[i] - start[i] == static_cast<int64_t>(std::ceil(tp.tma_store_read_cycles + bytes / tp.tma_store_bytes_per_cycle)));
    }
    // 64 KiB: the model's wait_group.read within 10% of the 2329 cycles both GPUs took.
    int64_t issue = -1, read_wait_end = -1;
    for (const TraceEvent& e : r.events) {
        if (e.op == store && e.kind == EventKind::issue && e.iters == std::vector<int64_t>{3}) issue = e.t;
        if (e.op == op_id(s, "bulk_read_done") && e.kind == EventKind::wait_end && e.iters == std::vector<int64_t>{3})
            read_wait_end = e.t;
    }
    REQUIRE(issue >= 0);
    REQUIRE(read_wait_end > issue);
    CHECK(std::abs(double(read_wait_end - issue) - 2329.0) < 0.10 * 2329.0);
}
