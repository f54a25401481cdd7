// The README is a newcomer's first ten minutes (issue 39): its tour must work as written, its
// first screen must say what the tool is and how to start, and it must stay short. The tour's
// commands are the ```sh blocks under "## A 5-minute tour"; each line ends with a comment
// saying how it exits and what it prints:
//     tmasim run X --backend model   # exit 0, prints "ok: PASS"
// so the README and this test cannot disagree about what a reader will see.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.h"

using namespace tmasim_test;
namespace fs = std::filesystem;

namespace {

std::string readme() { return read_file(std::string(TMASIM_SOURCE_DIR) + "/README.md"); }

struct TourStep {
    std::string line;     // as the README writes it
    std::string command;  // without its comment
    int exit_code = -1;
    std::vector<std::string> phrases;
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

// The tour section: from its heading to the next "## " heading.
std::string tour_section(const std::string& text) {
    const std::string heading = "\n## A 5-minute tour\n";
    const size_t begin = text.find(heading);
    if (begin == std::string::npos) return "";
    const size_t end = text.find("\n## ", begin + heading.size());
    return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::vector<TourStep> tour_steps(const std::string& text) {
    std::vector<TourStep> steps;
    bool in_block = false;
    const std::regex comment(R"(^exit ([0-9]+)(, prints (.*))?$)");
    const std::regex phrase("\"([^\"]+)\"");
    for (const std::string& l : lines_of(tour_section(text))) {
        if (!in_block) {
            in_block = l == "```sh";
            continue;
        }
        if (l == "```") {
            in_block = false;
            continue;
        }
        if (l.empty()) continue;
        TourStep s;
        s.line = l;
        // Two spaces before the '#': a '#' inside a command (none today) stays the command's.
        const size_t hash = l.find("  # ");
        s.command = l.substr(0, hash);
        while (!s.command.empty() && s.command.back() == ' ') s.command.pop_back();
        std::smatch m;
        const std::string note = hash == std::string::npos ? "" : l.substr(hash + 4);
        if (std::regex_match(note, m, comment)) {
            s.exit_code = std::stoi(m[1].str());
            const std::string printed = m[3].str();
            for (std::sregex_iterator p(printed.begin(), printed.end(), phrase), e; p != e; ++p)
                s.phrases.push_back((*p)[1].str());
        }
        steps.push_back(s);
    }
    return steps;
}

// The tour writes its files under /tmp/tour; here they go to this process's scratch folder, so
// parallel runs and a reader's own /tmp/tour are left alone.
std::string in_scratch(std::string command) {
    const std::string from = "/tmp/tour", to = scratch("tour");
    for (size_t at = command.find(from); at != std::string::npos; at = command.find(from, at + to.size()))
        command.replace(at, from.size(), to);
    return command;
}

// A shell command of the tour that is not tmasim (mkdir, sed), run from the repository root as
// the reader runs it after cloning.
CliResult run_shell(const std::string& command) {
    const std::string out = scratch("shell_stdout.txt"), err = scratch("shell_stderr.txt");
    const std::string cmd =
        std::string("cd '") + TMASIM_SOURCE_DIR + "' && { " + command + " ; } >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

}  // namespace

TEST_CASE("the README tour reads its commands and what each prints", "[cli][docs]") {
    const std::vector<TourStep> steps = tour_steps(readme());
    int tmasim_commands = 0;
    for (const TourStep& s : steps) {
        INFO(s.line);
        CHECK(s.exit_code >= 0);  // every command says how it exits
        if (s.command.rfind("tmasim ", 0) == 0) {
            ++tmasim_commands;
            CHECK(!s.phrases.empty());  // and every tmasim command what it prints
        }
    }
    // run, the broken copy, explain, the twin, report, diff
    CHECK(tmasim_commands >= 6);
}

TEST_CASE("the README tour runs as written: each command exits and prints as the README says", "[cli][docs]") {
    const std::vector<TourStep> steps = tour_steps(readme());
    REQUIRE(!steps.empty());
    for (const TourStep& s : steps) {
        const std::string command = in_scratch(s.command);
        const CliResult r = command.rfind("tmasim ", 0) == 0 ? run_cli(command.substr(7)) : run_shell(command);
        INFO(s.line << "\nexit " << r.code << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
        CHECK(r.code == s.exit_code);
        for (const std::string& p : s.phrases) CHECK((r.out + r.err).find(p) != std::string::npos);
        // Later steps read what earlier ones wrote: stop at the first that went wrong.
        if (r.code != s.exit_code) break;
    }
    // The report the tour opens is a page a browser shows.
    CHECK(read_file(scratch("tour/02.html")).find("<html") != std::string::npos);
}

TEST_CASE("the README first screen says what tmasim is and shows both set-up commands and the tour's first step",
          "[cli][docs]") {
    const std::vector<std::string> lines = lines_of(readme());
    REQUIRE(lines.size() > 40);
    std::string screen;
    for (size_t i = 0; i < 40; ++i) screen += lines[i] + "\n";
    CHECK(screen.find("tmasim is for GPU kernel engineers") != std::string::npos);
    CHECK(screen.find("\n.ci/install-deps && cmake -S . -B build -G Ninja") != std::string::npos);
    CHECK(screen.find("\n.ci/install-deps --tests && cmake -S . -B build -G Ninja") != std::string::npos);
    const std::vector<TourStep> steps = tour_steps(readme());
    const auto first_run = std::find_if(steps.begin(), steps.end(),
                                        [](const TourStep& s) { return s.command.rfind("tmasim ", 0) == 0; });
    REQUIRE(first_run != steps.end());
    CHECK(screen.find(first_run->line) != std::string::npos);
}

TEST_CASE("the README test command is the one .ci/run runs", "[cli][docs]") {
    const std::string ci = read_file(std::string(TMASIM_SOURCE_DIR) + "/.ci/run");
    std::string command;
    for (const std::string& l : lines_of(readme()))
        if (l.rfind(".ci/install-deps --tests", 0) == 0) command = l;
    REQUIRE(!command.empty());
    CHECK(ci.find(command) != std::string::npos);
}

TEST_CASE("the README stays under 1500 words", "[cli][docs]") {
    // Counted as `wc -w` counts: runs of non-space characters.
    const std::string text = readme();
    size_t words = 0;
    bool in_word = false;
    for (char c : text) {
        const bool space = std::isspace(static_cast<unsigned char>(c));
        if (!space && !in_word) ++words;
        in_word = !space;
    }
    INFO(words << " words; measurements and history go to docs/ (docs/performance.md, docs/model-accuracy.md)");
    CHECK(words < 1500);
}
