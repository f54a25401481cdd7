// Bad sweeps fail closed before anything runs: one line with the file:line:col (the sweep
// file's, or the template's for a reference or a point that does not load, with the point's
// values), the key, what is allowed; exit code 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "cli/sweep_template.h"
#include "cli_runner.h"

using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

namespace {

namespace fs = std::filesystem;

// Line 14 holds ${rows * 128} at column 59.
const char* kTemplate = R"(scenario: t
launch: {grid: [${ctas}], block: 32}
global:
  A: {type: f32, shape: [64, 64], init: iota}
tensormaps:
  mapA: {tensor: A, box: [${rows}, 32]}
shared:
  tile: {type: f32, shape: [${rows}, 32]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: ${rows * 128}, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: full, by: thread0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
)";

struct Case {
    const char* name;
    std::string sweep;     // the sweep file
    std::string tmpl;      // the template, if not kTemplate
    const char* where;     // "s.yaml:3:3" or "t.yaml:6:27": the error's file (its name) and place
    const char* message;   // what the line must say after it
};

std::string values(int n) {
    std::string out = "[";
    for (int i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(i + 1);
    return out + "]";
}

}  // namespace

TEST_CASE("bad sweep files fail closed at their file:line:col", "[cli][sweep]") {
    const std::string ok = "sweep: bad\ntemplate: t.yaml\nparams:\n  ctas: [1, 2]\n  rows: [16, 32]\n";
    const std::string tmpl = kTemplate;
    const Case cases[] = {
        {"an unknown key", ok + "param: {x: [1]}\n", "", "s.yaml:6:1", "error: param: unknown key"},
        {"no params", "sweep: bad\ntemplate: t.yaml\n", "", "s.yaml:1:1", "error: params: required key is missing"},
        {"a bad sweep name", "sweep: a-b\ntemplate: t.yaml\nparams: {ctas: [1], rows: [16]}\n", "", "s.yaml:1:8",
         "is not a name"},
        {"a value that is no list", "sweep: bad\ntemplate: t.yaml\nparams:\n  ctas: 4\n  rows: [16]\n", "",
         "s.yaml:4:9", "error: params.ctas: expected a non-empty list of values"},
        {"a value that would change the YAML", "sweep: bad\ntemplate: t.yaml\nparams:\n  ctas: [\"1], block: [2\"]\n"
                                               "  rows: [16]\n",
         "", "s.yaml:4:10", "error: params.ctas[0]: expected a plain value"},
        {"a value twice", "sweep: bad\ntemplate: t.yaml\nparams:\n  ctas: [1, 1]\n  rows: [16]\n", "", "s.yaml:4:13",
         "listed twice"},
        {"a parameter the template never uses", ok + "  extra: [1]\n", "", "s.yaml:6:3",
         "error: params.extra: the template"},
        {"a grid past the limit", "sweep: bad\ntemplate: t.yaml\nparams:\n  ctas: " + values(22) + "\n  rows: " +
                                      values(22) + "\n  more: " + values(22) + "\n",
         tmpl + "# ${more}\n", "s.yaml:4:3", "error: params: a grid of 10648 points or more (22 x 22 x 22); allowed: at most 10000"},
        {"a missing template", "sweep: bad\ntemplate: nope.yaml\nparams: {ctas: [1]}\n", "", "s.yaml:2:11",
         "error: template: cannot open"},
        {"a reference to no parameter", ok, tmpl + "# ${nope + 1}\n", "t.yaml:17:3",
         "error: ${nope + 1}: 'nope' is not a parameter of the sweep; allowed: ctas, rows"},
        {"an unclosed reference", ok, tmpl + "# ${rows\n", "t.yaml:17:3", "without its closing }"},
        {"an expression over a word", "sweep: bad\ntemplate: t.yaml\nparams: {ctas: [1], rows: [sixteen]}\n", "",
         "t.yaml:14:59", "error: ${rows * 128}: parameter rows is \"sixteen\" here, not an integer"},
        {"a point the loader refuses", "sweep: bad\ntemplate: t.yaml\nparams: {ctas: [1, 2], rows: [16, 300]}\n", "",
         "t.yaml:6:3", "error: tensormaps.mapA.box: box[0] = 300 is out of range; allowed: 1..256"},
        {"a leading zero in an expression", "sweep: bad\ntemplate: t.yaml\nparams: {ctas: [1], rows: [016]}\n", "",
         "t.yaml:14:59", "parameter rows is \"016\" here, not an integer"},
        {"a where that keeps nothing", ok + "where: \"ctas > 5\"\n", "", "s.yaml:6:8", "no point of the grid passes it"},
    };
    for (const Case& c : cases) {
        DYNAMIC_SECTION(c.name) {
            const std::string dir = scratch(std::string("bad_sweep_") + c.name);
            fs::create_directories(dir);
            write_file(dir + "/s.yaml", c.sweep);
            write_file(dir + "/t.yaml", c.tmpl.empty() ? tmpl : c.tmpl);
            const auto r = run_cli("sweep '" + dir + "/s.yaml' --list");
            INFO(r.out << r.err);
            CHECK(r.code == 2);
            const std::string where = dir + "/" + c.where + ": ";
            CHECK(r.err.find(where) == 0);
            CHECK(r.err.find(c.message) != std::string::npos);
            // An error in one point names the point.
            const std::string name = c.name;
            if (name == "a point the loader refuses" || name == "an expression over a word" ||
                name == "a leading zero in an expression")
                CHECK(r.err.find("(sweep " + dir + "/s.yaml, point ctas=1 rows=") != std::string::npos);
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        }
    }
}

TEST_CASE("sweep refuses options of another mode", "[cli][sweep]") {
    const std::string f = std::string(TMASIM_SOURCE_DIR) + "/scenarios/sweeps/tma_stream.sweep.yaml";
    CHECK(run_cli("sweep " + f + " --list -j 2").code == 2);
    CHECK(run_cli("sweep " + f + " --list --slurm " + scratch("x")).code == 2);
    CHECK(run_cli("sweep " + f + " --per-task 2").code == 2);
    CHECK(run_cli("sweep").code == 2);
    const auto arch = run_cli("sweep " + f + " --arch h999 -q");
    CHECK(arch.code == 2);
    CHECK(arch.out.empty());  // refused before any point ran
    const auto listed = run_cli("sweep " + f + " --list");
    CHECK(listed.code == 0);
    CHECK(tmasim_test::last_line(listed.out) == "16 points of a grid of 16");
}

TEST_CASE("a point's column maps back to the template's", "[cli][sweep]") {
    // Errors in a point are reported where the user wrote the text: past a value that grew
    // or shrank, the column moves back; inside a value, it is the reference's own column.
    tmasim::cli::SweepTemplate t = tmasim::cli::SweepTemplate::parse("a: ${x}, b: ${long_name}, c: [oops\nd: ${x}\n", "t");
    const std::string out = t.expand({{"x", "12345"}, {"long_name", "1"}});
    REQUIRE(out == "a: 12345, b: 1, c: [oops\nd: 12345\n");
    CHECK(t.to_template_col(1, static_cast<int>(out.find("c:")) + 1) == 27);
    CHECK(t.to_template_col(1, 7) == 4);   // inside "12345": the ${x} at column 4
    CHECK(t.to_template_col(1, 14) == 13); // the "1" of long_name: its reference
    CHECK(t.to_template_col(1, 2) == 2);   // before any reference
    CHECK(t.to_template_col(2, 1) == 1);
    CHECK(t.names() == std::set<std::string>{"x", "long_name"});
}
