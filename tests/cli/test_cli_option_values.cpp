// Option values range-checked after parsing (issue 40; cli/option_values.h): CLI11 took
// `--seed -1` and `--seed 2^64` both as 2^64-1 and let `--tolerance nan` through, and
// `layout --shape 16384,16384` grew to 3.7 GiB. Each is exit 2 naming the option, the value
// and the allowed range, with nothing written.
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli_runner.h"

using tmasim_test::CliResult;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cli_option_values {

namespace {

const char* kScenario = R"(scenario: seeds
launch: {grid: [1], block: 32}
global:
  A: {type: f32, shape: [64], init: {random: {seed: 3, min: 0, max: 1}}}
shared:
  buf: {type: f32, shape: [64]}
program:
  - {op: sync}
)";

void refused(const std::string& cmd, const std::string& message) {
    INFO(cmd);
    const CliResult r = run_cli(cmd);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "tmasim: error: " + message + "\n");
}

}  // namespace

TEST_CASE("a seed beyond 2^64-1 or negative and a tolerance of nan are refused", "[cli][options]") {
    const std::string d = scratch("options");
    std::filesystem::create_directories(d);
    write_file(d + "/s.yaml", kScenario);
    REQUIRE(run_cli("run '" + d + "/s.yaml' -b model -q -o '" + d + "/t.jsonl'").code == 0);
    const std::string run = "run '" + d + "/s.yaml' -b model -q --seed ";
    for (const char* seed : {"-1", "18446744073709551616", "1e3", "0x10", "+1"})
        refused(run + seed, std::string("--seed ") + seed + ": allowed: an integer 0..18446744073709551615");
    CHECK(run_cli(run + "18446744073709551615").code == 0);
    const std::string diff = "diff '" + d + "/t.jsonl' '" + d + "/t.jsonl' --tolerance ";
    for (const char* tol : {"nan", "inf", "-1"})
        refused(diff + tol, std::string("--tolerance ") + tol + ": allowed: a finite number >= 0");
    CHECK(run_cli(diff + "0.5").code == 0);
}

TEST_CASE("layout --shape refuses more elements than a tile holds", "[cli][options]") {
    const std::string maps = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/layouts/tutorial_maps.yaml";
    refused("layout '" + maps + "' tutorial --shape 16384,16384",
            "layout: --shape 16384,16384: 268435456 elements; allowed: 1 or 2 sizes 1..65536, comma-separated, at "
            "most 65536 elements in all");
    refused("layout '" + maps + "' tutorial --shape 99999999999999999999",
            "layout: --shape 99999999999999999999: allowed: 1 or 2 sizes 1..65536, comma-separated, at most 65536 "
            "elements in all");
    CHECK(run_cli("layout '" + maps + "' tutorial --shape 256,256").code == 0);
}

}  // namespace test_cli_option_values
