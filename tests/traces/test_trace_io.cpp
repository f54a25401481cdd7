#include <catch2/catch.hpp>

#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sample_run.h"
#include "scenarios/xxh64.h"
#include "traces/trace_line_writer.h"
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

std::vector<TraceEvent> events_copy_in_order(const RunResult& r) {
    std::vector<TraceEvent> out;
    for (const TraceEvent* e : events_in_trace_order(r)) out.push_back(*e);
    return out;
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
    CHECK(lines.front().rfind(R"({"type":"header","format":"tmasim-trace","version":4,)", 0) == 0);
    CHECK(lines[1].rfind(R"({"type":"event","op":0,"name":"",)", 0) == 0);
    CHECK(lines[1].find("model_only") == std::string::npos);  // version 3: absent when false
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
    // A backend that says its events are in order already is taken at its word (the model's
    // sorted log skips the check); in order, that is the same text.
    RunResult sorted_by_backend = r;
    sorted_by_backend.events = events_copy_in_order(r);
    sorted_by_backend.events_sorted = true;
    CHECK(written(sorted_by_backend) == written(r));
    shuffled.events_sorted = true;
    CHECK(written(shuffled) != written(r));
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
    CHECK_THROWS_WITH(parsed(with_line(0, R"("version":4)", R"("version":5)")),
                      Catch::Contains("mem.jsonl:1: trace format version 5 is not supported"));
    CHECK_THROWS_WITH(parsed(with_line(0, "tmasim-trace", "other")), Catch::Contains("mem.jsonl:1: not a tmasim"));
    CHECK_THROWS_WITH(parsed(with_line(1, R"("t":10)", R"("t":11,"bogus":1)")),
                      Catch::Contains("mem.jsonl:2: event: unknown key 'bogus'"));
    CHECK_THROWS_WITH(parsed(with_line(1, R"("kind":"issue")", R"("kind":"started")")),
                      Catch::Contains("mem.jsonl:2: event: unknown kind 'started'"));
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

TEST_CASE("a trace with an image of kSidecarMinBytes puts its images of 4 KiB on in the sidecar", "[traces]") {
    RunResult r = sample_run();
    std::vector<uint8_t> big(kSidecarMinBytes), page(kSidecarImageMinBytes, 0x5a);
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7 + 3);
    r.memory.insert(r.memory.begin() + 1, MemoryImage{"big", "global", 0, big});
    r.memory.push_back(MemoryImage{"page", "shared", 0, page});
    const std::string path = "/tmp/tmasim_test_sidecar.jsonl";
    write_trace_file(r, path);
    std::ifstream in(path);
    std::string header, line, memory_lines;
    std::getline(in, header);
    while (std::getline(in, line))
        if (line.rfind(R"({"type":"memory")", 0) == 0) memory_lines += line + "\n";
    CHECK(header.find(R"("version":4,)") != std::string::npos);
    // From kXxh64MinBytes on an image is hashed with XXH64 (version 4), below with FNV-1a.
    CHECK(memory_lines.find(R"("name":"big","space":"global","cta":0,"size":1048576,"xxh64":")" +
                            xxh64_hex(big.data(), big.size()) + "\"") != std::string::npos);
    CHECK(memory_lines.find(R"("sidecar":"tmasim_test_sidecar.jsonl.mem","offset":0})") != std::string::npos);
    CHECK(memory_lines.find(R"("sidecar":"tmasim_test_sidecar.jsonl.mem","offset":1048576})") != std::string::npos);
    // The small images stay inline.
    CHECK(memory_lines.find(R"("name":"A","space":"global","cta":0,"size":8,"fnv1a64":")") != std::string::npos);
    CHECK(memory_lines.find(R"("hex":"0001abff10203040")") != std::string::npos);
    std::ifstream sidecar(sidecar_path_of(path), std::ios::binary | std::ios::ate);
    CHECK(static_cast<size_t>(sidecar.tellg()) == kSidecarMinBytes + kSidecarImageMinBytes);
    CHECK(tmasim_test::same_run(read_trace(path), r));

    // Without a large image the same path gets every image inline and the old sidecar goes.
    write_trace_file(sample_run(), path);
    CHECK(!std::ifstream(sidecar_path_of(path)).good());
    CHECK(written(sample_run()) == [&] {
        std::ifstream again(path);
        std::stringstream s;
        s << again.rdbuf();
        return s.str();
    }());
    std::remove(path.c_str());
}

