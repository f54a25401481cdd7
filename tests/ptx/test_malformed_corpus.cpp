#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "ptx_invariants.h"
#include "ptx_test_support.h"

using namespace tmasim::ptx;

// Its own namespace: the unity build compiles this file beside the other PTX tests.
namespace test_malformed_corpus {

namespace {

std::vector<std::string> files_in(const std::string& dir, const std::string& suffix) {
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            std::string name = e->d_name;
            if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                files.push_back(dir + "/" + name);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Parses `text`: it must parse, or throw ParseError; anything else fails the test.
void parses_or_refuses(const std::string& text) {
    try {
        Module m = parse_module(text, "prefix.ptx");
        std::string why = test::check_invariants(m);
        if (!why.empty()) FAIL("a module that does not hold together: " << why);
    } catch (const ParseError& e) {
        if (e.pos().line < 0 || e.message().empty()) FAIL("a ParseError without a place or a message: " << e.what());
    }
}

}  // namespace

TEST_CASE("each malformed file is refused at the line:col its first line gives") {
    const std::vector<std::string> files = files_in(std::string(TMASIM_SOURCE_DIR) + "/tests/ptx/malformed", ".ptx");
    REQUIRE(files.size() >= 70);
    const std::regex expect_re("^// (.+); expect ([0-9]+):([0-9]+): (.+)$");
    for (const std::string& path : files) {
        INFO(path);
        const std::string text = read(path);
        std::smatch m;
        const std::string first = text.substr(0, text.find('\n'));
        REQUIRE(std::regex_match(first, m, expect_re));
        const int line = std::stoi(m[2]), col = std::stoi(m[3]);
        const std::string fragment = m[4];
        try {
            parse_module(text, path);
            FAIL("parsed");
        } catch (const ParseError& e) {
            INFO(e.what());
            CHECK(e.pos().line == line);
            CHECK(e.pos().col == col);
            CHECK(e.message().find(fragment) != std::string::npos);
            CHECK(std::string(e.what()).rfind(path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: ", 0) == 0);
        }
    }
}

TEST_CASE("every prefix of every malformed file parses or is refused, nothing else") {
    for (const std::string& path : files_in(std::string(TMASIM_SOURCE_DIR) + "/tests/ptx/malformed", ".ptx")) {
        INFO(path);
        const std::string text = read(path);
        for (size_t n = 0; n <= text.size(); ++n) parses_or_refuses(text.substr(0, n));
    }
}

TEST_CASE("a fixture cut anywhere parses or is refused, nothing else") {
    for (const std::string& path : files_in(std::string(TMASIM_SOURCE_DIR) + "/tests/ptx/fixtures", ".ptx")) {
        INFO(path);
        const std::string text = read(path);
        // Every 61st cut (a prime, so the cuts fall all over the lines), and the whole.
        for (size_t n = 0; n < text.size(); n += 61) parses_or_refuses(text.substr(0, n));
        parses_or_refuses(text);
    }
}

}  // namespace test_malformed_corpus
