// Barrier storage lifetime (semantics.md A11) on the model: the catalog's barrier_storage/
// scenarios, each broken one reporting its rule once at the op it names, against the barrier
// and bytes it names, and each correct twin ok with no diagnostic. Without the rule the
// broken ones run ok: each check below then fails.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_support.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::test::catalog;
using tmasim::test::op_id;

namespace test_barrier_storage {
using tmasim::test::all_diagnostics;
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// By value: callers pass run_model(...)'s temporary, which dies at the end of their statement.
Diagnostic only_report(const RunResult& r, const std::string& rule) {
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.outcome == Outcome::hazard);
    CHECK(r.diagnostics[0].rule == rule);
    return r.diagnostics[0];
}

void check_clean(const char* file) {
    const RunResult r = run_model(catalog(file));
    INFO(file << all_diagnostics(r));
    CHECK(r.outcome == Outcome::ok);
    CHECK(r.diagnostics.empty());
}

}  // namespace

TEST_CASE("barrier storage: a store into a live barrier's bytes is reported once, at the store",
          "[model][barriers][catalog]") {
    const Scenario s = catalog("barrier_storage/store_into_live_barrier.yaml");
    const Diagnostic d = only_report(run_model(s), "mbarrier.live_bytes_access");
    CHECK(d.op == op_id(s, "reuse"));
    // Thread 0 stores scratch[0], bytes 0..3 of the barrier's 0..7.
    CHECK(d.detail.at("thread") == "0");
    CHECK(d.detail.at("barrier") == "bar");
    CHECK(d.detail.at("buffer") == "scratch");
    CHECK(d.detail.at("first_byte") + ".." + d.detail.at("last_byte") == "0..3");
    CHECK(contains(d.message, "live barrier bar (scratch bytes 0..7)"));
    CHECK(contains(d.message, "semantics.md A11"));
    check_clean("barrier_storage/reuse_after_inval.yaml");
}

TEST_CASE("barrier storage: a TMA load over its own live barrier is reported at the load's issue",
          "[model][barriers][catalog]") {
    const Scenario s = catalog("barrier_storage/tma_load_over_live_barrier.yaml");
    const Diagnostic d = only_report(run_model(s), "mbarrier.live_bytes_access");
    CHECK(d.op == op_id(s, "load"));
    CHECK(contains(d.message, "issues an async write of tile[0..4095]"));
    CHECK(contains(d.message, "tile bytes 4088..4095"));
}

TEST_CASE("barrier storage: init over bytes a cp.async still writes, or another warp still reads",
          "[model][barriers][catalog]") {
    {
        const Scenario s = catalog("barrier_storage/init_over_cp_async.yaml");
        const Diagnostic d = only_report(run_model(s), "mbarrier.init_over_data");
        CHECK(d.op == op_id(s, "init"));
        CHECK(d.detail.at("async_op") == std::to_string(op_id(s, "fill")));
        CHECK(contains(d.message, "cp.async op #" + std::to_string(op_id(s, "fill")) + " 'fill' (thread 0) still writes"));
    }
    {
        const Scenario s = catalog("barrier_storage/init_over_unsynced_read.yaml");
        const Diagnostic d = only_report(run_model(s), "mbarrier.init_over_data");
        CHECK(d.op == op_id(s, "init"));
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "use")));
        // Thread 32 read scratch[0] (its word (32 + 32) % 64).
        CHECK(d.detail.at("other_thread") == "32");
    }
    check_clean("barrier_storage/init_after_cp_async_wait.yaml");
}

TEST_CASE("barrier storage: the inval is a write, so reuse by another warp needs a sync after it",
          "[model][barriers][catalog]") {
    const Scenario s = catalog("barrier_storage/inval_then_store_unsynced.yaml");
    const Diagnostic d = only_report(run_model(s), "race.shared_waw");
    CHECK(d.op == op_id(s, "reuse"));
    CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "inval")));
    CHECK(d.detail.at("thread") == "32");
}

}  // namespace test_barrier_storage
