// tmasim sweep: the grid's expansion (order, ids, substituted text, `where`), one table and
// CSV whatever -j, and bad sweep files failing closed at their file:line:col.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "cli/sweep_expand.h"
#include "cli_runner.h"
#include "scenarios/source_loc.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

namespace {

namespace fs = std::filesystem;

const std::string kCatalogSweep = std::string(TMASIM_SOURCE_DIR) + "/scenarios/sweeps/tma_stream.sweep.yaml";
const std::string kStreamTemplate = std::string(TMASIM_SOURCE_DIR) + "/scenarios/sweeps/tma_stream.template.yaml";

// A sweep file in its own scratch folder; `body` follows the `sweep:` line.
std::string sweep_file(const std::string& name, const std::string& body) {
    const std::string dir = scratch("sweep_" + name);
    fs::create_directories(dir);
    write_file(dir + "/s.yaml", "sweep: " + name + "\n" + body);
    return dir + "/s.yaml";
}

// A small sweep of the catalog's template: 2 x 2 points.
std::string small_stream_sweep(const std::string& name) {
    return sweep_file(name, "template: " + kStreamTemplate +
                                "\nparams:\n  stages: [2, 4]\n  box: [16]\n  swizzle: [none]\n"
                                "  ctas: [1, 16]\n  tiles: [8]\n  mib: [1]\n");
}

std::string without_wall(const std::string& csv) {
    static const std::regex last_field(R"(,[^,\n]*\n)");
    return std::regex_replace(csv, last_field, "\n");
}

}  // namespace

TEST_CASE("the catalog sweep expands to 16 points, the last parameter fastest", "[cli][sweep]") {
    const tmasim::cli::Sweep s = tmasim::cli::expand_sweep(kCatalogSweep);
    REQUIRE(s.points.size() == 16);
    CHECK(s.grid_size == 16);
    CHECK(s.points[0].id == "0000");
    CHECK(s.describe(s.points[0]) == "mib=16 stages=2 ctas=1 box=64 swizzle=128B tiles=8");
    CHECK(s.describe(s.points[1]) == "mib=16 stages=2 ctas=16 box=64 swizzle=128B tiles=8");
    CHECK(s.describe(s.points[4]) == "mib=16 stages=4 ctas=1 box=64 swizzle=128B tiles=8");
    CHECK(s.points[15].id == "0015");
    CHECK(s.describe(s.points[15]) == "mib=128 stages=4 ctas=132 box=64 swizzle=128B tiles=8");
    // ${name} as written, ${expression} evaluated: 128 MiB of 128-byte rows; 64 rows x 128 bytes.
    const std::string& text = s.points[10].text;
    CHECK(text.find("launch: {grid: [66], block: 128}") != std::string::npos);
    CHECK(text.find("shape: [1048576, 32]") != std::string::npos);
    CHECK(text.find("bytes: 8192") != std::string::npos);
    CHECK(text.find("${") == std::string::npos);
    CHECK(s.fingerprint() == tmasim::cli::expand_sweep(kCatalogSweep).fingerprint());
}

TEST_CASE("where keeps the points it holds for, numbered from 0", "[cli][sweep]") {
    const std::string f = sweep_file("where", "template: " + kStreamTemplate +
                                                  "\nparams: {stages: [2, 3, 4], box: [16, 64], swizzle: [none], "
                                                  "ctas: [1], tiles: [8], mib: [1]}\nwhere: \"stages * box <= 64\"\n");
    const tmasim::cli::Sweep s = tmasim::cli::expand_sweep(f);
    CHECK(s.grid_size == 6);
    REQUIRE(s.points.size() == 3);
    CHECK(s.describe(s.points[2]) == "stages=4 box=16 swizzle=none ctas=1 tiles=8 mib=1");
    CHECK(s.points[2].id == "0002");
}

