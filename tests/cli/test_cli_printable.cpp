// What a user's file or argument carries never reaches the terminal as a control sequence: an
// error or `explain` quoting it shows ESC, BEL and the like as \xNN (cli/io/printable.h).
#include <catch2/catch.hpp>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

namespace test_cli_printable {

TEST_CASE("cli printable: explain of an id holding a terminal escape shows it as text", "[cli]") {
    const auto r = run_cli("explain \"$(printf 'x\\033[2Jy\\007')\"");
    CHECK(r.code == 2);
    CHECK(r.err.find('\033') == std::string::npos);
    CHECK(r.err.find('\007') == std::string::npos);
    CHECK(r.err.find("unknown rule id 'x\\x1b[2Jy\\x07'") != std::string::npos);
}

TEST_CASE("cli printable: a load error quoting a label with an escape shows it as text", "[cli]") {
    write_file(scratch("esc.yaml"), "scenario: esc\nlaunch: {grid: [1], block: 32}\nprogram:\n  - {op: sync}\n"
                                    "expect: {outcome: ok, op: \"\\e[31mred\"}\n");
    const auto r = run_cli("validate '" + scratch("esc.yaml") + "'");
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find('\033') == std::string::npos);
    CHECK(r.err.find("\\x1b[31mred") != std::string::npos);
}

}  // namespace test_cli_printable
