// `init: {file: PATH}` (what `tmasim capture` writes: a tensor's bytes as a real program held
// them): the file's bytes are the tensor's, and a file of any other size, or none, is refused at
// the key with both sizes; never cut, padded or read as something else.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

namespace test_init_file {

namespace {

const std::string kDir = "/tmp/tmasim_test_init_file";

std::string scenario(const std::string& init) {
    return "scenario: from_file\nlaunch: {grid: [1], block: 32}\nglobal:\n  A: {type: i32, shape: [2, 4], init: " + init +
           "}\nprogram:\n  - {op: sync}\n";
}

void write_bytes(const std::string& name, size_t n) {
    std::filesystem::create_directories(kDir);
    std::ofstream out(kDir + "/" + name, std::ios::binary);
    for (size_t i = 0; i < n; ++i) out.put(static_cast<char>(i * 37 + 1));
}

std::string error_of(const std::string& text) {
    try {
        load_scenario_text(text, kDir + "/s.yaml");
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a tensor initialised from a file holds the file's bytes", "[scenarios]") {
    write_bytes("a.bin", 32);
    const Scenario s = load_scenario_text(scenario("{file: a.bin}"), kDir + "/s.yaml");
    const std::vector<uint8_t> bytes = initial_bytes(s.globals.at(0));
    REQUIRE(bytes.size() == 32);
    for (size_t i = 0; i < bytes.size(); ++i) CHECK(bytes[i] == static_cast<uint8_t>(i * 37 + 1));
    // A block from the middle, as the model reads a large input where it is used.
    std::vector<uint8_t> two(8);
    initial_elements(s.globals.at(0), 3, 2, two.data());
    CHECK(two[0] == bytes[12]);
    CHECK(two[7] == bytes[19]);
}

TEST_CASE("a file of another size than its tensor is refused at its key", "[scenarios]") {
    write_bytes("short.bin", 31);
    const std::string e = error_of(scenario("{file: short.bin}"));
    CHECK_THAT(e, Catch::Contains("s.yaml:4:"));
    CHECK_THAT(e, Catch::Contains("global.A.init.file"));
    CHECK_THAT(e, Catch::Contains("holds 31 bytes, but A is 32 bytes; allowed: a file of exactly the tensor's size"));
    CHECK_THAT(error_of(scenario("{file: missing.bin}")), Catch::Contains("no file " + kDir + "/missing.bin"));
}

}  // namespace test_init_file