TEST_CASE("sweep -j 1 and -j 2 print one table and write the same CSV", "[cli][sweep]") {
    const std::string f = small_stream_sweep("jobs");
    const auto one = run_cli("sweep " + f + " -j 1 --csv " + scratch("j1.csv"));
    const auto two = run_cli("sweep " + f + " -j 2 -o " + scratch("j2out"));
    INFO(one.out << one.err << two.out << two.err);
    REQUIRE(one.code == 0);
    REQUIRE(two.code == 0);
    CHECK(one.out.find("point  stages  box  swizzle  ctas  tiles  mib  expected  got  result  cycles  kernel_ns") !=
          std::string::npos);
    CHECK(tmasim_test::last_line(one.out) == "csv: " + scratch("j1.csv"));
    const std::string csv = read_file(scratch("j1.csv"));
    CHECK(csv.rfind("point,stages,box,swizzle,ctas,tiles,mib,expected,got,result,kernel_cycles,kernel_ns,why,wall_s\n"
                    "0000,2,16,none,1,8,1,ok,ok,PASS,",
                    0) == 0);
    CHECK(without_wall(csv) == without_wall(read_file(scratch("j2out/sweep.csv"))));
    CHECK(fs::exists(scratch("j2out/points/0003.yaml")));
    CHECK(fs::exists(scratch("j2out/traces/0003.jsonl")));
    // Deeper pipelines hide more of the load latency: the model must say so.
    const std::regex row(R"(\n0000,2,16,none,1,8,1,ok,ok,PASS,(\d+),.*\n0001,.*\n0002,4,16,none,1,8,1,ok,ok,PASS,(\d+),)");
    std::smatch m;
    REQUIRE(std::regex_search(csv, m, row));
    CHECK(std::stoll(m[2]) < std::stoll(m[1]));
}

TEST_CASE("sweep --slurm writes a job array whose tasks' rows --collect turns into the local table", "[cli][sweep]") {
    const std::string f = small_stream_sweep("slurm");
    const std::string dir = scratch("slurm_dir");
    fs::remove_all(dir);
    REQUIRE(run_cli("sweep " + f + " --slurm " + dir + " --per-task 3").code == 0);
    const std::string script = read_file(dir + "/sweep.sbatch");
    CHECK(script.find("#SBATCH --array=0-1\n") != std::string::npos);
    CHECK(script.find("sweep --task '" + dir + "' --index \"$SLURM_ARRAY_TASK_ID\"") != std::string::npos);
    // A second --slurm into the same folder would mix two sweeps' rows.
    CHECK(run_cli("sweep " + f + " --slurm " + dir).code == 2);
    // Before any task ran: every row an error naming its task.
    const auto none = run_cli("sweep " + f + " --collect " + dir);
    CHECK(none.code == 2);
    CHECK(none.out.find("array task 1 wrote no row for this point") != std::string::npos);
    // What Slurm runs, by hand: task 0 has points 0-2, task 1 point 3.
    REQUIRE(run_cli("sweep --task " + dir + " --index 0").code == 0);
    REQUIRE(run_cli("sweep --task " + dir + " --index 1").code == 0);
    CHECK(run_cli("sweep --task " + dir + " --index 2").code == 2);
    CHECK(fs::exists(dir + "/traces/0003.jsonl"));
    const auto collected = run_cli("sweep " + f + " --collect " + dir);
    INFO(collected.out << collected.err);
    CHECK(collected.code == 0);
    REQUIRE(run_cli("sweep " + f + " -q --csv " + scratch("here.csv")).code == 0);
    CHECK(without_wall(read_file(dir + "/sweep.csv")) == without_wall(read_file(scratch("here.csv"))));
    // The sweep changed since the folder was written: refused.
    write_file(f, read_file(f) + "where: \"stages < 4\"\n");
    const auto changed = run_cli("sweep " + f + " --collect " + dir);
    CHECK(changed.code == 2);
    CHECK(changed.err.find("not the expansion of") != std::string::npos);
}
