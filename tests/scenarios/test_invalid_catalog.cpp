// Every file in scenarios/catalog/invalid/ must fail to load with the error its first line
// promises ("# expect-error: <substring>"), as one line that starts with file:line:col.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {
std::vector<fs::path> invalid_files() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(fs::path(TMASIM_SOURCE_DIR) / "scenarios" / "catalog" / "invalid"))
        if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string expected_error(const fs::path& file) {
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    const std::string tag = "# expect-error: ";
    REQUIRE(first.rfind(tag, 0) == 0);
    return first.substr(tag.size());
}
}  // namespace

TEST_CASE("invalid catalog: every file fails with its promised one-line error", "[scenarios][catalog]") {
    const auto files = invalid_files();
    REQUIRE(files.size() >= 4);  // the four encode errors of semantics.md scenario 20
    for (const fs::path& file : files) {
        DYNAMIC_SECTION(file.filename().string()) {
            const std::string want = expected_error(file);
            std::string got;
            try {
                load_scenario_file(file.string());
            } catch (const ScenarioError& e) {
                got = e.what();
            }
            INFO("error: " << got);
            REQUIRE_FALSE(got.empty());
            CHECK(got.find(want) != std::string::npos);
            CHECK(got.find('\n') == std::string::npos);
            // "<path>:<line>:<col>: error: ..."
            const std::regex located("^.*" + std::regex_replace(file.filename().string(), std::regex("\\."), "\\.") +
                                     ":[0-9]+:[0-9]+: error: .*");
            CHECK(std::regex_match(got, located));
        }
    }
}
