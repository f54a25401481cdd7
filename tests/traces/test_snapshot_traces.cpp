// Snapshot images (space "snapshot") through the trace file, the diff, the summary and
// the Chrome export.
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sample_run.h"
#include "scenarios/values.h"
#include "traces/chrome_export.h"
#include "traces/summary.h"
#include "traces/trace_diff.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using namespace tmasim;
using tmasim_test::sample_run;

namespace {

RunResult with_snapshots() {
    RunResult r = sample_run();
    r.outcome = Outcome::ok;
    r.diagnostics.clear();
    r.memory.push_back({"put[3]:stage[1]", "snapshot", 0, {1, 2, 3, 4, 5, 6, 7, 8}});
    r.memory.push_back({"#7:tile", "snapshot", 1, {9, 9}});
    return r;
}

RunResult round_trip(const RunResult& r) {
    std::ostringstream out;
    write_trace(r, out);
    std::istringstream in(out.str());
    return parse_trace(in, "snap.jsonl").result;
}

std::string diff_text(const DiffReport& d) {
    std::ostringstream out;
    print_diff(d, out);
    return out.str();
}

const MemoryDiff& snapshot_diff(const DiffReport& d, const std::string& name, int cta) {
    for (const MemoryDiff& m : d.memory)
        if (m.space == "snapshot" && m.name == name && m.cta == cta) return m;
    FAIL("no snapshot " << name << " of cta " << cta << " in the diff");
    return d.memory.front();
}

}  // namespace

TEST_CASE("snapshot images survive a write and a strict read", "[traces][snapshot]") {
    const RunResult r = with_snapshots();
    std::ostringstream out;
    write_trace(r, out);
    CHECK_THAT(out.str(), Catch::Contains("{\"type\":\"memory\",\"name\":\"put[3]:stage[1]\",\"space\":\"snapshot\","
                                          "\"cta\":0,\"size\":8,"));
    const RunResult back = round_trip(r);
    CHECK(tmasim_test::same_run(r, back));
    REQUIRE(back.memory.size() == 4);
    CHECK(back.memory[3].space == "snapshot");
    CHECK(back.memory[3].cta == 1);
    CHECK(back.memory[3].bytes == std::vector<uint8_t>{9, 9});

    // Other spaces stay refused.
    std::string text = out.str();
    text.replace(text.find("\"space\":\"snapshot\""), 18, "\"space\":\"snapshots\"");
    std::istringstream in(text);
    try {
        parse_trace(in, "snap.jsonl");
        FAIL("a memory line of space 'snapshots' was accepted");
    } catch (const TraceError& e) {
        CHECK_THAT(e.what(), Catch::Contains("memory: space 'snapshots'; allowed: global, shared, snapshot"));
    }
}

TEST_CASE("the diff compares snapshots byte for byte, by name and cta", "[traces][snapshot]") {
    const RunResult a = with_snapshots();
    SECTION("equal snapshots match") {
        const DiffReport d = diff_traces(a, round_trip(a));
        CHECK(d.functional_match());
        CHECK(snapshot_diff(d, "put[3]:stage[1]", 0).status == MemoryDiff::Status::equal);
        CHECK_THAT(diff_text(d), Catch::Contains("  snapshot put[3]:stage[1] cta 0: match (8 bytes)\n"));
        // Snapshots are listed after the globals and the final shared buffers.
        REQUIRE(d.memory.size() == 4);
        CHECK(d.memory[0].space == "global");
        CHECK(d.memory[1].space == "shared");
        CHECK(d.memory[3].space == "snapshot");
    }
    SECTION("one differing byte is a functional mismatch") {
        RunResult b = with_snapshots();
        b.memory[2].bytes[5] ^= 0x40;
        const DiffReport d = diff_traces(a, b);
        CHECK_FALSE(d.memory_match());
        CHECK_FALSE(d.functional_match());
        const MemoryDiff& m = snapshot_diff(d, "put[3]:stage[1]", 0);
        CHECK(m.first_diff == 5);
        CHECK(m.diff_count == 1);
        CHECK(snapshot_diff(d, "#7:tile", 1).status == MemoryDiff::Status::equal);
        CHECK_THAT(diff_text(d), Catch::Contains("  snapshot put[3]:stage[1] cta 0: MISMATCH: 1 of 8 bytes differ, "
                                                 "first at byte offset 5\n"));
    }
    SECTION("the same name in another CTA is another snapshot") {
        RunResult b = with_snapshots();
        b.memory[3].cta = 0;
        const DiffReport d = diff_traces(a, b);
        CHECK_FALSE(d.memory_match());
        CHECK(snapshot_diff(d, "#7:tile", 1).status == MemoryDiff::Status::missing_in_b);
        CHECK(snapshot_diff(d, "#7:tile", 0).status == MemoryDiff::Status::missing_in_a);
        CHECK_THAT(diff_text(d), Catch::Contains("  snapshot #7:tile cta 1: MISMATCH: taken in A only\n"));
    }
    SECTION("a snapshot on one side only is a mismatch, unlike a final shared buffer") {
        RunResult b = with_snapshots();
        b.memory.erase(b.memory.begin() + 1);  // the shared buffer: not compared
        CHECK(diff_traces(a, b).memory_match());
        b.memory.pop_back();                   // the snapshot: a mismatch
        const DiffReport d = diff_traces(a, b);
        CHECK_FALSE(d.memory_match());
        CHECK(snapshot_diff(d, "#7:tile", 1).is_mismatch);
    }
    SECTION("after a fault the lacking side is not blamed") {
        RunResult b = with_snapshots();
        b.outcome = Outcome::fault;
        b.memory.clear();
        const DiffReport d = diff_traces(a, b);
        CHECK_FALSE(snapshot_diff(d, "#7:tile", 1).is_mismatch);
        CHECK_THAT(diff_text(d), Catch::Contains("snapshot #7:tile cta 1: not compared: taken in A only (the other "
                                                 "run could not read it back)"));
    }
}

TEST_CASE("summary and Chrome export list the snapshots", "[traces][snapshot]") {
    const RunResult r = with_snapshots();
    std::ostringstream summary;
    print_summary(r, summary);
    CHECK_THAT(summary.str(), Catch::Contains("snapshot put[3]:stage[1] (cta 0)"));
    CHECK_THAT(summary.str(), Catch::Contains("snapshot #7:tile (cta 1)"));
    std::ostringstream chrome;
    write_chrome_trace(r, chrome);
    const auto doc = nlohmann::json::parse(chrome.str());
    const std::string hash = fnv1a64_hex(r.memory[2].bytes.data(), r.memory[2].bytes.size());
    CHECK(doc["otherData"]["snapshot cta0 put[3]:stage[1]"] == "8 bytes, fnv1a64 " + hash);
    CHECK(doc["otherData"]["snapshot cta1 #7:tile"].get<std::string>().rfind("2 bytes, fnv1a64 ", 0) == 0);
}
