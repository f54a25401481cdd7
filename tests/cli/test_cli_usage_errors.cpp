// A usage error (a missing argument, an unknown subcommand, a value CLI11 refuses) is said as
// every other error is: one line "tmasim: error: ...", exit 2, and a pointer to --help; --help
// itself still exits 0 with the help on stdout.
#include <catch2/catch.hpp>

#include "cli_runner.h"

using tmasim_test::run_cli;

namespace test_cli_usage_errors {

TEST_CASE("cli usage errors: each is one tmasim: error: line and exit 2", "[cli]") {
    struct Case {
        const char* args;
        const char* says;
    };
    for (const Case& c : {Case{"run", "paths is required"}, Case{"frobnicate", "A subcommand is required"},
                          Case{"run scenarios/catalog/teach/01_tma_load_ok.yaml --backend model --watchdog abc", "--watchdog"}}) {
        const auto r = run_cli(c.args);
        INFO(c.args << ": " << r.err);
        CHECK(r.code == 2);
        CHECK(r.err.rfind("tmasim: error: ", 0) == 0);
        CHECK(r.err.find(c.says) != std::string::npos);
        CHECK(r.err.find("Run with --help for more information.") != std::string::npos);
        CHECK(r.out.empty());
    }
    const auto help = run_cli("run --help");
    CHECK(help.code == 0);
    CHECK(help.out.find("Usage:") != std::string::npos);
}

}  // namespace test_cli_usage_errors
