// What `tmasim run` prints for a newcomer (issue 39): the kernel's time in ns and cycles and
// where it comes from, units on the op table, each diagnostic led by the compiler-style line
// "file:line:col: hazard: RULE: message" (also under -q), --json with numbers as numbers and
// each diagnostic's place, why and fix, and the HTML report's fix as the CLI prints it.
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/kernel_time.h"
#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;
using Json = nlohmann::json;

namespace {

const std::string kTeach01 = "scenarios/catalog/teach/01_tma_load_ok.yaml";
const std::string kTeach07 = "scenarios/catalog/teach/07_store_no_fence.yaml";
// teach/07's fix in its own terms (cli/teaching.cpp), not the rule's general text.
const std::string kTeach07Fix = "Add {op: fence.proxy.async} after op #0 shared.store 'write' (line 16) in threads "
                                "0-63, before op #1 sync (line 17)";

std::string line_starting(const std::string& text, const std::string& prefix) {
    for (size_t at = 0; at < text.size();) {
        const size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (line.rfind(prefix, 0) == 0) return line;
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return "";
}

// teach/01 without its wait: a hazard the scenario does not expect (exit 1).
std::string no_wait_scenario() {
    std::string yaml = read_file(std::string(TMASIM_SOURCE_DIR) + "/" + kTeach01);
    std::string kept;
    for (size_t at = 0; at < yaml.size();) {
        const size_t end = yaml.find('\n', at);
        const std::string line = yaml.substr(at, end - at + 1);
        if (line.find("label: wait") == std::string::npos) kept += line;
        at = end == std::string::npos ? yaml.size() : end + 1;
    }
    REQUIRE(kept.size() < yaml.size());
    const std::string path = scratch("no_wait.yaml");
    write_file(path, kept);
    return path;
}

}  // namespace

TEST_CASE("run prints the model's kernel time in ns and cycles at the arch's clock, and says so", "[cli][output]") {
    const auto r = run_cli("run " + kTeach01 + " --backend model --arch h200");
    REQUIRE(r.code == 0);
    const std::string line = line_starting(r.out, "kernel time: ");
    INFO(r.out);
    std::smatch m;
    REQUIRE(std::regex_match(line, m,
                             std::regex(R"(kernel time: (\d+) ns \((\d+) cycles at (\d+) MHz\), predicted by the )"
                                        R"(model \(h200\), first warp entry to last warp exit; trace level none)")));
    const double ns = std::stod(m[1].str()), cycles = std::stod(m[2].str()), mhz = std::stod(m[3].str());
    CHECK(mhz == 1980);  // model/arch/h200.yaml's sm_clock_mhz, the header's too
    CHECK(r.out.find("@ 1980 MHz") != std::string::npos);
    CHECK(ns > 0);
    CHECK(std::abs(ns - cycles * 1000.0 / mhz) <= 0.5);  // the ns are the cycles at that clock
}

TEST_CASE("a device run's kernel time: the measured span in ns and in cycles at the GPU's clock", "[cli][output]") {
    tmasim::Provenance p;
    p.backend = "device";
    p.gpu = "NVIDIA H200";
    p.sm_clock_mhz = 1980;
    p.extra = {{"kernel_time_ns", "3100"}, {"kernel_span_ns", "2580"}, {"trace_level", "all"}};
    std::ostringstream out;
    tmasim::cli::print_kernel_time(p, out);
    CHECK(out.str() == "kernel time: 2580 ns (5108 cycles at 1980 MHz), measured on the GPU (NVIDIA H200), first "
                       "warp entry to last warp exit (%globaltimer); CUDA events: 3100 ns; trace level all\n");
    const auto j = tmasim::cli::kernel_time_json(p);
    CHECK(j.at("ns") == 2580);
    CHECK(j.at("cycles") == 5108);
    CHECK(j.at("cuda_event_ns") == 3100);
    p.extra.erase("kernel_span_ns");  // a CTA never exited: the launch's CUDA-event time alone
    out.str("");
    tmasim::cli::print_kernel_time(p, out);
    CHECK(out.str().rfind("kernel time: 3100 ns (6138 cycles at 1980 MHz), measured on the GPU (NVIDIA H200) by CUDA "
                          "events around the launch;", 0) == 0);
}

TEST_CASE("run's op table says its times are cycles", "[cli][output]") {
    const auto r = run_cli("run " + kTeach01 + " --backend model");
    REQUIRE(r.code == 0);
    const std::string header = line_starting(r.out, "    op  name");
    INFO(r.out);
    CHECK(header.find("first t (cycles)") != std::string::npos);
    CHECK(header.find("last t (cycles)") != std::string::npos);
}

TEST_CASE("a diagnostic leads with file:line:col: hazard: RULE: message, before its details", "[cli][output]") {
    const auto r = run_cli("run " + kTeach07 + " --backend model");
    REQUIRE(r.code == 0);
    INFO(r.out);
    const std::string headline = line_starting(r.out, kTeach07 + ":");
    CHECK(headline.rfind(kTeach07 + ":18:5: hazard: proxy.generic_to_async: ", 0) == 0);
    // Right after the count, and before today's indented line that scripts read.
    const size_t count = r.out.find("diagnostics: 1\n");
    REQUIRE(count != std::string::npos);
    CHECK(r.out.compare(count + 15, headline.size(), headline) == 0);
    CHECK(r.out.find(headline + "\n  hazard proxy.generic_to_async at op #2 (cta 0): ") != std::string::npos);
    CHECK(r.out.find('\033') == std::string::npos);  // piped: no colour
}

TEST_CASE("run -q of a failed expectation prints each diagnostic's first line and exits 1", "[cli][output]") {
    const std::string path = no_wait_scenario();
    const auto r = run_cli("run '" + path + "' --backend model -q");
    INFO(r.out);
    CHECK(r.code == 1);
    const std::string headline = line_starting(r.out, path + ":");
    CHECK(std::regex_match(headline, std::regex(std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\/])"),
                                                                   R"(\$&)") +
                                                R"(:\d+:\d+: hazard: race\.read_before_complete: .+)")));
    CHECK(r.out.find("expect:      FAIL: expected ok, got hazard") != std::string::npos);
}

