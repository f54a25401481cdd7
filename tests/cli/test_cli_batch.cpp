// Batch mode of `tmasim run`: a directory of scenarios, one trace each, a summary table, and
// an exit code that says whether every scenario met its expectation.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <filesystem>

#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;

namespace {

namespace fs = std::filesystem;

const char* kBulkAddOne = "scenarios/catalog/guide/bulk_add_one_1d.yaml";

// batch/good.yaml (expects ok: right), batch/sub/wrong.yaml (expects a hang: wrong) and
// batch/invalid/broken.yaml (not YAML of a scenario; must be skipped by the walk).
const std::string& batch_dir() {
    static const std::string dir = [] {
        const std::string d = scratch("batch");
        fs::create_directories(d + "/sub");
        fs::create_directories(d + "/invalid");
        const std::string good = read_file(std::string(TMASIM_SOURCE_DIR) + "/" + kBulkAddOne);
        const std::string ok = "  outcome: ok";
        REQUIRE(good.find(ok) != std::string::npos);
        std::string wrong = good;
        wrong.replace(wrong.find(ok), ok.size(), "  outcome: hang");
        tmasim_test::write_file(d + "/good.yaml", good);
        tmasim_test::write_file(d + "/sub/wrong.yaml", wrong);
        tmasim_test::write_file(d + "/invalid/broken.yaml", "scenario: [this is not one\n");
        return d;
    }();
    return dir;
}

bool cuda_driver_present() {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
}

// The table row of one scenario (the line that starts with its relative name).
std::string row_of(const std::string& out, const std::string& rel) {
    const size_t table = out.find("\nscenario ");
    REQUIRE(table != std::string::npos);
    const size_t at = out.find("\n" + rel + " ", table);
    REQUIRE(at != std::string::npos);
    return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("model batch over a directory: a wrong expectation fails the batch and the table names it",
          "[cli][batch][model]") {
    const std::string traces = scratch("batch-model-traces");
    auto r = run_cli("run '" + batch_dir() + "' --backend model -o '" + traces + "'");
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    CHECK(tmasim_test::last_line(r.out) == "2 scenarios: 1 agree, 1 disagree, 0 skipped");
    const std::string good = row_of(r.out, "good.yaml");
    CHECK(good.find(" PASS ") != std::string::npos);
    const std::string wrong = row_of(r.out, "sub/wrong.yaml");
    CHECK(wrong.find(" FAIL ") != std::string::npos);
    CHECK(wrong.find("expected hang, got ok") != std::string::npos);
    CHECK(r.out.find("broken") == std::string::npos);  // under invalid/: never visited
    // One trace per scenario, at its relative path.
    CHECK(tmasim_test::last_line(read_file(traces + "/good.jsonl")) == R"({"type":"outcome","outcome":"ok"})");
    CHECK(fs::exists(traces + "/sub/wrong.jsonl"));
    CHECK_FALSE(fs::exists(traces + "/invalid"));
}

TEST_CASE("model batch of files that all meet their expectation exits 0, --diff-against adds columns",
          "[cli][batch][model]") {
    const std::string traces = scratch("batch-model-ok");
    auto first = run_cli(std::string("run ") + kBulkAddOne + " scenarios/catalog/hazards/tma_2d_missing_proxy_fence.yaml"
                         " --backend model --quiet -o '" + traces + "'");
    INFO(first.out << first.err);
    CHECK(first.code == 0);
    CHECK(tmasim_test::last_line(first.out) == "2 scenarios: 2 agree, 0 disagree, 0 skipped");
    CHECK(fs::exists(traces + "/bulk_add_one_1d.jsonl"));
    CHECK(fs::exists(traces + "/tma_2d_missing_proxy_fence.jsonl"));

    // Against its own traces: same bytes, so memory matches and timing errors are 0.
    auto again = run_cli(std::string("run ") + kBulkAddOne + " --backend model --diff-against '" + traces + "'");
    INFO(again.out << again.err);
    CHECK(again.code == 0);
    const std::string row = row_of(again.out, "bulk_add_one_1d.yaml");
    CHECK(row.find(" match ") != std::string::npos);
    CHECK(row.find("0%/0%") != std::string::npos);
    CHECK(again.out.find("memory") != std::string::npos);
}

TEST_CASE("a scenario that does not load is an error row, the batch goes on and exits 2", "[cli][batch][model]") {
    const std::string bad = scratch("batch-bad/not_a_scenario.yaml");
    fs::create_directories(fs::path(bad).parent_path());
    tmasim_test::write_file(bad, "scenario: x\nlaunch: {block: 0}\n");
    auto r = run_cli("run '" + fs::path(bad).parent_path().string() + "' " + kBulkAddOne + " --backend model");
    INFO(r.out << r.err);
    CHECK(r.code == 2);
    CHECK(row_of(r.out, "not_a_scenario.yaml").find(" error ") != std::string::npos);
    CHECK(row_of(r.out, "bulk_add_one_1d.yaml").find(" PASS") != std::string::npos);
    CHECK(tmasim_test::last_line(r.out) == "2 scenarios: 1 agree, 0 disagree, 0 skipped, 1 error");
}

TEST_CASE("device batch without a CUDA driver: every scenario skipped with the reason, exit 2",
          "[cli][batch][device]") {
    if (cuda_driver_present()) {
        WARN("libcuda.so.1 is present: this test checks the no-driver path and is skipped on a GPU machine");
        return;
    }
    const std::string traces = scratch("batch-device-traces");
    auto r = run_cli("run '" + batch_dir() + "' --backend device -o '" + traces + "'");
    INFO(r.out << r.err);
    CHECK(r.code == 2);
    CHECK(tmasim_test::last_line(r.out) == "2 scenarios: 0 agree, 0 disagree, 2 skipped");
    // The reason is given once for the whole batch (tests/cli/test_cli_newcomer.cpp), not per scenario.
    const std::string reason = "no CUDA driver (libcuda.so.1 not found)";
    size_t times = 0;
    for (size_t p = r.out.find(reason); p != std::string::npos; p = r.out.find(reason, p + 1)) ++times;
    CHECK(times == 1);
    CHECK_FALSE(fs::exists(traces + "/good.jsonl"));  // nothing ran, no trace
}

TEST_CASE("batch mode refuses two inputs that would share a trace name", "[cli][batch]") {
    const std::string other = scratch("batch-dup/bulk_add_one_1d.yaml");
    fs::create_directories(fs::path(other).parent_path());
    tmasim_test::write_file(other, read_file(std::string(TMASIM_SOURCE_DIR) + "/" + kBulkAddOne));
    auto r = run_cli(std::string("run ") + kBulkAddOne + " '" + other + "' --backend model");
    CHECK(r.code == 2);
    CHECK(r.err.find("share the trace name") != std::string::npos);
}
