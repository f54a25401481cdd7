// EventLog::take_sorted_events: the trace order of FORMAT.md, as one stable sort of all
// events by (cta, t, op, warp, lane, kind, iters, what) would give it, whatever shortcuts
// the log takes (a counting sort by CTA, each event placed among its CTA's events of its
// time as it comes when a CTA's events came in time order, the moves along listed cycles).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>

#include "model/core/event_log.h"

using tmasim::EventKind;
using tmasim::TraceEvent;
using tmasim::model::EventLog;
using tmasim::model::EventSite;

namespace {

// Logs `count` events; `in_time_order`: each CTA's times never decrease, as in a run.
std::vector<TraceEvent> log_events(EventLog& log, int count, bool in_time_order, unsigned seed) {
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    std::vector<TraceEvent> logged;
    int64_t now = 0;
    for (int i = 0; i < count; ++i) {
        now += in_time_order ? pick(3) / 2 : 0;  // many equal times
        EventSite site{pick(4), {pick(2)}, pick(5) * 3, pick(2), pick(2)};
        if (pick(4) == 0) site.iters.clear();
        const int64_t t = in_time_order ? now : pick(20);
        const EventKind kind = pick(2) ? EventKind::issue : EventKind::state;
        // A detail that tells events equal in every key apart, to check stability.
        std::map<std::string, std::string> detail{{"n", std::to_string(i)}};
        const std::string what = kind == EventKind::state ? (pick(2) ? "complete_tx" : "phase_flip") : "";
        if (kind == EventKind::state)
            log.add_model_only(site, what, t, detail);
        else
            log.add(site, kind, t, detail);
        TraceEvent e;
        e.op = site.op;
        e.iters = site.iters;
        e.cta = site.cta;
        e.warp = site.warp;
        e.lane = site.lane;
        e.kind = kind;
        e.t = t;
        e.what = what;
        logged.push_back(e);
        logged.back().detail = detail;
    }
    return logged;
}

std::vector<std::string> order_of(const std::vector<TraceEvent>& events) {
    std::vector<std::string> out;
    for (const TraceEvent& e : events) out.push_back(e.detail.at("n"));
    return out;
}

}  // namespace

TEST_CASE("event log: sorted events are the stable sort of all of them by the trace key", "[model][trace]") {
    for (bool in_time_order : {true, false}) {
        for (unsigned seed : {1u, 2u, 3u}) {
            EventLog log;
            std::vector<TraceEvent> expected = log_events(log, 3000, in_time_order, seed);
            std::vector<TraceEvent> got = log.take_sorted_events();
            REQUIRE(got.size() == expected.size());
            std::stable_sort(expected.begin(), expected.end(), [](const TraceEvent& a, const TraceEvent& b) {
                return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind, a.iters, a.what) <
                       std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind, b.iters, b.what);
            });
            INFO("in time order: " << in_time_order << ", seed " << seed);
            CHECK(order_of(got) == order_of(expected));
            CHECK(log.take_sorted_events().empty());  // the log hands its events over
        }
    }
}

TEST_CASE("event log: CTA ids that are no index still give the stable sort", "[model][trace]") {
    // The counting sort by CTA takes ids from 0; any other id sorts all events as one.
    EventLog log;
    log.add(EventSite{1, {}, 2, 0, 0}, EventKind::issue, 5);
    log.add(EventSite{1, {}, -1, 0, 0}, EventKind::issue, 7);
    log.add(EventSite{0, {}, 2, 0, 0}, EventKind::issue, 5);
    log.add(EventSite{2, {}, -1, 0, 0}, EventKind::issue, 3);
    const std::vector<TraceEvent> got = log.take_sorted_events();
    REQUIRE(got.size() == 4);
    CHECK(std::make_tuple(got[0].cta, got[0].t, got[0].op) == std::make_tuple(-1, int64_t{3}, 2));
    CHECK(std::make_tuple(got[1].cta, got[1].t, got[1].op) == std::make_tuple(-1, int64_t{7}, 1));
    CHECK(std::make_tuple(got[2].cta, got[2].t, got[2].op) == std::make_tuple(2, int64_t{5}, 0));
    CHECK(std::make_tuple(got[3].cta, got[3].t, got[3].op) == std::make_tuple(2, int64_t{5}, 1));
}

