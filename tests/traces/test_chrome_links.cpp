// The Chrome export's links: a copy in flight as an async span, the flow from its issue
// through its barrier transaction and phase flip to the wait it released, counter tracks
// of the barrier, hazards in their own category, and pids/tids from 1 with names.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sample_run.h"
#include "traces/chrome_export.h"
#include "traces/chrome_links.h"
#include "traces/trace_links.h"

using namespace tmasim;
using tmasim_test::make_event;
using Json = nlohmann::json;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_chrome_links {

namespace {

TraceEvent model_only(int op, int warp, int64_t t, const std::string& what, std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(op, warp, 0, EventKind::state, t);
    e.model_only = true;
    e.what = what;
    e.detail = std::move(detail);
    return e;
}

// Warp 0 issues a tma.load (op 0) on barrier full[0]; its 64 bytes land at t=200 and
// complete the phase; warp 1 waits (op 1) from t=20 to t=210. 1000 MHz: 1 cycle = 1 ns.
RunResult copy_run() {
    RunResult r;
    r.provenance.backend = "model";
    r.provenance.sm_clock_mhz = 1000;
    r.events = {make_event(0, 0, 0, EventKind::issue, 10),
                model_only(0, 0, 10, "tma_start", {{"bytes", "64"}}),
                make_event(0, 0, 0, EventKind::complete, 14),
                make_event(1, 1, 0, EventKind::wait_begin, 20),
                model_only(0, 0, 200, "complete_tx", {{"barrier", "full[0]"}, {"bytes", "64"}, {"tx_count", "0"}, {"pending", "0"}}),
                model_only(0, 0, 200, "phase_flip", {{"barrier", "full[0]"}, {"phase", "0"}, {"tx_count", "0"}, {"pending", "1"}}),
                make_event(1, 1, 0, EventKind::wait_end, 210)};
    TraceEvent hazard = make_event(2, 1, 0, EventKind::hazard, 230);
    hazard.model_only = true;
    hazard.what = "proxy.generic_to_async";
    r.events.push_back(hazard);
    r.outcome = Outcome::hazard;
    return r;
}

const OpNames kNames = {{0, "tma.load"}, {1, "mbarrier.wait"}, {2, "tma.store"}};

Json exported(const RunResult& r) {
    std::ostringstream out;
    write_chrome_trace(r, out, kNames);
    return Json::parse(out.str()).at("traceEvents");
}

}  // namespace

TEST_CASE("trace links: the copy, its flip and the wait the flip released", "[traces][export]") {
    const RunResult r = copy_run();
    const TraceLinks links = link_trace(r, kNames);
    REQUIRE(links.copies.size() == 1);
    CHECK(links.copies[0].start == 10);
    CHECK(links.copies[0].end == 200);
    CHECK(links.copies[0].complete_tx.size() == 1);
    REQUIRE(links.flips.size() == 1);
    CHECK(links.flips[0].barrier == "full[0]");
    REQUIRE(links.flips[0].released.size() == 1);
    CHECK(links.flips[0].released[0]->key() == "op1@cta0.w1.l0:wait_end");
    CHECK(links.copies[0].flips == std::vector<size_t>{0});
    const auto& samples = links.barriers.at({0, "full[0]"});
    REQUIRE(samples.size() == 2);
    CHECK(samples[1].phases_completed == 1);

    // A wait that began after the flip is linked only when the scenario says what it waits for.
    RunResult late = r;
    late.events[3].t = 205;
    CHECK(link_trace(late, kNames).flips[0].released.empty());
    const WaitTargets targets = {{{1, {}}, {"full[0]", 0}}};
    CHECK(link_trace(late, kNames, &targets).flips[0].released.size() == 1);
    const WaitTargets other = {{{1, {}}, {"full[0]", 1}}};  // the other parity: not this flip
    CHECK(link_trace(late, kNames, &other).flips[0].released.empty());
}

TEST_CASE("chrome export: async span, flow chain, counters, hazard category, ids from 1", "[traces][export]") {
    const Json events = exported(copy_run());
    std::map<std::string, std::vector<Json>> by_ph;
    for (const Json& e : events) by_ph[e.at("ph").get<std::string>()].push_back(e);

    // The copy in flight: b at its issue, e at its last landing, one id.
    REQUIRE(by_ph["b"].size() == 1);
    REQUIRE(by_ph["e"].size() == 1);
    CHECK(by_ph["b"][0].at("cat") == "copy");
    CHECK(by_ph["b"][0].at("name") == "tma.load #0 in flight");
    CHECK(by_ph["b"][0].at("ts").get<double>() == Approx(0.010));
    CHECK(by_ph["e"][0].at("ts").get<double>() == Approx(0.200));
    CHECK(by_ph["b"][0].at("id") == by_ph["e"][0].at("id"));

    // The flow: issue (warp 0) -> complete_tx and phase flip (barrier track) -> wait (warp 1).
    REQUIRE(by_ph["s"].size() == 1);
    REQUIRE(by_ph["f"].size() == 1);
    const Json &s = by_ph["s"][0], &f = by_ph["f"][0];
    CHECK(s.at("id") == f.at("id"));
    CHECK(s.at("tid") == 1);
    CHECK(s.at("ts").get<double>() == Approx(0.012));  // inside the issue slice [10, 14]
    CHECK(f.at("tid") == 2);
    CHECK(f.at("ts").get<double>() > 0.200);
    CHECK(f.at("ts").get<double>() < 0.210);  // inside the wait slice, near its end
    REQUIRE(by_ph["t"].size() == 1);  // the transaction and the flip share one cycle: one point
    CHECK(by_ph["t"][0].at("tid") == kChromeBarrierTid);

    // The barrier's track holds its transaction and flip; counters carry tx-count and phase.
    int markers = 0;
    for (const Json& x : by_ph["X"])
        if (x.at("cat") == "barrier") {
            ++markers;
            CHECK(x.at("tid") == kChromeBarrierTid);
        }
    CHECK(markers == 2);
    std::map<std::string, std::vector<Json>> counters;
    for (const Json& c : by_ph["C"]) counters[c.at("name").get<std::string>()].push_back(c);
    REQUIRE(counters.count("full[0] tx-count"));
    REQUIRE(counters.count("full[0] phase"));
    CHECK(counters["full[0] phase"].back().at("args").at("phases_completed") == 1);
    CHECK(counters["full[0] tx-count"].back().at("args").at("tx_count") == 0);

    // The hazard is an instant of its own category.
    int hazards = 0;
    for (const Json& i : by_ph["i"])
        if (i.at("cat") == "hazard") {
            ++hazards;
            CHECK(i.at("name") == "hazard proxy.generic_to_async (tma.store #2)");
        }
    CHECK(hazards == 1);

    // No pid or tid 0 on any event that draws; names for CTA 0 (pid 1) and warp 1 (tid 2).
    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<int, std::string> process_names;
    for (const Json& e : events) {
        CHECK(e.at("pid").get<int>() >= 1);
        if (e.at("ph") != "M" && e.at("ph") != "C") CHECK(e.at("tid").get<int>() >= 1);
        if (e.at("name") == "thread_name") thread_names[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
        if (e.at("name") == "process_name") process_names[e.at("pid")] = e.at("args").at("name");
    }
    CHECK(process_names[1] == "CTA 0");
    CHECK(thread_names[{1, 1}] == "warp 0");
    CHECK(thread_names[{1, 2}] == "warp 1");
    CHECK(thread_names[{1, kChromeBarrierTid}] == "barrier full[0]");
}

}  // namespace test_chrome_links
