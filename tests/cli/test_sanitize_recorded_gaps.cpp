// The six findings the H200's sanitized catalog of 2026-11-24 (commit 8274294) left
// "sanitizer only" (traces/recorded/NVIDIA-H200/sanitizer/*.txt), replayed offline: a report in
// the form the tool printed, mapped to ops as today's build maps it, against the model's
// diagnostics as that run recorded them. Hand-written reports: the raw ones were not kept
// (device/scripts/sanitize_session.sh keeps them now).
#include <catch2/catch.hpp>

#include <filesystem>

#include "cli/sanitize_run.h"
#include "device/emit/codegen.h"
#include "device/sanitizer/sanitizer_ops.h"
#include "device/sanitizer/sanitizer_report.h"
#include "scenarios/loader.h"
#include "traces/sanitizer_verdicts.h"

using namespace tmasim;
using namespace tmasim::device;

namespace test_sanitize_recorded_gaps {

namespace {

const std::filesystem::path kSource = TMASIM_SOURCE_DIR;

std::vector<HazardVerdict> replay(const std::string& rel, const std::string& tool, const std::string& report,
                                  const std::vector<Diagnostic>& model) {
    const Scenario s = load_scenario_file((kSource / "scenarios/catalog" / rel).string());
    std::vector<Diagnostic> found =
        sanitizer_diagnostics(parse_sanitizer_report(report), tool, KernelLineMap(generate_kernel_source(s)), s);
    cli::note_barrier_waits(found, s);
    RunResult device;
    device.provenance.backend = "device";
    device.provenance.extra["sanitizer"] = tool;
    device.diagnostics = found;
    OpNames names;
    for (const Op* op : s.all_ops()) names[op->id] = to_string(op->kind);
    return compare_hazards(model, device, names);
}

Diagnostic model_diag(Outcome outcome, const std::string& rule, int op) {
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.op = op;
    return d;
}

std::string missing_wait(int op, int thread) {
    return "========= COMPUTE-SANITIZER\n"
           "========= Barrier error detected. Missing wait.\n"
           "=========     at mbarrier_arrive_shared_cta_b64__op" + std::to_string(op) + "(unsigned int)+0x20 in tmasim_op_" +
           std::to_string(op) + ".cu:3\n"
           "=========     by thread (" + std::to_string(thread) + ",0,0) in block (0,0,0)\n"
           "=========\n"
           "========= ERROR SUMMARY: 1 error\n";
}

}  // namespace

TEST_CASE("recorded gaps, racecheck: the cluster races' accesses name their block rank and match the model's op",
          "[cli][sanitizer]") {
    // The recording's parser read no access of a cluster launch ("Read Thread (..) (block rank
    // 1) at ..."), so these named no op; commit 760adc9 reads them.
    const std::string war = "========= COMPUTE-SANITIZER\n"
                            "========= Error: Potential WAR hazard detected at __shared__ 0x480 in block (1,0,0) :\n"
                            "=========     Read Thread (32,0,0) (block rank 1) at ld_volatile_shared_b32__op2(unsigned "
                            "int)+0x860 in tmasim_op_2.cu:3\n"
                            "=========     Write Thread (32,0,0) (block rank 0) at st_volatile_shared_cluster_b32__op0("
                            "unsigned int, unsigned int)+0x790 in tmasim_op_0.cu:2\n"
                            "=========     Current Value : 0, Incoming Value : 32\n"
                            "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    const std::vector<HazardVerdict> bump = replay("hazards/compute_dsmem_unsynced.yaml", "racecheck", war,
                                                   {model_diag(Outcome::hazard, "race.dsmem_unsynced", 2)});
    REQUIRE(bump.size() == 1);
    CHECK(bump[0].kind == HazardVerdict::Kind::agree);
    std::string raw = war;
    raw.replace(raw.find("WAR"), 3, "RAW");
    raw.replace(raw.find("0x480"), 5, "0x400");
    const std::vector<HazardVerdict> get = replay("cluster/dsmem_no_sync.yaml", "racecheck", raw,
                                                  {model_diag(Outcome::hazard, "race.dsmem_unsynced", 2)});
    REQUIRE(get.size() == 1);
    CHECK(get[0].kind == HazardVerdict::Kind::agree);
}

TEST_CASE("recorded gaps, racecheck: 13b's init/arrive 'race' of one thread is not compared", "[cli][sanitizer]") {
    const std::string race = "========= COMPUTE-SANITIZER\n"
                             "========= Error: Race reported between Write access at mbarrier_init_shared_cta_b64__op2("
                             "unsigned int, unsigned int)+0x10 in tmasim_op_2.cu:2\n"
                             "=========     and Read access at mbarrier_arrive_shared_cta_b64__op3(unsigned int)+0x20 in "
                             "tmasim_op_3.cu:3\n"
                             "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    CHECK(replay("teach/13b_inval_reinit.yaml", "racecheck", race, {}).empty());
}

TEST_CASE("recorded gaps, synccheck: 'Missing wait' is not a PTX rule twice and not reached once", "[cli][sanitizer]") {
    const auto guide =
        replay("guide/producer_consumer_warp_specialized.yaml", "synccheck", missing_wait(12, 0), {});
    REQUIRE(guide.size() == 1);
    CHECK(guide[0].kind == HazardVerdict::Kind::not_ptx_rule);
    CHECK(guide[0].where == "sanitizer.synccheck.barrier at #12 mbarrier.arrive");
    const auto noinc = replay("teach/15_noinc.yaml", "synccheck", missing_wait(5, 0),
                              {model_diag(Outcome::hazard, "race.early_pass", 7)});
    REQUIRE(noinc.size() == 2);
    CHECK(noinc[0].kind == HazardVerdict::Kind::model_only);
    CHECK(noinc[1].kind == HazardVerdict::Kind::not_ptx_rule);
    const auto ring = replay("warpspec/no_empty_wait.yaml", "synccheck", missing_wait(16, 128),
                             {model_diag(Outcome::hazard, "mbarrier.pending_range", 11),
                              model_diag(Outcome::hang, "mbarrier.pending_arrivals", 13)});
    REQUIRE(ring.size() == 2);
    CHECK(ring[1].kind == HazardVerdict::Kind::not_reached);
    CHECK(ring[1].why.find("no op waits on barrier empty") != std::string::npos);
    // teach/12, already matched: the model's mbarrier.unobserved_phase at the same op.
    const auto twelve = replay("teach/12_unobserved_phase.yaml", "synccheck", missing_wait(5, 0),
                               {model_diag(Outcome::hazard, "mbarrier.unobserved_phase", 5)});
    REQUIRE(twelve.size() == 1);
    CHECK(twelve[0].kind == HazardVerdict::Kind::agree);
    HazardCounts counts;
    for (const auto* v : {&guide, &noinc, &ring, &twelve}) counts.add(*v);
    CHECK(counts.sanitizer_only == 0);
    CHECK(counts.not_ptx_rule == 2);
    CHECK(counts.not_reached == 1);
}

}  // namespace test_sanitize_recorded_gaps
