// Colour on a terminal only (https://no-color.org): diagnostics' severity words are coloured
// when stdout is a terminal and NO_COLOR is unset or empty, never when piped, and --color
// always|never forces either way. The terminal is a pseudo-terminal the test opens.
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.h"

using tmasim_test::run_cli;

namespace {

const std::string kTeach07 = "scenarios/catalog/teach/07_store_no_fence.yaml";
const std::string kColouredHazard = "\033[1;35mhazard\033[0m: proxy.generic_to_async: ";

// tmasim with stdout (and stderr) on a pseudo-terminal; `env` is put before the command
// ("env NO_COLOR=1 ", "env -u NO_COLOR ").
tmasim_test::CliResult run_on_terminal(const std::string& env, const std::string& args) {
    const std::string cmd = std::string("cd '") + TMASIM_SOURCE_DIR + "' && exec " + env + "'" + TMASIM_BINARY +
                            "' " + args;
    int master = -1;
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    tmasim_test::CliResult r;
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(master, buffer, sizeof buffer);
        if (n > 0) r.out.append(buffer, static_cast<size_t>(n));
        else if (n < 0 && errno == EINTR) continue;
        else break;  // EIO: the child closed the terminal
    }
    close(master);
    int status = 0;
    waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace

TEST_CASE("colour: severity words coloured on a terminal, not when piped", "[cli][color]") {
    const auto tty = run_on_terminal("env -u NO_COLOR ", "run " + kTeach07 + " --backend model");
    CHECK(tty.code == 0);
    CHECK(tty.out.find(kTeach07 + ":18:5: " + kColouredHazard) != std::string::npos);
    const auto piped = run_cli("run " + kTeach07 + " --backend model");
    CHECK(piped.code == 0);
    CHECK(piped.out.find('\033') == std::string::npos);
    CHECK(piped.out.find(kTeach07 + ":18:5: hazard: proxy.generic_to_async: ") != std::string::npos);
}

TEST_CASE("colour: NO_COLOR set turns it off on a terminal, an empty NO_COLOR does not", "[cli][color]") {
    const auto off = run_on_terminal("env NO_COLOR=1 ", "run " + kTeach07 + " --backend model");
    CHECK(off.code == 0);
    CHECK(off.out.find('\033') == std::string::npos);
    CHECK(off.out.find(kTeach07 + ":18:5: hazard: proxy.generic_to_async: ") != std::string::npos);
    const auto empty = run_on_terminal("env NO_COLOR= ", "run " + kTeach07 + " --backend model");
    CHECK(empty.out.find(kColouredHazard) != std::string::npos);
}

TEST_CASE("colour: --color always and never force it, over NO_COLOR and the terminal", "[cli][color]") {
    const auto always = run_cli("run " + kTeach07 + " --backend model --color always");
    CHECK(always.code == 0);
    CHECK(always.out.find(kTeach07 + ":18:5: " + kColouredHazard) != std::string::npos);
    const auto always_no_color =
        run_on_terminal("env NO_COLOR=1 ", "run " + kTeach07 + " --backend model --color always");
    CHECK(always_no_color.out.find(kColouredHazard) != std::string::npos);
    const auto never = run_on_terminal("env -u NO_COLOR ", "run " + kTeach07 + " --backend model --color never");
    CHECK(never.code == 0);
    CHECK(never.out.find('\033') == std::string::npos);
    const auto bad = run_cli("run " + kTeach07 + " --backend model --color sometimes");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--color") != std::string::npos);
}
