#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "sample_run.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using namespace tmasim;
using tmasim_test::sample_run;

namespace {

std::string written(const RunResult& r, const OpNames& names = {}) {
    std::ostringstream out;
    write_trace(r, out, names);
    return out.str();
}

TraceFile parsed(const std::string& text) {
    std::istringstream in(text);
    return parse_trace(in, "mem.jsonl");
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

}  // namespace

TEST_CASE("a trace read back equals the run that was written", "[traces]") {
    RunResult r = sample_run();
    OpNames names{{0, "tma.load"}, {1, "mbarrier.wait"}};
    std::string path = "/tmp/tmasim_test_roundtrip.jsonl";
    write_trace_file(r, path, names);
    TraceFile back = read_trace_file(path);
    CHECK(tmasim_test::same_run(back.result, r));
    CHECK(back.op_names == names);
    std::remove(path.c_str());
}

TEST_CASE("writing one run twice gives byte-identical text, in FORMAT.md order", "[traces]") {
    RunResult r = sample_run();
    std::string first = written(r), second = written(r);
    CHECK(first == second);
    // Read-then-write is a fixed point too: nothing is lost or reordered by the reader.
    CHECK(written(parsed(first).result) == first);

    auto lines = lines_of(first);
    REQUIRE(lines.size() == 1 + 5 + 1 + 2 + 1);
    CHECK(lines.front().rfind(R"({"type":"header","format":"tmasim-trace","version":1,)", 0) == 0);
    CHECK(lines[1].find(R"("key":"op0@cta0.w0.l0:issue")") != std::string::npos);
    CHECK(lines[4].find(R"("what":"phase_flip")") != std::string::npos);
    CHECK(lines[5].find(R"("t_ns":160)") != std::string::npos);
    CHECK(lines[1].find("t_ns") == std::string::npos);  // absent when the backend has no timer
    CHECK(lines[7].find(R"("hex":"0001abff10203040")") != std::string::npos);
    CHECK(lines.back() == R"({"type":"outcome","outcome":"hazard"})");
}

TEST_CASE("the writer sorts events by (cta, t, op, warp, lane, kind)", "[traces]") {
    RunResult r = sample_run();
    RunResult shuffled = r;
    std::reverse(shuffled.events.begin(), shuffled.events.end());
    CHECK(written(shuffled) == written(r));
}

TEST_CASE("a truncated trace is an error naming the file and line", "[traces]") {
    auto lines = lines_of(written(sample_run()));
    lines.pop_back();  // the outcome line
    try {
        parsed(joined(lines));
        FAIL("no error");
    } catch (const TraceError& e) {
        CHECK(std::string(e.what()) == "mem.jsonl:" + std::to_string(lines.size()) +
                                           ": truncated trace: no final outcome line (the run or the write was "
                                           "cut short)");
    }
    // A line cut in the middle is invalid JSON at that line.
    lines = lines_of(written(sample_run()));
    lines[3] = lines[3].substr(0, lines[3].size() / 2);
    CHECK_THROWS_WITH(parsed(joined(lines)), Catch::StartsWith("mem.jsonl:4: invalid JSON"));
}

TEST_CASE("the reader rejects other formats, versions and inconsistent lines", "[traces]") {
    auto lines = lines_of(written(sample_run()));
    auto with_line = [&](size_t i, const std::string& from, const std::string& to) {
        auto copy = lines;
        auto pos = copy[i].find(from);
        REQUIRE(pos != std::string::npos);
        copy[i].replace(pos, from.size(), to);
        return joined(copy);
    };
    CHECK_THROWS_WITH(parsed(""), "mem.jsonl:0: empty file, not a tmasim trace");
    CHECK_THROWS_WITH(parsed(with_line(0, R"("version":1)", R"("version":2)")),
                      Catch::Contains("mem.jsonl:1: trace format version 2 is not supported"));
    CHECK_THROWS_WITH(parsed(with_line(0, "tmasim-trace", "other")), Catch::Contains("mem.jsonl:1: not a tmasim"));
    CHECK_THROWS_WITH(parsed(with_line(1, R"("t":10)", R"("t":11,"bogus":1)")),
                      Catch::Contains("mem.jsonl:2: event: unknown key 'bogus'"));
    CHECK_THROWS_WITH(parsed(with_line(1, R"("kind":"issue")", R"("kind":"complete")")),
                      Catch::Contains("does not match its fields"));
    CHECK_THROWS_WITH(parsed(with_line(7, "0001abff", "0001abfe")), Catch::Contains("fnv1a64"));
    CHECK_THROWS_WITH(parsed(with_line(1, R"("cta":0,)", "")), Catch::Contains("missing key 'cta'"));
    // Sections may not go backwards: an event after the memory lines.
    auto moved = lines;
    std::swap(moved[1], moved[8]);
    CHECK_THROWS_WITH(parsed(joined(moved)), Catch::Contains("line after a"));
    CHECK_THROWS_WITH(parsed(joined(lines) + joined({lines.back()})), Catch::Contains("text after the outcome"));
    CHECK_THROWS_WITH(read_trace("/nonexistent/trace.jsonl"), "/nonexistent/trace.jsonl:0: cannot open trace file");
}

TEST_CASE("hex round trips and rejects non-hex", "[traces]") {
    std::vector<uint8_t> bytes{0, 1, 0x7f, 0x80, 0xff};
    CHECK(to_hex(bytes) == "00017f80ff");
    CHECK(from_hex("00017F80ff") == bytes);
    CHECK_FALSE(from_hex("0g"));
    CHECK_FALSE(from_hex("abc"));
}
