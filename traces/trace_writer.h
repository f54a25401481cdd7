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

// Op id -> op kind spelling ("tma.load"). RunResult events carry only op ids; the writer
// puts the kind in each event's "name" so a trace explains itself without its scenario.
using OpNames = std::map<int, std::string>;
OpNames op_names_of(const Scenario& scenario);

// Events are written sorted by (cta, t, op, warp, lane, kind), stably, whatever order the
// backend produced; keys of every object come in one fixed order. So one RunResult always
// gives byte-identical output. Ops missing from `names` get an empty "name".
void write_trace(const RunResult& result, std::ostream& out, const OpNames& names = {});
// Same, to a file; throws std::runtime_error when the file cannot be written.
void write_trace_file(const RunResult& result, const std::string& path,
                      const OpNames& names = {});

// The events in FORMAT.md order: (cta, t, op, warp, lane, kind), stable for ties.
std::vector<const TraceEvent*> events_in_trace_order(const RunResult& result);

// Lowercase hex of bytes, two digits per byte (memory images).
std::string to_hex(const std::vector<uint8_t>& bytes);

}  // namespace tmasim
