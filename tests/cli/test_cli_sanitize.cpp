// `tmasim run --backend device --sanitize TOOL` end to end without a GPU: the tool is
// tests/scripts/fake_compute_sanitizer.sh, which writes a kept report as the tool's log and
// runs the scenario on the model in the device run's place (its trace: backend device,
// outcome ok, no diagnostics). So what is checked is tmasim's side: the spawn, the report
// read back and mapped to ops, the expectation, tmasim diff and the batch's verdicts.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "cli_runner.h"

using namespace tmasim_test;

namespace {

const std::string kRaw = "scenarios/catalog/races/shared_raw_no_barrier.yaml";
const std::string kSynced = "scenarios/catalog/races/shared_raw_synced.yaml";

void use_fake_sanitizer() {
    const std::string root = TMASIM_SOURCE_DIR;
    setenv("TMASIM_COMPUTE_SANITIZER", (root + "/tests/scripts/fake_compute_sanitizer.sh").c_str(), 1);
    setenv("TMASIM_FAKE_REPORT_DIR", (root + "/tests/device/sanitizer_reports").c_str(), 1);
}

}  // namespace

TEST_CASE("run under racecheck (--sanitize): the report's hazard confirms `expect`, names ops and threads, and is kept",
          "[cli][sanitize]") {
    use_fake_sanitizer();
    const std::string trace = scratch("raw_device.jsonl");
    const CliResult r = run_cli("run " + kRaw + " --backend device --sanitize racecheck -o " + trace);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("expect:      hazard race.shared_raw at op 'consume': PASS") != std::string::npos);
    CHECK(r.out.find("note:        racecheck confirms the hazard: racecheck: RAW hazard on __shared__ 0x400: Write "
                     "at #0 shared.store (produce) by thread (0,0,0) (warp 0 lane 0), then Read at #2 shared.load "
                     "(consume) by thread (32,0,0) (warp 1 lane 0) (4 records)") != std::string::npos);
    CHECK(r.out.find("': not checked") == std::string::npos);
    CHECK(std::filesystem::exists(scratch("raw_device.racecheck.txt")));
    const std::string text = read_file(trace);
    CHECK(text.find("\"sanitizer\":\"racecheck\"") != std::string::npos);
    CHECK(text.find("\"rule\":\"sanitizer.racecheck.raw\"") != std::string::npos);

    // tmasim diff of the model's trace against it: both found the hazard.
    const std::string model = scratch("raw_model.jsonl");
    REQUIRE(run_cli("run " + kRaw + " --backend model -q -o " + model).code == 0);
    const CliResult d = run_cli("diff " + model + " " + trace);
    INFO(d.out << d.err);
    CHECK(d.code == 0);
    CHECK(d.out.find("HAZARDS (model vs compute-sanitizer): agree: 1, model-only: 0, sanitizer-only: 0") !=
          std::string::npos);
    CHECK(d.out.find("agree, both found it: race.shared_raw at #2 shared.load") != std::string::npos);
    CHECK(d.out.find("not observable") == std::string::npos);
}

TEST_CASE("a batch under racecheck (--sanitize): the table ends with the per-hazard counts", "[cli][sanitize][batch]") {
    use_fake_sanitizer();
    const std::string dir = scratch("sanitized_batch");
    const CliResult r = run_cli("run " + kRaw + " " + kSynced + " --backend device --sanitize racecheck -o " + dir);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(last_line(r.out) == "agree: 1, model-only: 0, sanitizer-only: 0");
    CHECK(r.out.find("2 scenarios: 2 agree, 0 disagree, 0 skipped") != std::string::npos);
    CHECK(std::filesystem::exists(dir + "/shared_raw_no_barrier.racecheck.txt"));
    const CliResult j =
        run_cli("run " + kRaw + " " + kSynced + " --backend device --sanitize racecheck --json -o " + scratch("sanitized_json"));
    CHECK(j.code == 0);
    CHECK(j.out.find("\"hazards\":[{\"verdict\":\"agree\",\"rule\":\"race.shared_raw\",\"op\":2,") !=
          std::string::npos);
}

