// Machine-readable output (--json) of run, batch run and diff, the done-when diff of a
// hazard scenario against its H200 recording, and outputs refused before any work.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using Json = nlohmann::json;

namespace {

const char* kMissingFence = "scenarios/catalog/hazards/tma_2d_missing_proxy_fence.yaml";
const char* kMissingFenceH200 = "traces/recorded/NVIDIA-H200/hazards/tma_2d_missing_proxy_fence.jsonl";

// stdout must be exactly one JSON document: parse() rejects trailing text.
Json one_document(const std::string& out) {
    INFO(out);
    REQUIRE_FALSE(out.empty());
    REQUIRE(out.back() == '\n');
    REQUIRE(std::count(out.begin(), out.end(), '\n') == 1);
    return Json::parse(out);
}

const std::string& missing_fence_model_trace() {
    static const std::string path = [] {
        std::string p = scratch("missing_fence.model.jsonl");
        auto r = run_cli(std::string("run ") + kMissingFence + " --backend model --quiet -o '" + p + "'");
        REQUIRE(r.code == 0);
        return p;
    }();
    return path;
}

}  // namespace

TEST_CASE("run FILE --backend model --json prints exactly one JSON document", "[cli][json]") {
    const std::string trace = scratch("json_run.jsonl");
    auto r = run_cli(std::string("run ") + kMissingFence + " --backend model --json -o '" + trace + "'");
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    Json doc = one_document(r.out);
    CHECK(doc.at("format") == "tmasim-run");
    CHECK(doc.at("version") == 3);  // 2: diagnostics merged per (rule, op, CTA); 3: numbers as numbers
    CHECK(doc.at("provenance").at("scenario") == "tma_2d_missing_proxy_fence");
    CHECK(doc.at("provenance").at("backend") == "model");
    CHECK(doc.at("outcome") == "hazard");
    REQUIRE(doc.at("diagnostics").size() == 1);
    CHECK(doc.at("diagnostics")[0].at("rule") == "proxy.generic_to_async");
    CHECK(doc.at("diagnostics")[0].at("op") == 8);
    CHECK(doc.at("diagnostics")[0].at("op_name") == "tma.store");
    CHECK(doc.at("diagnostics")[0].at("detail").at("buffer") == "smem_buffer");
    CHECK(doc.at("expect").at("passed") == true);
    CHECK(doc.at("expect").at("expected") == "hazard proxy.generic_to_async at op 'store'");
    CHECK(doc.at("summary").get<std::string>().find("fence.proxy.async") != std::string::npos);
    CHECK(doc.at("trace") == trace);
    CHECK(doc.at("exit_code") == 0);
    // The document agrees with the trace it wrote: same event count and memory hashes.
    const std::string text = read_file(trace);
    size_t events = 0;
    for (size_t at = text.find("\"type\":\"event\""); at != std::string::npos; at = text.find("\"type\":\"event\"", at + 1))
        ++events;
    CHECK(doc.at("events").at("total") == events);
    REQUIRE(doc.at("memory").size() == 2);
    CHECK(text.find(doc.at("memory")[0].at("fnv1a64").get<std::string>()) != std::string::npos);
}

TEST_CASE("run --json of a failed expectation exits 1 and says why in the document", "[cli][json]") {
    const std::string path = scratch("wrong_expect.yaml");
    std::string yaml = read_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/bulk_add_one_1d.yaml");
    const std::string ok = "  outcome: ok";
    REQUIRE(yaml.find(ok) != std::string::npos);
    yaml.replace(yaml.find(ok), ok.size(), "  outcome: hang");
    tmasim_test::write_file(path, yaml);
    auto r = run_cli("run '" + path + "' --backend model --json");
    CHECK(r.code == 1);
    Json doc = one_document(r.out);
    CHECK(doc.at("expect").at("passed") == false);
    CHECK(doc.at("expect").at("got") == "ok");
    CHECK(doc.at("trace").is_null());
    CHECK(doc.at("exit_code") == 1);
}

TEST_CASE("batch run --json: one document with a row per scenario, progress on stderr", "[cli][json][batch]") {
    auto r = run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml scenarios/catalog/hazards/"
                     "tma_2d_missing_proxy_fence.yaml --backend model --json");
    CHECK(r.code == 0);
    Json doc = one_document(r.out);
    CHECK(doc.at("format") == "tmasim-batch");
    REQUIRE(doc.at("scenarios").size() == 2);
    CHECK(doc.at("scenarios")[0].at("scenario") == "bulk_add_one_1d.yaml");
    CHECK(doc.at("scenarios")[0].at("verdict") == "agree");
    CHECK(doc.at("scenarios")[1].at("got") == "hazard");
    CHECK(doc.at("counts").at("agree") == 2);
    CHECK(doc.at("counts").at("total") == 2);
    CHECK(doc.at("exit_code") == 0);
    CHECK(r.err.find("[2/2] tma_2d_missing_proxy_fence.yaml: hazard PASS") != std::string::npos);
}

