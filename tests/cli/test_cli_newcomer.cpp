// What a newcomer meets in the first ten minutes (issue 39): `explain` of the section id a
// diagnostic cites, `report` and `export` without -o, a `layout` map that fits a terminal and
// says what it shows, and a device batch on a machine without a GPU.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <sstream>

#include "cli_runner.h"

using tmasim_test::CliResult;
using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;

// Its own namespace: the unity build compiles this file beside others with helpers of these names.
namespace test_cli_newcomer {
namespace {
namespace fs = std::filesystem;

const std::string kRoot = TMASIM_SOURCE_DIR;
const std::string kMaps = kRoot + "/scenarios/catalog/layouts/tutorial_maps.yaml";

size_t widest_line(const std::string& text) {
    std::istringstream lines(text);
    size_t widest = 0;
    for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
    return widest;
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("explain prints the docs/semantics.md section a diagnostic cites", "[cli][explain]") {
    const CliResult b12 = run_cli("explain B12");
    INFO(b12.err);
    REQUIRE(b12.code == 0);
    // The section as the document has it, up to the next one (B13), and the rules citing it.
    CHECK_THAT(b12.out, Catch::StartsWith("docs/semantics.md B12:\n\n**B12. Generic, then async: a proxy fence on "
                                          "the path.**"));
    CHECK(b12.out.find("`proxy.async_write_after_generic` (scenario 26).") != std::string::npos);
    CHECK(b12.out.find("**B13.") == std::string::npos);
    CHECK(b12.out.find("rule ids citing it: proxy.generic_to_async, proxy.async_write_after_generic") !=
          std::string::npos);
    // Lower case is the same id; the last section ends at the next heading.
    CHECK(run_cli("explain b12").out == b12.out);
    const CliResult h41 = run_cli("explain H41");
    REQUIRE(h41.code == 0);
    CHECK(h41.out.find("\n## ") == std::string::npos);
    // Rule ids still explain as before.
    CHECK(run_cli("explain proxy.generic_to_async").out.find("read:        docs/semantics.md B12") != std::string::npos);
}

TEST_CASE("explain of an unknown id says what is allowed", "[cli][explain]") {
    const CliResult section = run_cli("explain Z99");
    CHECK(section.code == 2);
    CHECK(section.out.empty());
    CHECK_THAT(section.err, Catch::StartsWith("tmasim: error: explain: unknown section id 'Z99'; allowed: a rule id "
                                              "(`tmasim explain` lists them) or a section id of docs/semantics.md "
                                              "(A1 A2 A3"));
    CHECK(section.err.find(" B12 ") != std::string::npos);
    CHECK(section.err.find(" H41)") != std::string::npos);
    const CliResult rule = run_cli("explain race.nope");
    CHECK(rule.code == 2);
    CHECK(rule.err.find("unknown rule id 'race.nope'; allowed: a rule id") != std::string::npos);
}

TEST_CASE("report and export without -o write beside the trace", "[cli][outputs]") {
    const std::string d = scratch("newcomer-default-outputs");
    fs::create_directories(d);
    const std::string scenario = kRoot + "/scenarios/catalog/teach/01_tma_load_ok.yaml";
    REQUIRE(run_cli("run '" + scenario + "' -b model -q -o '" + d + "/t.jsonl'").code == 0);
    const CliResult report = run_cli("report '" + d + "/t.jsonl'");
    INFO(report.err);
    REQUIRE(report.code == 0);
    CHECK_THAT(report.out, Catch::StartsWith(d + "/t.html: "));
    CHECK(read_file(d + "/t.html").rfind("<!DOCTYPE html>", 0) == 0);
    const CliResult exported = run_cli("export '" + d + "/t.jsonl'");
    INFO(exported.err);
    REQUIRE(exported.code == 0);
    CHECK_THAT(exported.out, Catch::StartsWith(d + "/t.chrome.json: "));
    CHECK(read_file(d + "/t.chrome.json").find("\"traceEvents\"") != std::string::npos);
    // A trace not named .jsonl keeps its name and gets the extension added.
    fs::copy_file(d + "/t.jsonl", d + "/plain");
    REQUIRE(run_cli("report '" + d + "/plain'").code == 0);
    CHECK(fs::exists(d + "/plain.html"));
}

TEST_CASE("report and export without -o refuse a default output that is an input", "[cli][outputs]") {
    // The trace names its scenario, which report reads for its source lines: a scenario called
    // t.html beside t.jsonl is what `report t.jsonl` would otherwise overwrite.
    const std::string d = scratch("newcomer-default-refused");
    fs::create_directories(d);
    const std::string text = read_file(kRoot + "/scenarios/catalog/teach/01_tma_load_ok.yaml");
    tmasim_test::write_file(d + "/t.html", text);
    tmasim_test::write_file(d + "/t.chrome.json", text);
    REQUIRE(run_cli("run '" + d + "/t.html' -b model -q -o '" + d + "/t.jsonl'").code == 0);
    const CliResult report = run_cli("report '" + d + "/t.jsonl'");
    CHECK(report.code == 2);
    CHECK_THAT(report.err, Catch::StartsWith("tmasim: error: --output " + d + "/t.html is the input " + d +
                                             "/t.html (the scenario the trace"));
    CHECK(read_file(d + "/t.html") == text);
    REQUIRE(run_cli("run '" + d + "/t.chrome.json' -b model -q -o '" + d + "/t.jsonl'").code == 0);
    const CliResult exported = run_cli("export '" + d + "/t.jsonl'");
    CHECK(exported.code == 2);
    CHECK(exported.err.find("--output " + d + "/t.chrome.json is the input") != std::string::npos);
    CHECK(read_file(d + "/t.chrome.json") == text);
}

TEST_CASE("layout keeps its lines within 100 columns and ends with a legend", "[cli][layouts]") {
    // value: 32x8 elements of four broadcast owners each, 234 columns as one line a row.
    const CliResult tile = run_cli("layout " + kMaps + " value");
    REQUIRE(tile.code == 0);
    CHECK(widest_line(tile.out) <= 100);
    CHECK_THAT(tile.out, Catch::StartsWith("columns 0-1 of 8:\n[[  T0:0| T32:0| T64:0| T96:0,   T0:1| T32:1| T64:1| "
                                           "T96:1],\n"));
    for (const char* band : {"\n\ncolumns 2-3 of 8:\n[[", "\n\ncolumns 4-5 of 8:\n[[", "\n\ncolumns 6-7 of 8:\n[["})
        CHECK(tile.out.find(band) != std::string::npos);
    CHECK(tile.out.find(" T31:7| T63:7| T95:7|T127:7]]\n") != std::string::npos);
    CHECK(tile.out.find("]]\n\nlegend: line r, cell c is element (r, c) of the 32x8 tile (each band: the columns it "
                        "names).\n        T<t>:<r> = thread t (warp t/32, lane t%32) holds the element in its register "
                        "r; A|B = the\n        element is broadcast: A and B each hold a copy.\n") != std::string::npos);
    // 16 owners an element (127 columns a cell): one element a line, wrapped after a '|'.
    const std::string nvmma = kRoot + "/scenarios/catalog/layouts/shared_rows_nvmma128.yaml";
    const CliResult wide = run_cli("layout " + nvmma + " rows --shape 8,64");
    REQUIRE(wide.code == 0);
    CHECK(widest_line(wide.out) <= 100);
    CHECK_THAT(wide.out, Catch::StartsWith("(0, 0): T0:0| T8:0| T16:0| T24:0| T32:0| T40:0| T48:0| T56:0| T64:0| "
                                           "T72:0| T80:0| T88:0| T96:0|\n        T104:0| T112:0| T120:0\n(0, 1): "));
    CHECK(wide.out.find("\nlegend: each line (r, c) is element (r, c) of the 8x64 tile") != std::string::npos);
    // A shared layout's offsets: bands of 16 columns, the legend names the element type.
    const CliResult offsets = run_cli("layout " + nvmma + " nvmma --shape 8,64 --type f16");
    REQUIRE(offsets.code == 0);
    CHECK(widest_line(offsets.out) <= 100);
    CHECK_THAT(offsets.out, Catch::StartsWith("columns 0-15 of 64:\n[[  0,   1,"));
    CHECK(offsets.out.find("in f16 elements (2 bytes each)") != std::string::npos);
    // A map that fits is printed as before, without bands, legend after it.
    const CliResult warp = run_cli("layout " + kMaps + " warp_tile --shape 32,8");
    REQUIRE(warp.code == 0);
    CHECK(warp.out.find("columns") == std::string::npos);
    CHECK(warp.out.rfind("[[ T0:0,  T0:1,", 0) == 0);
    CHECK(warp.out.find(" T31:7]]\n\nlegend: ") != std::string::npos);
    // --linear is one line of bases, no legend.
    CHECK(run_cli("layout " + kMaps + " warp_tile --shape 32,8 --linear").out.find("legend") == std::string::npos);
}

TEST_CASE("a device batch without a GPU says why once and starts no run", "[cli][batch][device]") {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (driver) {
        dlclose(driver);
        WARN("libcuda.so.1 is present: this test checks the no-GPU path and is skipped on a GPU machine");
        return;
    }
    const std::string two = "scenarios/catalog/guide/bulk_add_one_1d.yaml scenarios/catalog/teach/01_tma_load_ok.yaml";
    const CliResult r = run_cli("run " + two + " --backend device");
    INFO(r.out << r.err);
    CHECK(r.code == 2);  // nothing ran, as before
    const std::string reason = "no CUDA driver (libcuda.so.1 not found)";
    CHECK(count_of(r.out + r.err, reason) == 1);
    CHECK_THAT(r.out, Catch::StartsWith("tmasim: no device run can happen here, so all 2 scenarios are skipped: " +
                                        reason));
    CHECK(r.out.find("[1/2]") == std::string::npos);  // no run started, none reported
    CHECK(tmasim_test::last_line(r.out) == "2 scenarios: 0 agree, 0 disagree, 2 skipped");
    // --json: the document still has every row, skipped with the reason; the message on stderr.
    const CliResult json = run_cli("run " + two + " --backend device --json");
    CHECK(json.code == 2);
    CHECK(count_of(json.out, "\"skipped\"") >= 2);
    CHECK(count_of(json.err, reason) == 1);
}

}  // namespace test_cli_newcomer
