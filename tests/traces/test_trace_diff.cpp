#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "traces/trace_diff.h"

using namespace tmasim;
using tmasim_test::make_event;
using tmasim_test::sample_run;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_trace_diff {

namespace {

std::string printed(const DiffReport& r) {
    std::ostringstream out;
    print_diff(r, out);
    return out.str();
}

}  // namespace

TEST_CASE("a run diffed with itself matches", "[traces][diff]") {
    DiffReport r = diff_traces(sample_run(), sample_run());
    CHECK(r.functional_match());
    CHECK(r.events.paired == 4);  // the model-only phase flip is not compared
    CHECK(r.model_only_skipped == 2);
    CHECK(r.events.median == 0);
    CHECK(r.unpaired_a == 0);
    CHECK(r.unpaired_b == 0);
    CHECK(printed(r).find("RESULT: functional match") != std::string::npos);
}

TEST_CASE("diff says how each device trace was launched: after warm launches, or once cold", "[traces][diff]") {
    RunResult a = sample_run(), b = sample_run();
    a.provenance.backend = b.provenance.backend = "device";
    a.provenance.extra["warm_launches"] = "1";
    const std::string text = printed(diff_traces(a, b));
    CHECK(text.find("A: backend device") != std::string::npos);
    CHECK(text.find("after 1 warm launch(es)") < text.find("B: backend device"));
    CHECK(text.find("one cold launch") > text.find("B: backend device"));
    CHECK(printed(diff_traces(sample_run(), sample_run())).find("launch") == std::string::npos);  // the model's
}

TEST_CASE("diff finds one changed byte, its offset and the count", "[traces][diff]") {
    RunResult a = sample_run(), b = sample_run();
    b.memory[0].bytes[5] ^= 0x01;
    DiffReport r = diff_traces(a, b);
    CHECK(r.outcome_match());
    CHECK_FALSE(r.memory_match());
    CHECK_FALSE(r.functional_match());
    REQUIRE(r.memory.size() == 2);
    const MemoryDiff& g = r.memory[0];
    CHECK(g.space == "global");
    CHECK(g.name == "A");
    CHECK(g.status == MemoryDiff::Status::differ);
    CHECK(g.first_diff == 5);
    CHECK(g.diff_count == 1);
    CHECK(r.memory[1].status == MemoryDiff::Status::equal);
    CHECK(printed(r).find("global A: DIFFER: 1 of 8 bytes, first at byte offset 5") != std::string::npos);
}

TEST_CASE("diff treats missing globals as mismatches, missing shared buffers as notes", "[traces][diff]") {
    RunResult a = sample_run(), b = sample_run();
    b.memory.pop_back();  // the shared buffer
    DiffReport shared_gone = diff_traces(a, b);
    CHECK(shared_gone.functional_match());
    CHECK(shared_gone.memory[1].status == MemoryDiff::Status::missing_in_b);

    b.memory.clear();
    CHECK_FALSE(diff_traces(a, b).functional_match());

    b = sample_run();
    b.memory[0].bytes.push_back(0);
    DiffReport sized = diff_traces(a, b);
    CHECK(sized.memory[0].status == MemoryDiff::Status::size_mismatch);
    CHECK_FALSE(sized.functional_match());
}

TEST_CASE("after a fault on both sides, images the faulted run could not read back are not compared", "[traces][diff]") {
    RunResult model = sample_run(), device = sample_run();
    model.outcome = Outcome::fault;
    device.outcome = Outcome::fault;
    device.memory.clear();  // the GPU context is gone after a fault
    DiffReport r = diff_traces(model, device);
    CHECK(r.memory[0].status == MemoryDiff::Status::missing_in_b);
    CHECK_FALSE(r.memory[0].is_mismatch);
    CHECK(r.functional_match());
    // Only the faulted side is excused: a missing global on a run that finished still counts.
    model.outcome = Outcome::ok;
    device.outcome = Outcome::ok;
    CHECK_FALSE(diff_traces(model, device).functional_match());
}

TEST_CASE("a hang killed at the wall-clock limit read nothing back: its missing images are not compared",
          "[traces][diff]") {
    RunResult model = sample_run(), device = sample_run();
    model.outcome = Outcome::hang;
    device.outcome = Outcome::hang;
    device.memory.clear();
    // A hang that the kernel's watchdog ended reads memory back: a missing global counts.
    CHECK_FALSE(diff_traces(model, device).functional_match());
    Diagnostic killed;
    killed.outcome = Outcome::hang;
    killed.rule = "device.wall_clock_limit";
    device.diagnostics.push_back(killed);
    CHECK(could_not_read_back(device));
    CHECK_FALSE(could_not_read_back(model));
    const DiffReport r = diff_traces(model, device);
    CHECK(r.functional_match());
    CHECK(printed(r).find("global A: missing in B (the other run could not read it back: not compared)") !=
          std::string::npos);
}

TEST_CASE("an outcome mismatch is a functional failure even with equal bytes", "[traces][diff]") {
    RunResult a = sample_run(), b = sample_run();
    b.outcome = Outcome::ok;
    b.diagnostics.clear();
    DiffReport r = diff_traces(a, b);
    CHECK(r.memory_match());
    CHECK_FALSE(r.outcome_match());
    CHECK_FALSE(r.functional_match());
    CHECK(printed(r).find("OUTCOME: MISMATCH: A hazard (proxy.generic_to_async: ") != std::string::npos);
}

TEST_CASE("timing: median and p90 of relative errors against B", "[traces][diff]") {
    RunResult a, b;
    // B is the reference; relative errors 0, 0.1, 0.2, 0.3, 0.4.
    const int64_t tb[] = {100, 200, 300, 400, 500};
    const int64_t ta[] = {100, 220, 240, 520, 300};
    for (int op = 0; op < 5; ++op) {
        a.events.push_back(make_event(op, 0, 0, EventKind::issue, ta[op]));
        b.events.push_back(make_event(op, 0, 0, EventKind::issue, tb[op]));
    }
    a.events.push_back(make_event(9, 1, 0, EventKind::issue, 7));  // only in A
    TraceEvent landed = make_event(2, 0, 0, EventKind::state, 260);
    landed.model_only = true;
    a.events.push_back(landed);

    DiffOptions opt;
    opt.top = 3;
    opt.tolerance = 0.25;
    opt.op_names = {{4, "tma.load"}};
    DiffReport r = diff_traces(a, b, opt);
    CHECK(r.events.paired == 5);
    CHECK(r.events.median == Approx(0.2));
    CHECK(r.events.p90 == Approx(0.36));  // between the 4th (0.3) and 5th (0.4) value, at 0.6
    CHECK(r.events.max == Approx(0.4));
    CHECK(r.events.over_tolerance == 2);
    CHECK(r.durations.paired == 0);
    CHECK(r.unpaired_a == 1);
    CHECK(r.unpaired_b == 0);
    CHECK(r.model_only_skipped == 1);
    REQUIRE(r.worst.size() == 3);
    CHECK(r.worst[0].key == "op4@cta0.w0.l0:issue");
    CHECK(r.worst[0].name == "tma.load");
    CHECK(r.worst[0].a == 300);
    CHECK(r.worst[0].b == 500);
    CHECK(r.worst[1].key == "op3@cta0.w0.l0:issue");
    CHECK(r.worst[1].name == "?");
    CHECK(r.functional_match());  // timing never decides the verdict

    std::string text = printed(r);
    CHECK(text.find("timing: 5 paired events, median rel err 20.0%, p90 36.0%") != std::string::npos);
    CHECK(text.find("op4@cta0.w0.l0:issue") < text.find("op3@cta0.w0.l0:issue"));
}

TEST_CASE("timing: durations pair issue->complete per executing thread", "[traces][diff]") {
    RunResult a, b;
    a.events = {make_event(3, 1, 0, EventKind::issue, 1000, {2}), make_event(3, 1, 0, EventKind::complete, 1050, {2})};
    b.events = {make_event(3, 1, 0, EventKind::issue, 1000, {2}), make_event(3, 1, 0, EventKind::complete, 1040, {2})};
    DiffReport r = diff_traces(a, b);
    CHECK(r.durations.paired == 1);
    CHECK(r.durations.median == Approx(0.25));
    REQUIRE_FALSE(r.worst.empty());
    CHECK(r.worst[0].key == "op3[2]@cta0.w1.l0:duration");
    CHECK(r.worst[0].a == 50);
    CHECK(r.worst[0].b == 40);
}

TEST_CASE("percentile interpolates between ranks", "[traces][diff]") {
    CHECK(percentile({}, 0.5) == 0);
    CHECK(percentile({3}, 0.9) == 3);
    CHECK(percentile({4, 1, 3, 2}, 0.5) == Approx(2.5));
    CHECK(percentile({1, 2, 3, 4}, 1.0) == 4);
}

TEST_CASE("timing: --align first-op measures events from each CTA's first op", "[traces][diff]") {
    // The same two ops, B's kernel prologue 200 cycles longer (launch-time cache state).
    RunResult a, b;
    a.events = {make_event(0, 0, 0, EventKind::issue, 500), make_event(0, 0, 0, EventKind::complete, 600),
                make_event(1, 0, 0, EventKind::issue, 900)};
    b.events = {make_event(0, 0, 0, EventKind::issue, 700), make_event(0, 0, 0, EventKind::complete, 800),
                make_event(1, 0, 0, EventKind::issue, 1100)};
    const DiffReport entry = diff_traces(a, b);
    CHECK(entry.first_op_a == 500);
    CHECK(entry.first_op_b == 700);
    CHECK(entry.events.median == Approx(200.0 / 800.0));  // 200/700, 200/800, 200/1100
    DiffOptions aligned;
    aligned.align_first_op = true;
    const DiffReport r = diff_traces(a, b, aligned);
    CHECK(r.aligned_first_op);
    CHECK(r.events.paired == 3);
    CHECK(r.events.max == 0);
    CHECK(r.durations.median == 0);  // durations never depended on the origin
    CHECK(printed(r).find("prologue: CTA 0's first op at A 500 / B 700 cycles after kernel entry; event times "
                          "below count from each CTA's first op") != std::string::npos);
}

}  // namespace test_trace_diff
