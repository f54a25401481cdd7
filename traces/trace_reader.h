#pragma once
// Reads a tmasim JSONL trace (traces/FORMAT.md, versions 1 to 3) back into a RunResult.
// Strict, like the scenario loader: a truncated file, invalid JSON, another format or
// version, a missing or unknown key, a key that disagrees with the event's fields or a
// memory hash that disagrees with its bytes is a TraceError "path:line: message".
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

struct TraceFile {
    RunResult result;
    OpNames op_names;  // from the events' "name" fields (RunResult has no place for them)
    // The sidecar files its memory lines read, as paths: a command that writes files must
    // not write over them (cli/io/output_guard.h).
    std::vector<std::string> sidecars;
};

TraceFile read_trace_file(const std::string& path);
RunResult read_trace(const std::string& path);
// `path` names the source in messages, and its folder is where a version 2 trace's
// sidecar file is looked for.
TraceFile parse_trace(std::istream& in, const std::string& path);

// Bytes of a lowercase or uppercase hex string; nullopt when it is not hex.
std::optional<std::vector<uint8_t>> from_hex(const std::string& hex);

}  // namespace tmasim