TEST_CASE("complete_tx credits of one landing fold into one event, another landing starts its own",
          "[model][event_log]") {
    EventLog log;
    const EventSite load{5, {2}, 1, 0, 0};
    // A landing of 4 chunks, with the phase flip the last chunk caused logged in between.
    log.add_complete_tx(load, 100, "full[0]", 256, 768, 1);
    log.add_complete_tx(load, 100, "full[0]", 256, 512, 1);
    log.add_model_only(load, "phase_flip", 100, {{"phase", "0"}});
    log.add_complete_tx(load, 100, "full[0]", 256, 256, 1);
    log.add_complete_tx(load, 100, "full[0]", 256, 0, 0);
    // Not the same landing: another time, another barrier, another op instance.
    log.add_complete_tx(load, 101, "full[0]", 64, 0, 0);
    log.add_complete_tx(load, 101, "full[1]", 64, 0, 0);
    log.add_complete_tx(EventSite{5, {3}, 1, 0, 0}, 101, "full[1]", 64, 0, 0);
    const std::vector<TraceEvent> events = log.take_sorted_events();
    std::vector<std::map<std::string, std::string>> credits;
    for (const TraceEvent& e : events)
        if (e.what == "complete_tx") credits.push_back(e.detail);
    REQUIRE(credits.size() == 4);
    CHECK(credits[0] == std::map<std::string, std::string>{
                            {"barrier", "full[0]"}, {"bytes", "1024"}, {"chunks", "4"}, {"pending", "0"}, {"tx_count", "0"}});
    // One credit alone keeps the version 2 detail: no chunks.
    CHECK(credits[1] == std::map<std::string, std::string>{
                            {"barrier", "full[0]"}, {"bytes", "64"}, {"pending", "0"}, {"tx_count", "0"}});
    CHECK(credits[2].at("barrier") == "full[1]");
    CHECK(credits[3].count("chunks") == 0);
    CHECK(events.size() == 5);  // four credits and the flip
}

TEST_CASE("a complete_tx credit keeps folding when events of its time move past it or it moves back",
          "[model][event_log]") {
    EventLog log;
    // CTA 1: a later event of the same time sorts before the open credit (op 3 < op 5).
    const EventSite landing{5, {0}, 1, 0, 0};
    log.add_complete_tx(landing, 100, "full[0]", 256, 256, 1);
    log.add(EventSite{3, {0}, 1, 0, 0}, EventKind::issue, 100);
    log.add_complete_tx(landing, 100, "full[0]", 256, 0, 1);
    // CTA 2: the credit itself sorts before the event logged just before it (op 5 < op 7).
    log.add(EventSite{7, {0}, 2, 0, 0}, EventKind::issue, 50);
    const EventSite early{5, {0}, 2, 0, 0};
    log.add_complete_tx(early, 50, "full[1]", 64, 64, 1);
    log.add_complete_tx(early, 50, "full[1]", 64, 0, 1);
    const std::vector<TraceEvent> events = log.take_sorted_events();
    REQUIRE(events.size() == 4);
    CHECK(std::make_tuple(events[0].cta, events[0].op, events[0].what) == std::make_tuple(1, 3, std::string()));
    CHECK(std::make_tuple(events[1].cta, events[1].op, events[1].what) == std::make_tuple(1, 5, std::string("complete_tx")));
    CHECK(events[1].detail.at("bytes") == "512");
    CHECK(events[1].detail.at("chunks") == "2");
    CHECK(std::make_tuple(events[2].cta, events[2].op, events[2].what) == std::make_tuple(2, 5, std::string("complete_tx")));
    CHECK(events[2].detail.at("bytes") == "128");
    CHECK(std::make_tuple(events[3].cta, events[3].op) == std::make_tuple(2, 7));
}
