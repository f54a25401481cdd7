// tmasim layout FILE NAME: the ownership maps of the layouts tutorial, printed from a
// scenario's declarations; bad names and shapes exit 2.
#include <catch2/catch.hpp>

#include "cli_runner.h"

using namespace tmasim_test;

namespace {
const std::string kMaps = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/layouts/tutorial_maps.yaml";
}

TEST_CASE("cli: tmasim layout prints the tutorial's maps", "[cli][layouts]") {
    const CliResult warp = run_cli("layout " + kMaps + " warp_tile --shape 32,8");
    REQUIRE(warp.code == 0);
    CHECK(warp.out.rfind("[[ T0:0,  T0:1,  T0:2,  T0:3,  T1:0,  T1:1,  T1:2,  T1:3],\n"
                         " [ T0:4,  T0:5,  T0:6,  T0:7,  T1:4,  T1:5,  T1:6,  T1:7],\n", 0) == 0);
    CHECK(warp.out.find(" [T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]\n") != std::string::npos);
    const CliResult tile = run_cli("layout " + kMaps + " value");
    REQUIRE(tile.code == 0);
    // Every owner is right-aligned to the widest, T127:7 (the tutorial pads its first cell
    // by one space less); the 8 columns of 4 owners come in bands of 2 (100 columns a line).
    CHECK(tile.out.rfind("columns 0-1 of 8:\n[[  T0:0| T32:0| T64:0| T96:0,", 0) == 0);
    CHECK(tile.out.find("T31:7| T63:7| T95:7|T127:7]]") != std::string::npos);
    const CliResult rows = run_cli("layout " + kMaps + " warp_tile_rows --shape 32");
    REQUIRE(rows.code == 0);
    CHECK(rows.out.rfind("[ T0:0| T1:0,\n  T0:1| T1:1,\n  T2:0| T3:0,\n", 0) == 0);
    const CliResult linear = run_cli("layout " + kMaps + " warp_tile_rows --shape 32 --linear");
    CHECK(linear.out == "reg_bases=[[1]], lane_bases=[[0], [2], [4], [8], [16]], warp_bases=[], shape=[32]\n");
}

TEST_CASE("cli: tmasim layout refuses unknown names and shapes", "[cli][layouts]") {
    CHECK(run_cli("layout " + kMaps + " nothing").code == 2);
    const CliResult no_shape = run_cli("layout " + kMaps + " tutorial");
    CHECK(no_shape.code == 2);
    CHECK(no_shape.err.find("needs --shape") != std::string::npos);
    CHECK(run_cli("layout " + kMaps + " tutorial --shape 3,8").code == 2);
    CHECK(run_cli("layout " + kMaps + " value --shape 16,8").code == 2);
}
