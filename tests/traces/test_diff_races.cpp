// tmasim diff past the raw compare: a hazard the hardware did not show, the model's arch
// against the trace's GPU, differing bytes decoded by element type, and a timing summary
// that counts what the table stars.
#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "traces/trace_diff.h"

using namespace tmasim;
using tmasim_test::make_event;
using tmasim_test::sample_run;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_diff_races {

namespace {

std::string printed(const DiffReport& r) {
    std::ostringstream out;
    print_diff(r, out);
    return out.str();
}

// sample_run() is a model run with a proxy.generic_to_async hazard at op #1[0][1] naming
// buffer `tile`; this is the same program as a GPU ran it: no hazard, same bytes.
RunResult device_run() {
    RunResult d = sample_run();
    d.provenance.backend = "device";
    d.provenance.gpu = "NVIDIA H100 80GB HBM3";
    d.provenance.model_config = "";
    d.outcome = Outcome::ok;
    d.diagnostics.clear();
    for (TraceEvent& e : d.events) e.model_only = false;
    return d;
}

}  // namespace

TEST_CASE("diff: a model hazard the device did not show is no functional mismatch", "[traces][diff]") {
    DiffOptions options;
    options.op_names = {{1, "tma.store"}};
    DiffReport r = diff_traces(sample_run(), device_run(), options);
    CHECK_FALSE(r.outcome_match());
    CHECK(r.outcome_agrees());
    CHECK(r.functional_match());
    REQUIRE(r.races_not_observed.size() == 1);
    CHECK(r.races_not_observed[0] == "proxy.generic_to_async at #1[0][1] tma.store");
    const std::string text = printed(r);
    CHECK(text.find("race predicted by the model, not observable on hardware: proxy.generic_to_async at #1[0][1] "
                    "tma.store") != std::string::npos);
    CHECK(text.find("RESULT: functional match") != std::string::npos);

    // The direction does not matter: the device as A, the model as B.
    CHECK(diff_traces(device_run(), sample_run()).functional_match());
}

TEST_CASE("diff: a hazard against another model run, or against a device hang, stays a mismatch", "[traces][diff]") {
    RunResult other_model = sample_run();
    other_model.outcome = Outcome::ok;
    other_model.diagnostics.clear();
    DiffReport models = diff_traces(sample_run(), other_model);
    CHECK(models.races_not_observed.empty());
    CHECK_FALSE(models.functional_match());

    RunResult hung = device_run();
    hung.outcome = Outcome::hang;
    CHECK_FALSE(diff_traces(sample_run(), hung).functional_match());
}

TEST_CASE("diff: bytes of the buffer a race names may differ, others still count", "[traces][diff]") {
    RunResult device = device_run();
    device.memory[1].bytes[2] ^= 0xff;  // shared `tile`, the race's buffer
    DiffReport raced = diff_traces(sample_run(), device);
    CHECK(raced.memory[1].race_dependent);
    CHECK_FALSE(raced.memory[1].is_mismatch);
    CHECK(raced.functional_match());
    CHECK(printed(raced).find("MEMORY: match outside the raced buffers") != std::string::npos);

    device.memory[0].bytes[0] ^= 0x01;  // global A: no race names it
    DiffReport global = diff_traces(sample_run(), device);
    CHECK_FALSE(global.memory[0].race_dependent);
    CHECK_FALSE(global.functional_match());
    CHECK(printed(global).find("NOTE: bytes differ outside the buffers the model's race names") != std::string::npos);
}

TEST_CASE("diff: warns when the model's arch config is not the trace's GPU", "[traces][diff]") {
    CHECK(arch_config_for_gpu("NVIDIA H200") == "h200");
    CHECK(arch_config_for_gpu("NVIDIA H100 80GB HBM3") == "h100-sxm");
    CHECK(arch_config_for_gpu("NVIDIA H100 PCIe") == "");
    CHECK(arch_config_for_gpu("NVIDIA B200") == "b200");

    RunResult device = device_run();
    CHECK(diff_traces(sample_run(), device).arch_warning.empty());  // h100-sxm vs an H100 SXM
    device.provenance.gpu = "NVIDIA H200";
    DiffReport r = diff_traces(sample_run(), device);
    CHECK(r.arch_warning.find("arch config h100-sxm") != std::string::npos);
    CHECK(r.arch_warning.find("NVIDIA H200 (config h200)") != std::string::npos);
    CHECK(printed(r).find("WARNING: the model ran with arch config h100-sxm") != std::string::npos);
    CHECK(r.functional_match());  // a warning, not a verdict
}

TEST_CASE("diff: differing bytes are listed with offsets and both values, decoded by type", "[traces][diff]") {
    RunResult a = sample_run(), b = sample_run();
    // Global A is 8 bytes: as i32, elements 0 and 1. Change element 1 from 0x40302010.
    b.memory[0].bytes[4] = 0x11;
    b.memory[0].bytes[7] = 0x00;
    DiffOptions options;
    options.element_types = {{"global:A", DType::i32}, {"shared:tile", DType::u8}};
    DiffReport r = diff_traces(a, b, options);
    const MemoryDiff& g = r.memory[0];
    CHECK(g.diff_count == 2);
    CHECK(g.bytes.type == "i32");
    CHECK(g.bytes.elements_differing == 1);
    REQUIRE(g.bytes.first.size() == 1);
    CHECK(g.bytes.first[0].element == 1);
    CHECK(g.bytes.first[0].offset == 4);
    CHECK(g.bytes.first[0].a == std::to_string(0x40302010));
    CHECK(g.bytes.first[0].b == std::to_string(0x00302011));
    CHECK(printed(r).find("    element 1 (bytes 4..7, i32): A 1076895760, B 3153937") != std::string::npos);

    // Without types: bytes in hex, at most `differences_shown`, then a count of the rest.
    RunResult c = sample_run();
    for (uint8_t& byte : c.memory[0].bytes) byte ^= 0x0f;
    DiffOptions few;
    few.differences_shown = 3;
    DiffReport hex = diff_traces(a, c, few);
    CHECK(hex.memory[0].bytes.type == "bytes");
    REQUIRE(hex.memory[0].bytes.first.size() == 3);
    CHECK(hex.memory[0].bytes.first[2].a == "0xab");
    CHECK(hex.memory[0].bytes.first[2].b == "0xa4");
    const std::string text = printed(hex);
    CHECK(text.find("    byte 2: A 0xab, B 0xa4") != std::string::npos);
    CHECK(text.find("    ... 5 more differing bytes") != std::string::npos);
}

TEST_CASE("diff: decodes floats and names snapshots by their buffer", "[traces][diff]") {
    const ElementTypes types = {{"shared:stage", DType::f32}, {"global:stage", DType::i32}};
    CHECK(element_type_of(types, "snapshot", "put[3]:stage[1]") == DType::f32);
    CHECK(element_type_of(types, "shared", "stage[0]") == DType::f32);
    CHECK(element_type_of(types, "global", "stage") == DType::i32);
    CHECK_FALSE(element_type_of(types, "global", "other").has_value());
    std::vector<uint8_t> x(8, 0), y(8, 0);
    y[7] = 0x3f;
    y[6] = 0xc0;  // 1.5f little-endian: 00 00 c0 3f
    ByteDifferences d = differing_elements(x, y, DType::f32, 8);
    REQUIRE(d.first.size() == 1);
    CHECK(d.first[0].element == 1);
    CHECK(d.first[0].a == "0");
    CHECK(d.first[0].b == "1.5");
}

TEST_CASE("diff: the summary's over-tolerance count is the number of starred rows", "[traces][diff]") {
    // Event times within tolerance, durations far off: the starred rows are all durations.
    RunResult a, b;
    a.events = {make_event(0, 0, 0, EventKind::issue, 1000), make_event(0, 0, 0, EventKind::complete, 1100),
                make_event(1, 0, 0, EventKind::issue, 2000), make_event(1, 0, 0, EventKind::complete, 2010)};
    b.events = {make_event(0, 0, 0, EventKind::issue, 1000), make_event(0, 0, 0, EventKind::complete, 1050),
                make_event(1, 0, 0, EventKind::issue, 2000), make_event(1, 0, 0, EventKind::complete, 2020)};
    DiffReport r = diff_traces(a, b);
    CHECK(r.events.over_tolerance == 0);
    CHECK(r.durations.over_tolerance == 2);
    CHECK(r.timing_over_tolerance() == 2);
    const std::string text = printed(r);
    size_t stars = 0;
    for (size_t at = text.find(" *\n"); at != std::string::npos; at = text.find(" *\n", at + 1)) ++stars;
    CHECK(stars == 2);
    CHECK(text.find("over tolerance: 2 of 6 rows (0 event times, 2 durations)") != std::string::npos);
    CHECK(text.find("the worst 6 of 6 rows (event times and :duration rows), 2 of them *") != std::string::npos);
    // The summary comes before the table it counts.
    CHECK(text.find("over tolerance: 2 of 6") < text.find(" *\n"));
}

}  // namespace test_diff_races