TEST_CASE("a large image equal to its declared init is written as its size and hash, its bytes on request",
          "[traces]") {
    RunResult r = sample_run();
    MemoryImage input{"input", "global", 0, std::vector<uint8_t>(kSidecarMinBytes, 3)};
    input.equals_init = true;
    r.memory.insert(r.memory.begin(), input);
    const std::string path = "/tmp/tmasim_test_digest.jsonl";
    write_trace_file(r, path);
    const std::string hash = xxh64_hex(input.bytes.data(), input.bytes.size());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find(R"({"type":"memory","name":"input","space":"global","cta":0,"size":1048576,"xxh64":")" +
                          hash + R"(","init_unchanged":true})") != std::string::npos);
    CHECK(!std::ifstream(sidecar_path_of(path)).good());  // the rest is small: inline
    const RunResult back = read_trace(path);
    REQUIRE(back.memory.front().digest_only);
    CHECK(back.memory.front().bytes.empty());
    CHECK(image_size(back.memory.front()) == kSidecarMinBytes);
    CHECK(image_hash(back.memory.front()) == ImageHash{"xxh64", hash});
    // Written again from what was read: the same text.
    CHECK(written(back) == text.str());

    TraceWriteOptions all;
    all.all_memory_bytes = true;
    write_trace_file(r, path, {}, all);
    const RunResult full = read_trace(path);
    CHECK(!full.memory.front().digest_only);
    CHECK(full.memory.front().bytes == input.bytes);
    std::remove(path.c_str());
    std::remove(sidecar_path_of(path).c_str());
}

TEST_CASE("event lines name their op from the names given, an unknown op with an empty name", "[traces]") {
    // Ids the names skip, ids past the last name and negative ids; and names with a negative
    // id, which the writer looks up in the map itself.
    for (const OpNames& names : {OpNames{{0, "zero"}, {2, "two"}}, OpNames{{-3, "minus"}, {2, "two"}}}) {
        RunResult r;
        for (int op : {-3, 0, 1, 2, 5}) {
            TraceEvent e;
            e.op = op;
            e.t = op + 3;  // trace order: -3, 0, 1, 2, 5
            r.events.push_back(e);
        }
        std::vector<std::string> got;
        for (const std::string& line : lines_of(written(r, names))) {
            const auto j = nlohmann::json::parse(line);
            if (j["type"] == "event") got.push_back(j["name"]);
        }
        const auto name = [&](int op) {
            auto it = names.find(op);
            return it == names.end() ? std::string() : it->second;
        };
        CHECK(got == std::vector<std::string>{name(-3), name(0), name(1), name(2), name(5)});
    }
}

TEST_CASE("an event line is the bytes nlohmann gives for the same object", "[traces]") {
    using Json = nlohmann::ordered_json;
    // The object the line must spell, built key by key (the events below have what, detail and
    // model_only set; t_ns only when it is not negative).
    const auto expected = [](const TraceEvent& ev, const std::string& name) {
        Json j;
        j["type"] = "event";
        j["op"] = ev.op;
        j["name"] = name;
        j["iters"] = ev.iters;
        j["cta"] = ev.cta;
        j["warp"] = ev.warp;
        j["lane"] = ev.lane;
        j["kind"] = to_string(ev.kind);
        j["t"] = ev.t;
        if (ev.t_ns >= 0) j["t_ns"] = ev.t_ns;
        j["model_only"] = ev.model_only;
        j["what"] = ev.what;
        j["detail"] = Json::object();
        for (const auto& [k, v] : ev.detail) j["detail"][k] = v;
        return j;
    };
    TraceEvent e;
    e.op = 12;
    e.iters = {3, 65535};
    e.cta = 131;
    e.warp = 31;
    e.lane = 7;
    e.kind = EventKind::wait_end;
    e.t = int64_t(1) << 53;
    e.model_only = true;
    for (int64_t t_ns : {int64_t(-1), int64_t(0), int64_t(123456789)}) {
        // The last, long enough to leave the writer's line buffer, takes its slow path too.
        for (const std::string& odd : std::vector<std::string>{"plain", "quote\" back\\slash", "tab\tnl\n\x01",
                                                               "caf\xc3\xa9", "bad\xff", std::string(1500, 'x')}) {
            e.t_ns = t_ns;
            e.what = odd;
            e.detail = {{"barrier", odd}, {odd, "1"}};
            // Version 3: no key, model_only only when true, detail only when not empty.
            const Json j = expected(e, odd);
            std::string line;
            append_event_line(line, e, odd);
            INFO(odd << " t_ns " << t_ns);
            CHECK(line == j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace));
        }
    }
    // The widest numbers, on the buffered path (plain strings) and past its size (many iters).
    for (size_t iters : {size_t(2), size_t(60)}) {
        TraceEvent wide;
        wide.op = std::numeric_limits<int>::min();
        wide.iters.assign(iters, std::numeric_limits<int64_t>::min());
        wide.cta = wide.warp = wide.lane = std::numeric_limits<int>::min();
        wide.kind = EventKind::wait_begin;
        wide.t = std::numeric_limits<int64_t>::min();
        wide.t_ns = std::numeric_limits<int64_t>::max();
        wide.model_only = true;
        wide.what = "complete_tx";
        wide.detail = {{"bytes", "16384"}, {"barrier", "full[3]"}};
        const Json j = expected(wide, "mbarrier.wait");
        std::string line = "kept:";
        append_event_line(line, wide, "mbarrier.wait");
        INFO(iters << " iters");
        CHECK(line == "kept:" + j.dump());
    }
    // Numbers on each side of put_int's one- and two-digit shortcuts, and negative ones.
    TraceEvent counted;
    counted.op = 99;
    counted.iters = {0, 9, 10, 11, 42, 99, 100, 101, 999, 1000, -1, -9, -10, -99, -100, 123456789012};
    counted.cta = 100;
    counted.warp = 10;
    counted.lane = 9;
    counted.kind = EventKind::issue;
    counted.t = 180722;
    counted.t_ns = 0;
    counted.model_only = true;
    counted.what = "phase_flip";
    counted.detail = {{"phase", "1"}};
    std::string counted_line;
    append_event_line(counted_line, counted, "loop");
    CHECK(counted_line == expected(counted, "loop").dump());
    TraceEvent plain;
    plain.op = 2;
    plain.kind = EventKind::issue;
    plain.t = 40;
    std::string line;
    append_event_line(line, plain, "sync");
    CHECK(line == R"({"type":"event","op":2,"name":"sync","iters":[],"cta":0,"warp":0,"lane":0,"kind":"issue","t":40})");
}