TEST_CASE("under synccheck (--sanitize): 'Missing wait' where PTX asks for no wait, and where the model stopped first",
          "[cli][sanitize]") {
    use_fake_sanitizer();
    // The CUDA guide's producer arrives twice on filled[s] in one phase (cp.async.mbarrier.arrive,
    // then directly): legal PTX (9.7.13.15.15), which the model ran to the end.
    const std::string guide = "scenarios/catalog/guide/producer_consumer_warp_specialized.yaml";
    const std::string trace = scratch("guide_synccheck.jsonl"), model = scratch("guide_model.jsonl");
    const CliResult r = run_cli("run " + guide + " --backend device --sanitize synccheck -o " + trace);
    INFO(r.out << r.err);
    REQUIRE(run_cli("run " + guide + " --backend model -q -o " + model).code == 0);
    CHECK(read_file(trace).find("\"barrier_waited\":\"1\"") != std::string::npos);
    const CliResult d = run_cli("diff " + model + " " + trace);
    INFO(d.out << d.err);
    CHECK(d.out.find("HAZARDS (model vs compute-sanitizer): agree: 0, model-only: 0, sanitizer-only: 0, not a PTX "
                     "rule: 1, not reached by the model: 0") != std::string::npos);
    CHECK(d.out.find("sanitizer only, not a PTX rule: sanitizer.synccheck.barrier at #12 mbarrier.arrive") !=
          std::string::npos);

    // no_empty_wait: the model hangs before the consumers' second arrive on empty[0].
    const std::string ring = "scenarios/catalog/warpspec/no_empty_wait.yaml";
    const std::string dir = scratch("ring_synccheck"), ref = scratch("ring_model");
    std::filesystem::create_directories(ref);
    REQUIRE(run_cli("run " + ring + " --backend model -q -o " + ref + "/no_empty_wait.jsonl").code == 0);
    const CliResult b = run_cli("run " + ring + " --backend device --sanitize synccheck -o " + dir +
                                " --diff-against " + ref);
    INFO(b.out << b.err);
    // Model only: mbarrier.pending_range and race.async_overlap (the third load into stage 0).
    CHECK(last_line(b.out) == "agree: 0, model-only: 2, sanitizer-only: 0, not a PTX rule: 0, not reached by the model: 1");
    CHECK(b.out.find("its run stopped (hang mbarrier.pending_arrivals at #13 mbarrier.wait)") != std::string::npos);
}

TEST_CASE("without compute-sanitizer, --sanitize is exit 2 with where it looked, and the model refuses it", "[cli][sanitize]") {
    setenv("TMASIM_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer", 1);
    const CliResult r = run_cli("run " + kRaw + " --backend device --sanitize racecheck");
    CHECK(r.code == 2);
    CHECK(r.err == "tmasim: error: --sanitize: TMASIM_COMPUTE_SANITIZER=/nonexistent/compute-sanitizer is not an "
                   "executable file\n");
    const CliResult m = run_cli("run " + kRaw + " --backend model --sanitize racecheck");
    CHECK(m.code == 2);
    CHECK(m.err.find("--sanitize applies to the device backend only") != std::string::npos);
    const CliResult bad = run_cli("run " + kRaw + " --backend device --sanitize helgrind");
    CHECK(bad.code == 2);
}

TEST_CASE("run's warm launches are the device's: the model refuses them, and only 0 to 100 are allowed", "[cli]") {
    const CliResult m = run_cli("run " + kRaw + " --backend model --warm-launches 1");
    CHECK(m.code == 2);
    CHECK(m.err.find("--warm-launches applies to the device backend only") != std::string::npos);
    for (const char* bad : {"-1", "101", "two"}) {
        const CliResult r = run_cli("run " + kRaw + " --backend device --warm-launches " + bad);
        INFO(bad);
        CHECK(r.code == 2);
        CHECK(r.err.find("--warm-launches") != std::string::npos);
    }
}

TEST_CASE("run's shared-dump option is the device's: the model refuses it, and only auto, on and off are allowed", "[cli]") {
    const CliResult m = run_cli("run " + kRaw + " --backend model --shared-dump on");
    CHECK(m.code == 2);
    CHECK(m.err.find("--shared-dump applies to the device backend only") != std::string::npos);
    const CliResult bad = run_cli("run " + kRaw + " --backend device --shared-dump sometimes");
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--shared-dump") != std::string::npos);
    // codegen takes it too, and decides auto as run does: no copy with --trace none.
    const CliResult none = run_cli("codegen " + kRaw + " --trace none");
    const CliResult forced = run_cli("codegen " + kRaw + " --trace none --shared-dump on");
    REQUIRE(none.code == 0);
    REQUIRE(forced.code == 0);
    CHECK(none.out.find("unsigned char* const dump =") == std::string::npos);
    CHECK(forced.out.find("unsigned char* const dump =") != std::string::npos);
    CHECK(run_cli("codegen " + kRaw).out.find("unsigned char* const dump =") != std::string::npos);
}
