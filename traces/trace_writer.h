#pragma once
// Writes a RunResult as a tmasim JSONL trace (traces/FORMAT.md, version 1).
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim {

constexpr const char* kTraceFormat = "tmasim-trace";
constexpr int kTraceVersion = 1;
// A trace whose large memory images live in a binary sidecar file (FORMAT.md, version 2).
// Written only by write_trace_file and only when an image has at least kSidecarMinBytes, so
// traces without one stay version 1, byte for byte.
constexpr int kTraceSidecarVersion = 2;
constexpr size_t kSidecarMinBytes = size_t(1) << 20;

// Op id -> op kind spelling ("tma.load"). RunResult events carry only op ids; the writer
// puts the kind in each event's "name" so a trace explains itself without its scenario.
using OpNames = std::map<int, std::string>;
OpNames op_names_of(const Scenario& scenario);

// Events are written sorted by (cta, t, op, warp, lane, kind), stably, whatever order the
// backend produced; keys of every object come in one fixed order. So one RunResult always
// gives byte-identical output. Ops missing from `names` get an empty "name".
void write_trace(const RunResult& result, std::ostream& out, const OpNames& names = {});
// Same, to a file; throws std::runtime_error when the file cannot be written. Images of
// at least kSidecarMinBytes go, raw, to sidecar_path_of(path) instead of inline hex.
void write_trace_file(const RunResult& result, const std::string& path,
                      const OpNames& names = {});
// "<trace>.mem": where write_trace_file puts the bytes of large images.
std::string sidecar_path_of(const std::string& trace_path);

// The events in FORMAT.md order: (cta, t, op, warp, lane, kind), stable for ties.
std::vector<const TraceEvent*> events_in_trace_order(const RunResult& result);

// Lowercase hex of bytes, two digits per byte (memory images).
std::string to_hex(const std::vector<uint8_t>& bytes);

}  // namespace tmasim
