// tmasim sweep takes the model's run options (--arch, and --l2 and --trace defined with
// tmasim run's) and they reach every point; the catalog sweep's rows differ where the model's
// time really moves, and the lines under the table name the parameter that moved it most.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>

#include "cli/sweep_effects.h"
#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

namespace test_cli_sweep_options {

namespace {

namespace fs = std::filesystem;

const std::string kCatalogSweep = std::string(TMASIM_SOURCE_DIR) + "/scenarios/sweeps/tma_stream.sweep.yaml";
const std::string kStreamTemplate = std::string(TMASIM_SOURCE_DIR) + "/scenarios/sweeps/tma_stream.template.yaml";

// One point of the catalog's template: a 16 MiB tensor (in L2 where the inputs are) streamed
// by 132 CTAs, enough to feel HBM's bandwidth when it is not.
std::string one_point_sweep(const std::string& name) {
    const std::string dir = scratch("sweep_opt_" + name);
    fs::create_directories(dir);
    write_file(dir + "/s.yaml", "sweep: " + name + "\ntemplate: " + kStreamTemplate +
                                    "\nparams: {mib: [16], stages: [2], ctas: [132], box: [64], swizzle: [none], "
                                    "tiles: [8]}\n");
    return dir + "/s.yaml";
}

// The kernel_cycles column of a sweep CSV, by point id.
std::map<std::string, long long> cycles_of(const std::string& csv) {
    std::map<std::string, long long> out;
    static const std::regex row(R"((\d{4}),.*,ok,ok,PASS,(\d+),\d+,)");
    for (std::sregex_iterator it(csv.begin(), csv.end(), row), end; it != end; ++it)
        out[(*it)[1]] = std::stoll((*it)[2]);
    return out;
}

long long cycles_with(const std::string& sweep, const std::string& options, const std::string& csv_name) {
    const auto r = run_cli("sweep " + sweep + " -q -j 1 --csv " + scratch(csv_name) + " " + options);
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const auto c = cycles_of(read_file(scratch(csv_name)));
    REQUIRE(c.size() == 1);
    return c.begin()->second;
}

}  // namespace

TEST_CASE("sweep --l2 and --trace reach the points", "[cli][sweep]") {
    const std::string f = one_point_sweep("l2");
    const long long inputs = cycles_with(f, "", "opt_inputs.csv");
    const long long cold = cycles_with(f, "--l2 cold", "opt_cold.csv");
    const long long warm = cycles_with(f, "--l2 warm", "opt_warm.csv");
    // Cold: every first read from HBM; warm: even the first touches hit L2.
    CHECK(cold > inputs);
    CHECK(warm < inputs);
    CHECK(cycles_with(f, "--l2 inputs", "opt_inputs2.csv") == inputs);  // the default, spelt out
    // The traced kernel pays its probes: longer than the untraced one.
    CHECK(cycles_with(f, "--trace all", "opt_traced.csv") > inputs);
    // --arch, as before: another GPU's clock.
    CHECK(cycles_with(f, "--arch h200", "opt_h200.csv") != inputs);
}

TEST_CASE("sweep run options fail closed and travel to a Slurm array's tasks", "[cli][sweep]") {
    const std::string f = one_point_sweep("l2_bad");
    const auto bad = run_cli("sweep " + f + " --l2 lukewarm");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--l2") != std::string::npos);
    CHECK(run_cli("sweep " + f + " --trace sometimes").code == 2);
    const std::string dir = scratch("sweep_opt_slurm");
    fs::remove_all(dir);
    REQUIRE(run_cli("sweep " + f + " --slurm " + dir + " --l2 cold --trace waits").code == 0);
    const std::string meta = read_file(dir + "/sweep.json");
    CHECK(meta.find("\"l2\": \"cold\"") != std::string::npos);
    CHECK(meta.find("\"trace\": \"waits\"") != std::string::npos);
    REQUIRE(run_cli("sweep --task " + dir + " --index 0").code == 0);
    const auto collected = run_cli("sweep " + f + " --collect " + dir + " --csv " + scratch("opt_collected.csv"));
    REQUIRE(collected.code == 0);
    const long long here = cycles_with(f, "--l2 cold --trace waits", "opt_cold_waits.csv");
    CHECK(cycles_of(read_file(scratch("opt_collected.csv"))).at("0000") == here);
    // --collect takes the options from the folder.
    CHECK(run_cli("sweep " + f + " --collect " + dir + " --l2 warm").code == 2);
}

TEST_CASE("the catalog sweep's time moves with the tensor's size and, beyond L2, the CTA count", "[cli][sweep]") {
    const auto r = run_cli("sweep " + kCatalogSweep + " -q -j 2 --csv " + scratch("catalog_sweep.csv"));
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const auto c = cycles_of(read_file(scratch("catalog_sweep.csv")));
    REQUIRE(c.size() == 16);
    // Points: mib (16, 128) x stages (2, 4) x ctas (1, 16, 66, 132), the last fastest.
    // In L2 the CTA count moves nothing; from HBM 132 CTAs share its bandwidth.
    CHECK(c.at("0000") == c.at("0003"));
    CHECK(c.at("0011") > c.at("0008") * 3 / 2);
    CHECK(c.at("0015") > c.at("0012") * 2);
    // Deeper pipelines hide more of the latency.
    CHECK(c.at("0004") < c.at("0000"));
    // The lines under the table name the parameter that moved the time and by how much.
    CHECK(r.out.find("what moved the time (kernel cycles between points that differ in one parameter):\n") !=
          std::string::npos);
    CHECK(std::regex_search(r.out, std::regex(R"(\n  ctas    x\d\.\d\d  \d+ cycles at ctas=1 to \d+ at ctas=132 \(mib=128 stages=\d\)\n)")));
    // With nothing in L2, the tensor's size no longer matters.
    const auto cold = run_cli("sweep " + kCatalogSweep + " -q -j 2 --l2 cold");
    REQUIRE(cold.code == 0);
    CHECK(cold.out.find("\n  mib     x1.00  no change\n") != std::string::npos);
}

TEST_CASE("sweep time effects: the largest ratio first, no change said so", "[cli][sweep]") {
    using namespace tmasim::cli;
    Sweep s;
    s.params = {{"a", {"1", "2"}, {}}, {"b", {"x", "y"}, {}}, {"c", {"only"}, {}}};
    const std::vector<std::vector<std::string>> values{{"1", "x", "only"}, {"1", "y", "only"}, {"2", "x", "only"},
                                                       {"2", "y", "only"}};
    std::vector<BatchRow> rows;
    const long long cycles[] = {100, 100, 300, 300};
    for (size_t i = 0; i < values.size(); ++i) {
        SweepPoint p;
        p.index = i;
        p.id = point_id(i);
        p.values = values[i];
        s.points.push_back(p);
        BatchRow r;
        r.kernel_cycles = cycles[i];
        rows.push_back(r);
    }
    CHECK(sweep_time_effects(s, rows) ==
          "what moved the time (kernel cycles between points that differ in one parameter):\n"
          "  a  x3.00  100 cycles at a=1 to 300 at a=2 (b=x)\n"
          "  b  x1.00  no change\n");
    for (BatchRow& r : rows) r.kernel_cycles = -1;  // no span: nothing to say
    CHECK(sweep_time_effects(s, rows).empty());
}

}  // namespace test_cli_sweep_options