TEST_CASE("an event line reads the same on the reader's fast path and in any other JSON spelling", "[traces]") {
    // The writer's own spelling takes the fast path (event_line_reader.h); the same object
    // with spaces, other key order or escapes goes the general way. Both give one event,
    // in version 3 (no key) as in version 2 (with it).
    const std::string v3_header = lines_of(written(sample_run())).front();
    std::string v2_header = v3_header;
    v2_header.replace(v2_header.find(R"("version":4,)"), 12, R"("version":2,)");
    const std::string tail = R"({"type":"outcome","outcome":"ok"})";
    const std::vector<std::pair<std::string, std::string>> spellings{
        {v2_header, R"({"type":"event","key":"op3[2,0]@cta5.w1.l0:state","op":3,"name":"tma.load","iters":[2,0],"cta":5,"warp":1,"lane":0,"kind":"state","t":77,"t_ns":9,"model_only":true,"what":"complete_tx","detail":{"a":"1","bytes":"256"}})"},
        {v2_header, R"({ "type": "event", "key": "op3[2,0]@cta5.w1.l0:state", "op": 3, "name": "tma.load", "iters": [2, 0], "cta": 5, "warp": 1, "lane": 0, "kind": "state", "t": 77, "t_ns": 9, "model_only": true, "what": "complete_tx", "detail": {"a": "1", "bytes": "256"} })"},
        {v2_header, R"({"detail":{"bytes":"256","a":"1"},"what":"complete\u005ftx","model_only":true,"t_ns":9,"t":77,"kind":"state","lane":0,"warp":1,"cta":5,"iters":[2,0],"name":"tma.load","op":3,"key":"op3[2,0]@cta5.w1.l0:state","type":"event"})"},
        {v3_header, R"({"type":"event","op":3,"name":"tma.load","iters":[2,0],"cta":5,"warp":1,"lane":0,"kind":"state","t":77,"t_ns":9,"model_only":true,"what":"complete_tx","detail":{"a":"1","bytes":"256"}})"},
        {v3_header, R"({"detail":{"bytes":"256","a":"1"},"what":"complete\u005ftx","model_only":true,"t_ns":9,"t":77,"kind":"state","lane":0,"warp":1,"cta":5,"iters":[2,0],"name":"tma.load","op":3,"type":"event"})"},
    };
    for (const auto& [header, line] : spellings) {
        INFO(line);
        const TraceFile f = parsed(header + "\n" + line + "\n" + tail + "\n");
        REQUIRE(f.result.events.size() == 1);
        const TraceEvent& e = f.result.events.front();
        CHECK(e.key() == "op3[2,0]@cta5.w1.l0:state");
        CHECK(e.t == 77);
        CHECK(e.t_ns == 9);
        CHECK(e.model_only);
        CHECK(e.what == "complete_tx");
        CHECK(e.detail == std::map<std::string, std::string>{{"a", "1"}, {"bytes", "256"}});
        CHECK(f.op_names.at(3) == "tma.load");
    }
    // Lines the fast path declines are still judged by the general reader.
    auto with = [&](size_t spelling, const std::string& from, const std::string& to) {
        std::string line = spellings[spelling].second;
        line.replace(line.find(from), from.size(), to);
        return spellings[spelling].first + "\n" + line + "\n" + tail + "\n";
    };
    for (size_t canonical : {size_t(0), size_t(3)}) {
        CHECK_THROWS_WITH(parsed(with(canonical, "\"t\":77", "\"t\":077")), Catch::Contains("invalid JSON"));
        CHECK_THROWS_WITH(parsed(with(canonical, "\"warp\":1", "\"warp\":32")),
                          Catch::Contains("'warp' is 32; allowed: 0..31"));
        CHECK_THROWS_WITH(parsed(with(canonical, "\"bytes\":\"256\"", "\"bytes\":256")),
                          Catch::Contains("'detail.bytes' must be a string"));
        CHECK_THROWS_WITH(parsed(with(canonical, "}}", "},\"extra\":1}")), Catch::Contains("unknown key 'extra'"));
        // A repeated detail key is refused (it once kept the last value in silence: issue 40).
        CHECK_THROWS_WITH(parsed(with(canonical, "\"a\":\"1\"", "\"bytes\":\"1\"")),
                          Catch::Contains("the key 'bytes' appears twice in one object"));
    }
    CHECK_THROWS_WITH(parsed(with(0, "op3[2,0]@", "op4[2,0]@")), Catch::Contains("does not match its fields"));
    // Version 2 requires what version 3 may leave out; version 3 takes the defaults spelt out.
    CHECK_THROWS_WITH(parsed(with(0, R"("model_only":true,)", "")), Catch::Contains("missing key 'model_only'"));
    CHECK_THROWS_WITH(parsed(with(3, R"({"type":"event",)", R"({"type":"event","key":"op3[2,0]@cta5.w1.l0:state",)")),
                      Catch::Contains("unknown key 'key'"));
    const TraceEvent spelt_out =
        parsed(with(3, R"("model_only":true,"what":"complete_tx","detail":{"a":"1","bytes":"256"})",
                    R"("model_only":false,"detail":{})"))
            .result.events.front();
    CHECK_FALSE(spelt_out.model_only);
    CHECK(spelt_out.detail.empty());
}

