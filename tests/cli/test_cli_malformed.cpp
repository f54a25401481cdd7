// Bad input through the binary: each kind of malformed scenario gives one line with
// file:line:col, the key and what is allowed, and exit code 2, from `validate` and `run`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cli_malformed {

namespace {

const char* kGood = R"(scenario: good
launch: {grid: [1], block: 32}
global:
  A: {type: f32, shape: [64, 64], init: iota}
tensormaps:
  mapA: {tensor: A, box: [32, 32]}
shared:
  tile: {type: f32, shape: [32, 32]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 32], dst: tile, barrier: full, by: thread0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
)";

struct Case {
    const char* name;
    const char* from;
    const char* to;
    const char* where;     // "line:col" the error must name
    const char* message;   // what the one line must say after the location
};

const Case kCases[] = {
    {"unknown key", "block: 32}", "block: 32, warps: 1}", "2:32",
     "error: launch.warps: unknown key; allowed: grid, cluster, block"},
    {"wrong type", "count: 1, by", "count: [1], by", "12:47",
     "error: program[0].count: expected an integer or expression, got a list"},
    {"bad enum", "type: f32, shape: [32, 32]}", "type: f64, shape: [32, 32]}", "8:16",
     "error: shared.tile.type: unknown type \"f64\"; allowed: f32, f16, bf16, u8, i32"},
    {"out-of-range box", "box: [32, 32]", "box: [32, 512]", "6:3",
     "error: tensormaps.mapA.box: box[1] = 512 is out of range; allowed: 1..256 [cuTensorMapEncodeTiled]"},
    {"missing barrier", "{op: mbarrier.wait, barrier: full,", "{op: mbarrier.wait, barrier: empty,", "16:34",
     "error: mbarrier.wait.barrier: no barrier named 'empty'; declared: full"},
};

std::string with(const Case& c) {
    std::string s = kGood;
    const size_t at = s.find(c.from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, std::string(c.from).size(), c.to);
}

}  // namespace

TEST_CASE("the malformed-input base scenario is valid", "[cli][input]") {
    const std::string path = scratch("good_base.yaml");
    tmasim_test::write_file(path, kGood);
    CHECK(run_cli("validate '" + path + "'").code == 0);
}

TEST_CASE("each kind of malformed scenario fails closed with file:line:col and exit code 2", "[cli][input]") {
    for (const Case& c : kCases) {
        DYNAMIC_SECTION(c.name) {
            const std::string path = scratch(std::string("bad_") + std::to_string(&c - kCases) + ".yaml");
            tmasim_test::write_file(path, with(c));
            for (const std::string& cmd : {"validate '" + path + "'", "run '" + path + "' --backend model"}) {
                INFO(cmd);
                const auto r = run_cli(cmd);
                CHECK(r.code == 2);
                CHECK(r.out.empty());
                CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
                CHECK(r.err.find(path + ":" + c.where + ": ") == 0);
                CHECK(r.err.find(c.message) != std::string::npos);
            }
        }
    }
}

TEST_CASE("an output file (-o) never overwrites an input, however its path is spelt", "[cli][input]") {
    const std::string dir = scratch("o_inputs");
    std::filesystem::create_directories(dir);
    const std::string scenario = dir + "/s.yaml";
    tmasim_test::write_file(scenario, kGood);
    const std::string link = dir + "/link.yaml", hard = dir + "/hard.yaml";
    std::filesystem::create_symlink("s.yaml", link);
    std::filesystem::create_hard_link(scenario, hard);
    for (const std::string& out : {scenario, dir + "/./s.yaml", dir + "/../o_inputs/s.yaml", link, hard}) {
        for (const std::string& cmd : {"run '" + scenario + "' --backend model -o '" + out + "'",
                                       "codegen '" + scenario + "' -o '" + out + "'"}) {
            INFO(cmd);
            const auto r = run_cli(cmd);
            CHECK(r.code == 2);
            CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: --output " + out + " is the input " + scenario));
            CHECK(tmasim_test::read_file(scenario) == kGood);
        }
    }
    // A trace exported onto itself.
    const std::string trace = dir + "/t.jsonl";
    REQUIRE(run_cli("run '" + scenario + "' --backend model -q -o '" + trace + "'").code == 0);
    const std::string before = tmasim_test::read_file(trace);
    REQUIRE(!before.empty());
    for (const std::string& out : {trace, dir + "/./t.jsonl"}) {
        const auto r = run_cli("export '" + trace + "' -o '" + out + "'");
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("is the input"));
        CHECK(tmasim_test::read_file(trace) == before);
    }
    CHECK(run_cli("export '" + trace + "' -o '" + dir + "/t.json'").code == 0);
}

TEST_CASE("the model's work limit names the loop and can be raised", "[cli][input]") {
    const std::string path = scratch("work.yaml");
    tmasim_test::write_file(path, R"(scenario: work
launch: {grid: [1], block: 128}
shared:
  buf: {type: f32, shape: [1024]}
program:
  - {op: sync}
  - op: loop
    var: i
    count: 100
    body:
      - {op: compute, buffer: buf, fn: "x + 1"}
)");
    // Per iteration: 8 * 128 threads + 4096 bytes / 4 = 2048 units; sync and the loop op 1024 each.
    auto r = run_cli("run '" + path + "' --backend model -q --max-work 100000");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith(path + ":9:12: error: loop.count: the loop #1 loop at " + path + ":7:5: "
                                        "the run would do more than 100000 units of model work"));
    CHECK_THAT(r.err, Catch::Contains("tmasim run --max-work raises the limit"));
    CHECK(run_cli("run '" + path + "' --backend model -q --max-work 300000").code == 0);
    CHECK(run_cli("run '" + path + "' --backend model -q --max-work 0").code == 0);
    r = run_cli("run '" + path + "' --backend device --max-work 5");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--max-work applies to the model backend only"));
}

TEST_CASE("endless or huge inputs are refused before they are read", "[cli][input]") {
    auto r = run_cli("validate /dev/zero");
    CHECK(r.code == 2);
    CHECK(r.err == "/dev/zero:0:0: error: file: not a regular file; allowed: a scenario YAML file\n");
    r = run_cli("export /dev/zero -o " + scratch("zero.json"));
    CHECK(r.code == 2);
    CHECK(r.err == "tmasim: error: /dev/zero:0: not a regular file; allowed: a trace (JSONL) file\n");
    // Sparse files: 2 GiB on paper, nothing on disk.
    const std::string big_yaml = scratch("big.yaml"), big_trace = scratch("big.jsonl");
    for (const std::string& p : {big_yaml, big_trace}) {
        tmasim_test::write_file(p, "scenario: big\n");
        std::filesystem::resize_file(p, std::uintmax_t{2} << 30);
    }
    r = run_cli("validate '" + big_yaml + "'");
    CHECK(r.code == 2);
    CHECK(r.err == big_yaml + ":1:1: error: file: the scenario is 2147483648 bytes; allowed: at most 1048576\n");
    r = run_cli("diff '" + big_trace + "' '" + big_trace + "'");
    CHECK(r.code == 2);
    CHECK(r.err == "tmasim: error: " + big_trace + ":0: the trace is 2147483648 bytes; allowed: at most 1073741824\n");
}

}  // namespace test_cli_malformed
