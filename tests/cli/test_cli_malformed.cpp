// Bad input through the binary: each kind of malformed scenario gives one line with
// file:line:col, the key and what is allowed, and exit code 2, from `validate` and `run`.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;

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
