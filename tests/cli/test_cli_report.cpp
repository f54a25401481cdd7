// tmasim report: the HTML report of a model trace of the TMA prefetch pipeline, with its
// scenario found through the trace's header.
#include <catch2/catch.hpp>

#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;

namespace {

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("report of the TMA prefetch pipeline: copies, barriers, flows and its source", "[cli][report]") {
    const std::string trace = scratch("pipeline.jsonl"), out = scratch("pipeline.html");
    REQUIRE(run_cli("run scenarios/catalog/guide/tma_prefetch_pipeline.yaml --backend model -q -o '" + trace + "'")
                .code == 0);
    auto r = run_cli("report '" + trace + "' -o '" + out + "'");
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("0 diagnostic(s), source scenarios/catalog/guide/tma_prefetch_pipeline.yaml") != std::string::npos);
    const std::string doc = read_file(out);
    // Four 512-byte bulk loads (two initial, two refills), each in flight once.
    CHECK(count(doc, "<rect class=\"flight\"") == 4);
    CHECK(count(doc, " 512 B in flight: ") == 4);
    CHECK(doc.find(">barrier full[0]</text>") != std::string::npos);
    CHECK(doc.find(">barrier full[1]</text>") != std::string::npos);
    CHECK(count(doc, "<path class=\"flip\"") == 4);
    // Each flip released the four warps' waits on it (the scenario says which barrier and
    // parity each wait waits for), so every flip has four arrows to a wait.
    CHECK(count(doc, "4 wait(s) released") == 4);
    // The first refill's source line, linked from its slices.
    const std::string yaml = read_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/tma_prefetch_pipeline.yaml");
    int line = 1;
    for (size_t i = 0; i < yaml.find("label: refill}"); ++i) line += yaml[i] == '\n';
    CHECK(doc.find("id=\"src-L" + std::to_string(line) + "\"") != std::string::npos);
    CHECK(doc.find("<a href=\"#src-L" + std::to_string(line) + "\"><rect class=\"op copy\"") != std::string::npos);
}

TEST_CASE("report of a hazard names the rule with its statement and reference", "[cli][report]") {
    const std::string trace = scratch("fence.jsonl"), out = scratch("fence.html");
    REQUIRE(run_cli("run scenarios/catalog/hazards/tma_2d_missing_proxy_fence.yaml --backend model -q -o '" + trace +
                    "'")
                .code == 0);
    auto r = run_cli("report '" + trace + "' -o '" + out + "'");
    CHECK(r.code == 0);
    const std::string doc = read_file(out);
    CHECK(doc.find("<span class=\"rule\">proxy.generic_to_async</span>") != std::string::npos);
    CHECK(doc.find("<dt>the rule</dt><dd>generic writes read by the async proxy") != std::string::npos);
    CHECK(doc.find("<dt>reference</dt><dd>PTX 9.7.13.4") != std::string::npos);
    CHECK(count(doc, "<path class=\"hazard\"") == 1);
    CHECK(run_cli("report '" + trace + "' -o '" + scratch("missing_dir") + "/x.html'").code == 2);
}