TEST_CASE("run --json: numbers are JSON numbers, and each diagnostic has file, line, col, rule, why, fix",
          "[cli][output][json]") {
    const auto r = run_cli("run " + kTeach07 + " --backend model --json");
    REQUIRE(r.code == 0);
    const Json doc = Json::parse(r.out);
    const Json& extra = doc.at("provenance").at("extra");
    CHECK(extra.at("kernel_span_ns").is_number_integer());
    CHECK(extra.at("kernel_span_cycles").is_number_integer());
    CHECK(extra.at("trace_level") == "none");
    CHECK(doc.at("status") == "ran");
    CHECK(doc.at("kernel_time").at("ns") == extra.at("kernel_span_ns"));
    CHECK(doc.at("kernel_time").at("cycles") == extra.at("kernel_span_cycles"));
    CHECK(doc.at("kernel_time").at("clock_mhz") == doc.at("provenance").at("sm_clock_mhz"));
    CHECK(doc.at("kernel_time").at("source") == "model");
    REQUIRE(doc.at("diagnostics").size() == 1);
    const Json& d = doc.at("diagnostics")[0];
    CHECK(d.at("file") == kTeach07);
    CHECK(d.at("line") == 18);
    CHECK(d.at("col") == 5);
    CHECK(d.at("rule") == "proxy.generic_to_async");
    CHECK_FALSE(d.at("why").get<std::string>().empty());
    CHECK(d.at("fix").get<std::string>().rfind(kTeach07Fix, 0) == 0);
    CHECK(d.at("headline").get<std::string>().rfind(kTeach07 + ":18:5: hazard: proxy.generic_to_async: ", 0) == 0);
    // Integer details are numbers; lists and ranges stay text.
    CHECK(d.at("detail").at("first_byte").is_number_integer());
    CHECK(d.at("detail").at("writer_threads") == "0-63");
}

TEST_CASE("report: the HTML's fix is the line-specific one the CLI prints", "[cli][output][report]") {
    const std::string trace = scratch("teach07.jsonl"), html = scratch("teach07.html");
    REQUIRE(run_cli("run " + kTeach07 + " --backend model -q -o '" + trace + "'").code == 0);
    REQUIRE(run_cli("report '" + trace + "' -o '" + html + "'").code == 0);
    const std::string page = read_file(html);
    std::string escaped = kTeach07Fix;
    for (size_t at = escaped.find('\''); at != std::string::npos; at = escaped.find('\'', at + 5))
        escaped.replace(at, 1, "&#39;");
    CHECK(page.find(escaped) != std::string::npos);
    CHECK(page.find("first t (cycles)") != std::string::npos);
}
