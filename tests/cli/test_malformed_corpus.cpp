// The malformed-input corpus through the real binary: every file under
// tests/scenarios/malformed/ says on its first line where its one-line error must point,
// "# expect: LINE:COL KEY" (and "# via: run" when only `tmasim run` can see the problem);
// every trace under tests/traces/malformed/ has a line in EXPECT, "FILE LINE TEXT". Each
// must fail with exit code 2 and exactly that location and key, never a crash or a hang.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;

namespace fs = std::filesystem;

namespace {

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(std::string(TMASIM_SOURCE_DIR) + "/" + dir))
        if (e.path().extension() == ext) out.push_back(dir + "/" + e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string first_lines(const std::string& path, int n) {
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/" + path);
    std::string text, line;
    for (int i = 0; i < n && std::getline(in, line); ++i) text += line + "\n";
    return text;
}

std::string without_trailing_newline(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

}  // namespace

TEST_CASE("malformed scenarios: exit 2, one line, the promised file:line:col and key", "[cli][malformed]") {
    const auto files = files_in("tests/scenarios/malformed", ".yaml");
    CHECK(files.size() >= 100);
    for (const std::string& file : files) {
        const std::string head = first_lines(file, 2);
        INFO(file << "\n" << head);
        std::istringstream expect(head.substr(0, head.find('\n')));
        std::string hash, tag, where, key;
        expect >> hash >> tag >> where >> key;
        REQUIRE(tag == "expect:");
        REQUIRE(!key.empty());
        const bool via_run = head.find("\n# via: run") != std::string::npos;
        const auto r = run_cli(via_run ? "run " + file + " --backend model -q" : "validate " + file);
        INFO("stderr: " << r.err);
        CHECK(r.code == 2);
        const std::string err = without_trailing_newline(r.err);
        CHECK(err.find('\n') == std::string::npos);
        CHECK_THAT(err, Catch::StartsWith(file + ":" + where + ": error: " + key + ": "));
        CHECK(r.out.empty());
    }
}

TEST_CASE("malformed traces: diff, export and report exit 2 naming the file, the line and the key", "[cli][malformed]") {
    std::map<std::string, std::pair<std::string, std::string>> expected;  // file -> line, text
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/tests/traces/malformed/EXPECT");
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string file, at, text;
        fields >> file >> at;
        std::getline(fields >> std::ws, text);
        expected[file] = {at, text};
    }
    const auto files = files_in("tests/traces/malformed", ".jsonl");
    CHECK(files.size() >= 30);
    CHECK(expected.size() == files.size());
    const std::string good = "traces/recorded/NVIDIA-H200/guide/stencil_batching.jsonl";
    for (const std::string& file : files) {
        const std::string name = fs::path(file).filename().string();
        INFO(file);
        REQUIRE(expected.count(name) == 1);
        const auto& [at, text] = expected.at(name);
        const std::string prefix = "tmasim: error: " + file + ":" + at + ": ";
        for (const std::string& cmd : {"export " + file + " -o " + scratch("out.json"), "diff " + file + " " + good,
                                        "diff " + good + " " + file, "report " + file + " -o " + scratch("out.html")}) {
            const auto r = run_cli(cmd);
            INFO(cmd << "\nstderr: " << r.err);
            CHECK(r.code == 2);
            const std::string err = without_trailing_newline(r.err);
            CHECK(err.find('\n') == std::string::npos);
            CHECK_THAT(err, Catch::StartsWith(prefix));
            CHECK_THAT(err, Catch::Contains(text));
        }
    }
}
