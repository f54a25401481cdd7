// The model's limits refuse bombs, not kernels (issue 40): a full-chip stream runs under the
// defaults; a valid scenario that would run for minutes is stopped by the time limit with a
// message naming it; one no limit would let finish is refused before it runs; and a run past
// 5 s shows a progress line on a terminal, not when stderr is piped unless --progress asks.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;

namespace test_cli_run_limits {

namespace {

// 65536 computes over a 224 KB buffer: 3.8G units of work, under the default bound of 10G,
// and minutes of model time (a few ms a compute).
std::string long_compute(int ctas) {
    const std::string path = scratch("long_compute_" + std::to_string(ctas) + ".yaml");
    tmasim_test::write_file(path, "scenario: long_compute\nlaunch: {grid: [" + std::to_string(ctas) +
                                      "], block: 128}\nshared:\n  buf: {type: f32, shape: [57344]}\n"
                                      "program:\n  - op: loop\n    var: i\n    count: 65536\n    body:\n"
                                      "      - {op: compute, buffer: buf, fn: \"x + 1\"}\nexpect:\n  outcome: ok\n");
    return path;
}

const char* kProgress = "tmasim: model run ";

}  // namespace

TEST_CASE("the full-chip stream with warp consumers runs under the default limits", "[cli][limits]") {
    // 132 CTAs x 128 tiles, lane 0 of each warp reading each stage: ~105M units, past the
    // old default --max-work of 100M.
    const auto r = run_cli("run scenarios/perf/tma_stream_132x128_warp_consumers.yaml --backend model -q");
    CHECK(r.code == 0);
    CHECK(r.err.empty());
}

TEST_CASE("a bomb no time limit lets finish is refused before it runs", "[cli][limits]") {
    // 8 CTAs of the long compute: 30.6G units, past the default bound of 10G.
    const std::string path = long_compute(8);
    const auto r = run_cli("run '" + path + "' --backend model -q");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith(path + ":8:12: error: loop.count: the loop #0 loop at " + path + ":6:5: "
                                        "the run would do more than 10000000000 units of model work"));
}

TEST_CASE("the time limit stops a long run with the limit and its option, without a progress line when piped",
          "[cli][limits]") {
    const std::string path = long_compute(1);
    const auto r = run_cli("run '" + path + "' --backend model --time-limit 6");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: " + path + ": the model run took more than 6 s, its time "
                                        "limit, having logged "));
    CHECK_THAT(r.err, Catch::Contains("of about 524288: tmasim run --time-limit SECONDS raises the limit (0: none)"));
    CHECK_THAT(r.err, !Catch::Contains(kProgress));
    CHECK(r.out.empty());
}

TEST_CASE("a run past 5 s shows its progress on a terminal", "[cli][limits]") {
    if (std::system("command -v script > /dev/null 2>&1") != 0) {
        WARN("script (util-linux) is not installed: no terminal to test on");
        return;
    }
    const std::string path = long_compute(1), log = scratch("tty.log");
    // script gives the run a pseudo-terminal for stdout and stderr and copies what it prints.
    const std::string cmd = std::string("cd '") + TMASIM_SOURCE_DIR + "' && script -qec \"'" + TMASIM_BINARY +
                            "' run '" + path + "' --backend model --time-limit 7\" /dev/null > '" + log + "'";
    CHECK(std::system(cmd.c_str()) != -1);
    const std::string screen = tmasim_test::read_file(log);
    CHECK_THAT(screen, Catch::Contains(std::string("\r") + kProgress));
    CHECK_THAT(screen, Catch::Contains(" of about 524288 trace events ("));
    CHECK_THAT(screen, Catch::Contains("s left\033[K"));
    // The line is cleared before the message, which stands alone.
    CHECK_THAT(screen, Catch::Contains("\r\033[Ktmasim: error: " + path + ": the model run took more than 7 s"));
}

TEST_CASE("run --progress prints progress lines when stderr is no terminal", "[cli][limits]") {
    const std::string path = long_compute(1);
    const auto r = run_cli("run '" + path + "' --backend model -q --progress --time-limit 6");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith(kProgress));
    CHECK_THAT(r.err, Catch::Contains(" of about 524288 trace events ("));
    CHECK_THAT(r.err, !Catch::Contains("\033[K"));
    CHECK_THAT(r.err, Catch::Contains("\ntmasim: error: " + path + ": the model run took more than 6 s"));
}

TEST_CASE("the time limit and --progress are the model's options", "[cli][limits]") {
    const std::string path = long_compute(1);
    auto r = run_cli("run '" + path + "' --backend device --time-limit 5");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--time-limit applies to the model backend only"));
    r = run_cli("run '" + path + "' --backend device --progress");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--progress applies to the model backend only"));
    r = run_cli("run '" + path + "' --backend model --time-limit -1");
    CHECK(r.code == 2);
}

}  // namespace test_cli_run_limits
