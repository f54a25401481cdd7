#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using tmasim_test::read_file;
using tmasim_test::scratch;
using tmasim_test::run_cli;

namespace {

const char* kBulkAddOne = "scenarios/catalog/guide/bulk_add_one_1d.yaml";

// A model trace of the guide's bulk add-one kernel, made once per test process.
const std::string& model_trace() {
    static const std::string path = [] {
        std::string p = scratch("bulk_add_one.model.jsonl");
        auto r = run_cli(std::string("run ") + kBulkAddOne + " --backend model -o '" + p + "'");
        INFO(r.out << r.err);
        REQUIRE(r.code == 0);
        return p;
    }();
    return path;
}

bool cuda_driver_present() {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
}

}  // namespace

TEST_CASE("run --backend model meets the scenario's expect and writes a complete trace", "[cli][model]") {
    std::string trace = model_trace();
    std::string text = read_file(trace);
    CHECK(tmasim_test::last_line(text) == R"({"type":"outcome","outcome":"ok"})");
    tmasim::RunResult r = tmasim::read_trace(trace);
    CHECK(r.provenance.backend == "model");
    CHECK(r.provenance.scenario == "bulk_add_one_1d");
    CHECK_FALSE(r.events.empty());

    // Principle 4: same scenario, config and seed give a byte-identical model trace.
    std::string again = scratch("bulk_add_one.again.jsonl");
    auto second = run_cli(std::string("run ") + kBulkAddOne + " --backend model --quiet -o '" + again + "'");
    CHECK(second.code == 0);
    CHECK(second.out.empty());
    CHECK(read_file(again) == text);
}

TEST_CASE("run --backend model of the hazard catalog reports the expected hazards", "[cli][model]") {
    for (const char* file : {"scenarios/catalog/hazards/tma_2d_missing_proxy_fence.yaml",
                             "scenarios/catalog/hazards/tma_2d_expect_tx_mismatch.yaml"}) {
        auto r = run_cli(std::string("run ") + file + " --backend model");
        INFO(file << "\n" << r.out << r.err);
        CHECK(r.code == 0);
        CHECK(r.out.find(": PASS") != std::string::npos);
    }
}

TEST_CASE("diff of a trace with itself matches", "[cli][diff]") {
    auto r = run_cli("diff '" + model_trace() + "' '" + model_trace() + "'");
    CHECK(r.code == 0);
    CHECK(r.out.find("OUTCOME: match (ok)") != std::string::npos);
    CHECK(r.out.find("RESULT: functional match") != std::string::npos);
    CHECK(r.out.find("timing: ") != std::string::npos);
}

TEST_CASE("diff of traces differing in one memory byte exits 1 and names the offset", "[cli][diff]") {
    tmasim::TraceFile t = tmasim::read_trace_file(model_trace());
    REQUIRE_FALSE(t.result.memory.empty());
    REQUIRE(t.result.memory[0].bytes.size() > 100);
    t.result.memory[0].bytes[100] ^= 0x80;
    std::string changed = scratch("changed.jsonl");
    tmasim::write_trace_file(t.result, changed, t.op_names);

    auto r = run_cli("diff '" + model_trace() + "' '" + changed + "'");
    CHECK(r.code == 1);
    CHECK(r.out.find("DIFFER: 1 of ") != std::string::npos);
    CHECK(r.out.find("first at byte offset 100") != std::string::npos);
    CHECK(r.out.find("RESULT: FUNCTIONAL MISMATCH") != std::string::npos);
}

TEST_CASE("diff of a truncated trace exits 2 with path:line", "[cli][diff]") {
    std::string text = read_file(model_trace());
    std::string cut = scratch("cut.jsonl");
    tmasim_test::write_file(cut, text.substr(0, text.rfind("{\"type\":\"outcome\"")));
    auto r = run_cli("diff '" + cut + "' '" + model_trace() + "'");
    CHECK(r.code == 2);
    CHECK(r.err.find(cut + ":") != std::string::npos);
    CHECK(r.err.find("truncated trace") != std::string::npos);
}

TEST_CASE("export writes Chrome trace JSON", "[cli][export]") {
    std::string out = scratch("chrome.json");
    auto r = run_cli("export '" + model_trace() + "' -o '" + out + "'");
    CHECK(r.code == 0);
    auto doc = nlohmann::json::parse(read_file(out));
    CHECK(doc.at("traceEvents").is_array());
    CHECK_FALSE(doc.at("traceEvents").empty());
}

TEST_CASE("run --backend device without a CUDA driver says so and exits 2", "[cli][device]") {
    if (cuda_driver_present()) {
        WARN("libcuda.so.1 is present: this test checks the no-driver path and is skipped on a GPU machine");
        return;
    }
    std::string trace = scratch("device.jsonl");
    auto r = run_cli(std::string("run ") + kBulkAddOne + " --backend device -o '" + trace + "'");
    CHECK(r.code == 2);
    CHECK(r.err.rfind("tmasim: error: ", 0) == 0);
    std::string lower = r.err;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    CHECK(lower.find("driver") != std::string::npos);
    CHECK(read_file(trace).empty());  // no run, no trace
}

TEST_CASE("run --backend device --json without a CUDA driver prints a JSON document saying skipped, exits 2",
          "[cli][device][json]") {
    if (cuda_driver_present()) {
        WARN("libcuda.so.1 is present: this test checks the no-driver path and is skipped on a GPU machine");
        return;
    }
    auto r = run_cli(std::string("run ") + kBulkAddOne + " -b device --json");
    CHECK(r.code == 2);
    INFO(r.out);
    REQUIRE(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("format") == "tmasim-run");
    CHECK(doc.at("status") == "skipped");
    CHECK(doc.at("backend") == "device");
    CHECK(doc.at("scenario_file") == kBulkAddOne);
    CHECK(doc.at("exit_code") == 2);
    std::string why = doc.at("why").get<std::string>();
    std::transform(why.begin(), why.end(), why.begin(), ::tolower);
    CHECK(why.find("driver") != std::string::npos);
    CHECK(r.err.rfind("tmasim: error: ", 0) == 0);  // stderr as without --json
}

TEST_CASE("run --json of a scenario that cannot be loaded prints a JSON document saying error, exits 2",
          "[cli][json]") {
    const std::string bad = scratch("bad_key.yaml");
    tmasim_test::write_file(bad, read_file(std::string(TMASIM_SOURCE_DIR) + "/" + kBulkAddOne) + "\nnot_a_key: 1\n");
    auto r = run_cli("run '" + bad + "' --json");
    CHECK(r.code == 2);
    INFO(r.out << r.err);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc.at("status") == "error");
    CHECK(doc.at("why").get<std::string>().find(bad + ":") == 0);
    CHECK(doc.at("exit_code") == 2);
}
