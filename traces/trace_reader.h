#pragma once
// Reads a tmasim JSONL trace (traces/FORMAT.md, versions 1 to 3) back into a RunResult.
// Strict, like the scenario loader: a truncated file, invalid JSON, another format or
// version, a missing or unknown key, a key that disagrees with the event's fields or a
// memory hash that disagrees with its bytes is a TraceError "path:line: message".
#include <functional>
#include <istream>
#include <optional>
#include <vector>
#include <string>

#include "scenarios/run_result.h"
#include "traces/trace_error.h"
#include "traces/trace_writer.h"

namespace tmasim {

// Bounds on what the reader takes in; recorded traces are a few MB, a full-chip model run
// a few hundred; a memory line holds the hex of one image below kSidecarMinBytes, a
// sidecar image is read by its range-checked offset.
constexpr size_t kMaxTraceBytes = size_t(1) << 30;
constexpr size_t kMaxTraceLineBytes = size_t(64) << 20;
constexpr uint64_t kMaxSidecarBytes = uint64_t(4) << 30;

// The ids a trace of one scenario can hold: CTAs 0..ctas-1 (its grid), ops 0..ops-1 (its
// program, or its kernel's instructions). A trace whose event, diagnostic or image names an id
// outside them is not that scenario's.
struct TraceIdBounds {
    int ctas = 0;
    int ops = 0;
    std::string scenario_file;  // for the message
};

// What the reader keeps. An event's detail map takes about five times its text in memory (a
// 565 MB trace of 200-key details took 2.7 GiB in diff), and diff reads none of it, report
// only the keys the links read (kLinkedDetailKeys), export writes each event's whole map as
// it goes: such a command asks for less and memory stays near the events' fixed part.
struct TraceReadOptions {
    enum class EventDetail {
        all,          // every key of every event
        small_whole,  // a detail of at most kKeptDetailKeys keys and kKeptDetailBytes of text
                      // whole; a larger one trimmed to kLinkedDetailKeys, its line's offset
                      // kept (TraceFile::trimmed_details) to read it again (event_details.h)
        linked,       // kLinkedDetailKeys only
        none,         // no event detail
    };
    EventDetail event_detail = EventDetail::all;
    // Called once the header is read, with its provenance: the bounds of the scenario the
    // trace names, or nullopt where none is known (its file is missing, edited or broken).
    std::function<std::optional<TraceIdBounds>(const Provenance&)> id_bounds;
};

// The detail keys trace_links.cpp, chrome_links.cpp and html_timeline.cpp read.
extern const char* const kLinkedDetailKeys[4];
constexpr size_t kKeptDetailKeys = 8;
constexpr size_t kKeptDetailBytes = 512;

struct TraceFile {
    RunResult result;
    OpNames op_names;  // from the events' "name" fields (RunResult has no place for them)
    // The sidecar files its memory lines read, as paths: a command that writes files must
    // not write over them (cli/io/output_guard.h).
    std::vector<std::string> sidecars;
    int version = 0;  // the header's
    // Events whose detail the reader trimmed (EventDetail::small_whole), by index in
    // result.events, ascending, with the byte offset of the event's line.
    std::vector<std::pair<size_t, uint64_t>> trimmed_details;
};

TraceFile read_trace_file(const std::string& path, const TraceReadOptions& options = {});
RunResult read_trace(const std::string& path);
// `path` names the source in messages, and its folder is where a version 2 trace's
// sidecar file is looked for.
TraceFile parse_trace(std::istream& in, const std::string& path, const TraceReadOptions& options = {});

// Bytes of a lowercase or uppercase hex string; nullopt when it is not hex.
std::optional<std::vector<uint8_t>> from_hex(const std::string& hex);

}  // namespace tmasim