TEST_CASE("the reader takes lines longer than its 1 MB read block and a last line without newline", "[traces]") {
    RunResult r = sample_run();
    // 700 KB inline: a memory line of 1.4 MB of hex crosses the reader's block boundary.
    std::vector<uint8_t> wide(700 << 10);
    for (size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<uint8_t>(i * 31 + 1);
    r.memory.push_back(MemoryImage{"wide", "shared", 0, wide});
    std::string text = written(r);
    CHECK(tmasim_test::same_run(parsed(text).result, r));
    text.pop_back();  // the outcome line's newline
    CHECK(tmasim_test::same_run(parsed(text).result, r));
    // Cut inside the long line: invalid JSON at that line, counted across the blocks.
    auto lines = lines_of(written(r));
    const size_t wide_line = lines.size() - 2;
    lines[wide_line].resize(lines[wide_line].size() - 7);
    CHECK_THROWS_WITH(parsed(joined(lines)), Catch::StartsWith("mem.jsonl:" + std::to_string(wide_line + 1) + ":"));
}

TEST_CASE("a memory line with inline hex is the bytes nlohmann gives for the same object", "[traces]") {
    // The writer appends "hex" to the dumped object itself (a 1 MB image's digits skip the
    // escaping scan); the line must stay what dumping the whole object gives.
    RunResult r = sample_run();
    MemoryImage every_byte;
    every_byte.name = "stage[1]";
    every_byte.space = "shared";
    every_byte.cta = 3;
    for (int b = 0; b < 256; ++b) every_byte.bytes.push_back(static_cast<uint8_t>(b));
    MemoryImage empty;
    empty.name = "nothing";
    empty.space = "global";
    r.memory = {every_byte, empty};
    int memory_lines = 0;
    for (const std::string& line : lines_of(written(r))) {
        if (line.rfind(R"({"type":"memory")", 0) != 0) continue;
        ++memory_lines;
        const auto j = nlohmann::ordered_json::parse(line);
        CHECK(j.contains("hex"));
        CHECK(line == j.dump());
    }
    CHECK(memory_lines == 2);
}
