// The catalog scenarios of reductions (reduce/), Gluon's gather/scatter tutorial (gluon/)
// and semantics.md scenario 23 (teach/23*): each file promises the outcome, rule and op
// listed here, and the model delivers exactly that. The list pins the promises, so an
// edited `expect:` shows up here as well as in the catalog-wide walk.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "model/run/run_model.h"
#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {
struct Promise {
    const char* file;  // under scenarios/catalog
    Outcome outcome;
    const char* rule;  // "" for ok
    const char* op;    // "" for ok
};

const Promise kPromises[] = {
    {"reduce/bulk_add_f32.yaml", Outcome::ok, "", ""},
    {"reduce/bulk_min_max_i32.yaml", Outcome::ok, "", ""},
    {"reduce/bulk_add_bf16.yaml", Outcome::ok, "", ""},
    {"reduce/tma_add_2d_f32.yaml", Outcome::ok, "", ""},
    {"reduce/bulk_add_missing_fence.yaml", Outcome::hazard, "proxy.generic_to_async", "reduce"},
    {"reduce/bulk_add_source_reuse.yaml", Outcome::hazard, "race.store_source_overwrite", "refill"},
    {"gluon/gather_f32_x8_y16_off0.yaml", Outcome::ok, "", ""},
    {"gluon/gather_f32_x8_y16_off48.yaml", Outcome::ok, "", ""},
    {"gluon/gather_bf16_x8_y128_offm16.yaml", Outcome::ok, "", ""},
    {"gluon/gather_bf16_x8_y128_off1000.yaml", Outcome::ok, "", ""},
    {"gluon/gather_bf16_x8_y16_off0_swizzle32.yaml", Outcome::ok, "", ""},
    {"gluon/gather_bf16_x128_y128_off2_illegal.yaml", Outcome::fault, "tma.gather4_col_alignment", "gather"},
    {"gluon/scatter_f32_x8_y16_off0.yaml", Outcome::ok, "", ""},
    {"gluon/scatter_bf16_x8_y128_off1000.yaml", Outcome::ok, "", ""},
    {"gluon/scatter_f32_x8_y16_off0_no_fence.yaml", Outcome::hazard, "proxy.generic_to_async", "scatter_lo"},
    {"teach/23a_gather4_six_rows.yaml", Outcome::hazard, "race.early_pass", "read_rows_4_5"},
    {"teach/23b_gather4_oob_rows.yaml", Outcome::ok, "", ""},
    {"teach/23c_scatter4_negative_row.yaml", Outcome::fault, "tma.scatter4_negative_row", "scatter"},
    {"teach/23d_gather4_col_alignment.yaml", Outcome::fault, "tma.gather4_col_alignment", "gather"},
};

fs::path catalog() { return fs::path(TMASIM_SOURCE_DIR) / "scenarios" / "catalog"; }
}  // namespace

TEST_CASE("catalog: reduce, gluon and teach/23 scenarios keep their promises", "[model][catalog][reduce][gather4]") {
    for (const Promise& p : kPromises) {
        DYNAMIC_SECTION(p.file) {
            const Scenario s = load_scenario_file((catalog() / p.file).string());
            CHECK(!s.summary.empty());
            CHECK(!s.source.empty());
            REQUIRE(s.expect.outcome == p.outcome);
            CHECK(s.expect.rule == p.rule);
            CHECK(s.expect.op == p.op);
            const RunResult r = run_model(s);
            std::string all;
            for (const auto& d : r.diagnostics) all += "\n  [" + d.rule + "] " + d.message;
            INFO("diagnostics:" << all);
            REQUIRE(r.outcome == p.outcome);
            if (p.outcome == Outcome::ok) continue;
            REQUIRE(!r.diagnostics.empty());
            CHECK(r.diagnostics.front().rule == p.rule);
            const Op* want = nullptr;
            for (const Op* op : s.all_ops())
                if (op->label == p.op) want = op;
            REQUIRE(want);
            CHECK(r.diagnostics.front().op == want->id);
        }
    }
}

TEST_CASE("catalog: every reduce/ and gluon/ file is in the promise list", "[model][catalog]") {
    std::set<std::string> listed;
    for (const Promise& p : kPromises) listed.insert(p.file);
    for (const char* dir : {"reduce", "gluon"})
        for (const auto& e : fs::directory_iterator(catalog() / dir))
            CHECK(listed.count(e.path().lexically_relative(catalog()).string()) == 1);
}
