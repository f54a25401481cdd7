// shared.snapshot in the scenario language: loading, the one-thread selector rule, the
// instances a CTA executes and their image names (which both backends use).
#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"
#include "scenarios/snapshot.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_snapshot_format {

namespace {

const char* kBase = R"(scenario: snap_format
launch: {grid: [2], block: 64}
global:
  G: {type: i32, shape: [256], init: iota}
shared:
  tile: {type: i32, shape: [64]}
  ring: {type: u8, shape: [40], align: 16, array: 3}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: sync}
  - {op: shared.snapshot, buffer: tile, by: thread0, label: first}
  - op: loop
    var: i
    count: 4
    body:
      - {op: shared.snapshot, buffer: "ring[(i+cta)%3]", by: elected1}
      - {op: shared.snapshot, buffer: tile, by: "tid == 63"}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "snap.yaml"); }

const std::string kOneThread =
    "allowed: a selector of exactly one thread (threadN, elected, electedW, or an expression such as \"tid == 3\")";

}  // namespace

TEST_CASE("shared.snapshot loads with its buffer reference and selector", "[snapshot]") {
    const Scenario sc = load_scenario_text(kBase, "snap.yaml");
    const Op& first = sc.program[2];
    CHECK(first.kind == OpKind::shared_snapshot);
    CHECK(to_string(first.kind) == "shared.snapshot");
    CHECK(first.buffer.name == "tile");
    CHECK(first.buffer.index.empty());
    CHECK(first.by.kind == Selector::Kind::thread);
    const Op& ring = sc.program[3].body[0];
    CHECK(ring.buffer.name == "ring");
    CHECK(ring.buffer.index.eval_int({{"i", 2}, {"cta", 1}}) == 0);
    CHECK(ring.by.kind == Selector::Kind::elected);
    CHECK(ring.by.n == 1);
}

TEST_CASE("a snapshot's selector must pick exactly one thread", "[snapshot]") {
    CHECK(error_of(with("by: thread0, label: first", "by: warp1, label: first")) ==
          "snap.yaml:13:5: error: shared.snapshot.by: \"warp1\" selects 32 threads of the 64-thread block; " + kOneThread);
    CHECK(error_of(with("by: thread0, label: first", "label: first")) ==
          "snap.yaml:13:5: error: shared.snapshot.by: \"all\" selects 64 threads of the 64-thread block; " + kOneThread);
    CHECK(error_of(with("by: elected1}", "by: not_elected}")) ==
          "snap.yaml:18:9: error: shared.snapshot.by: \"not_elected\" selects 63 threads of the 64-thread block; " +
              kOneThread);
    // A predicate is reported at its own text.
    CHECK(error_of(with("by: \"tid == 63\"", "by: \"tid >= 62\"")) ==
          "snap.yaml:19:50: error: shared.snapshot.by: \"tid >= 62\" selects 2 threads of the 64-thread block; " +
              kOneThread);
    CHECK(error_of(with("by: \"tid == 63\"", "by: \"tid == 64\"")) ==
          "snap.yaml:19:50: error: shared.snapshot.by: \"tid == 64\" selects no thread of the 64-thread block");
}

TEST_CASE("a snapshot's keys and buffer are checked like any op's", "[snapshot]") {
    CHECK(error_of(with("buffer: tile, by: thread0", "buffer: tile, index: 0, by: thread0")) ==
          "snap.yaml:13:41: error: program[2].index: unknown key; allowed: op, by, label, trace, buffer (for shared.snapshot)");
    CHECK(error_of(with("buffer: tile, by: thread0", "buffer: tiles, by: thread0")) ==
          "snap.yaml:13:35: error: shared.snapshot.buffer: no shared buffer named 'tiles'; declared: tile, ring");
    CHECK(error_of(with("buffer: tile, by: thread0, label", "by: thread0, label")) ==
          "snap.yaml:13:5: error: program[2].buffer: required key is missing");
    // The index is evaluated for every iteration of every CTA; the column is the
    // expression's own, inside the quoted reference.
    CHECK(error_of(with("\"ring[(i+cta)%3]\"", "\"ring[i+cta]\"")) ==
          "snap.yaml:18:45: error: shared.snapshot.buffer: \"i + cta\" evaluates to 3 (i=3); allowed: 0..2");
}

TEST_CASE("the snapshots of a program are bounded in bytes", "[snapshot]") {
    // Two CTAs x 128 snapshots of 64 KiB are exactly the 16 MiB allowed; one more is not.
    const std::string at_cap = R"(scenario: snap_cap
launch: {grid: [2], block: 32}
shared:
  big: {type: u8, shape: [65536], align: 16}
program:
  - {op: loop, var: j, count: 128, body: [{op: shared.snapshot, buffer: big, by: thread0}]}
)";
    CHECK_NOTHROW(load_scenario_text(at_cap, "cap.yaml"));
    CHECK(test::error_of(test::with(at_cap, "count: 128", "count: 129"), "cap.yaml") ==
          "cap.yaml:6:43: error: shared.snapshot.buffer: the program's snapshots take more than 16777216 bytes over "
          "all CTAs and iterations; allowed: at most 16777216 (snapshot fewer or smaller buffers)");
}

TEST_CASE("snapshot instances follow each CTA's loops, and their names are stable", "[snapshot]") {
    const Scenario sc = load_scenario_text(kBase, "snap.yaml");
    const std::vector<SnapshotInstance> cta1 = snapshot_instances(sc, 1);
    REQUIRE(cta1.size() == 9);
    std::vector<std::string> names;
    for (const SnapshotInstance& i : cta1) names.push_back(snapshot_image_name(*i.op, i.iters, i.buffer));
    CHECK(names == std::vector<std::string>{"first:tile", "#4[0]:ring[1]", "#5[0]:tile", "#4[1]:ring[2]", "#5[1]:tile",
                                            "#4[2]:ring[0]", "#5[2]:tile", "#4[3]:ring[1]", "#5[3]:tile"});
    CHECK(cta1[0].bytes == 256);
    CHECK(cta1[1].bytes == 40);
    CHECK(snapshot_instances(sc, 0)[1].buffer == "ring[0]");
    Op nested;
    nested.id = 9;
    CHECK(snapshot_image_name(nested, {1, 0}, "stage[0]") == "#9[1,0]:stage[0]");
}

}  // namespace test_snapshot_format