TEST_CASE("diff of the missing-fence model trace against its H200 recording: race not observable, exit 0",
          "[cli][diff]") {
    auto r = run_cli("diff '" + missing_fence_model_trace() + "' " + kMissingFenceH200);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("race predicted by the model, not observable on hardware: proxy.generic_to_async at #8 "
                     "tma.store (store)") != std::string::npos);
    CHECK(r.out.find("FUNCTIONAL MISMATCH") == std::string::npos);
    CHECK(r.out.find("RESULT: functional match") != std::string::npos);
    // The model ran its default config (h100-sxm), the trace came from an H200.
    CHECK(r.out.find("WARNING: the model ran with arch config h100-sxm but the B trace comes from an NVIDIA H200 "
                     "(config h200)") != std::string::npos);

    auto j = run_cli("diff '" + missing_fence_model_trace() + "' " + kMissingFenceH200 + " --json");
    CHECK(j.code == 0);
    Json doc = one_document(j.out);
    CHECK(doc.at("format") == "tmasim-diff");
    CHECK(doc.at("outcome").at("match") == false);
    CHECK(doc.at("outcome").at("agree") == true);
    CHECK(doc.at("outcome").at("races_not_observed") ==
          Json::array({"proxy.generic_to_async at #8 tma.store (store)"}));
    CHECK(doc.at("memory").at("match") == true);
    CHECK(doc.at("functional_match") == true);
    // The arch warning, and the trace-level one: the model predicted the untraced kernel, the
    // recording timed every op.
    REQUIRE(doc.at("warnings").size() == 2);
    CHECK(doc.at("warnings")[1].get<std::string>().find("rerun the model with --trace all") != std::string::npos);
    const Json& timing = doc.at("timing");
    CHECK(timing.at("kernel_span_ns").at("a").get<int64_t>() > 0);
    CHECK(timing.at("kernel_span_ns").at("b").get<int64_t>() > 0);
    CHECK(timing.at("over_tolerance") ==
          timing.at("events").at("over_tolerance").get<int>() + timing.at("durations").at("over_tolerance").get<int>());
    CHECK(doc.at("exit_code") == 0);
}

TEST_CASE("diff shows differing bytes decoded by the scenario's element type", "[cli][diff]") {
    // The H200's A with the first element of the stored box (row 16, column 64: element
    // 2112 of the i32 tensor, bytes 8448..8451) changed from 2112 to 7.
    tmasim::TraceFile device = tmasim::read_trace_file(std::string(TMASIM_SOURCE_DIR) + "/" + kMissingFenceH200);
    REQUIRE(device.result.memory.at(0).name == "A");
    std::vector<uint8_t>& a = device.result.memory[0].bytes;
    REQUIRE(a.at(8448) == (2112 & 0xff));
    a[8448] = 7;
    a[8449] = 0;
    const std::string edited = scratch("edited.device.jsonl");
    tmasim::write_trace_file(device.result, edited, device.op_names);

    auto r = run_cli("diff '" + missing_fence_model_trace() + "' '" + edited + "'");
    INFO(r.out << r.err);
    CHECK(r.code == 1);  // A is no buffer the race names: its bytes still count
    CHECK(r.out.find("global A: DIFFER: 2 of 32768 bytes, first at byte offset 8448") != std::string::npos);
    CHECK(r.out.find("    element 2112 (bytes 8448..8451, i32): A 2112, B 7") != std::string::npos);
    CHECK(r.out.find("RESULT: FUNCTIONAL MISMATCH") != std::string::npos);
}

TEST_CASE("outputs into a missing folder are refused before any work", "[cli]") {
    const std::string missing = scratch("no_such_folder") + "/t.jsonl";
    auto r = run_cli(std::string("run ") + kMissingFence + " --backend model -o '" + missing + "'");
    CHECK(r.code == 2);
    CHECK(r.out.empty());  // nothing ran: no summary
    CHECK(r.err.find("does not exist; create it first") != std::string::npos);
    auto e = run_cli("export '" + missing_fence_model_trace() + "' -o '" + missing + "'");
    CHECK(e.code == 2);
    CHECK(e.err.find("does not exist; create it first") != std::string::npos);
}
