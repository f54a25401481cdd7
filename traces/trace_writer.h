#pragma once
// Writes a RunResult as a tmasim JSONL trace (traces/FORMAT.md, version 4).
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim {

constexpr const char* kTraceFormat = "tmasim-trace";
// Versions 1 to 3 are still read (traces/recorded/ holds 1 and 2); the writer writes 4.
constexpr int kTraceVersion = 1;
// A trace whose large memory images live in a binary sidecar file (FORMAT.md, version 2).
constexpr int kTraceSidecarVersion = 2;
// Compact event lines, one complete_tx per landing, and large images that still equal the
// scenario's declared init kept as size and hash only (FORMAT.md, version 3).
constexpr int kTraceCompactVersion = 3;
// Images of at least kXxh64MinBytes hashed with XXH64, not FNV-1a (FORMAT.md, version 4):
// what the writer writes.
constexpr int kTraceHashVersion = 4;
// A trace file whose images hold at least kSidecarMinBytes in all puts every image of at
// least kSidecarImageMinBytes in a sidecar; an unchanged input of at least kSidecarMinBytes
// is written as its size and hash only.
constexpr size_t kSidecarMinBytes = size_t(1) << 20;
constexpr size_t kSidecarImageMinBytes = size_t(4) << 10;

struct TraceWriteOptions {
    // true: every image's bytes are written, also those that equal the declared init
    // (`tmasim run --memory-bytes all`).
    bool all_memory_bytes = false;
};

// Op id -> op kind spelling ("tma.load"). RunResult events carry only op ids; the writer
// puts the kind in each event's "name" so a trace explains itself without its scenario.
using OpNames = std::map<int, std::string>;
OpNames op_names_of(const Scenario& scenario);

// Events are written sorted by (cta, t, op, warp, lane, kind), stably, whatever order the
// backend produced; keys of every object come in one fixed order. So one RunResult always
// gives byte-identical output. Ops missing from `names` get an empty "name".
void write_trace(const RunResult& result, std::ostream& out, const OpNames& names = {},
                 const TraceWriteOptions& options = {});
// Same, to a file; throws std::runtime_error when the file cannot be written. Images go,
// raw, to sidecar_path_of(path) instead of inline hex as the constants above say; of those
// of at least kSidecarMinBytes that equal their declared init (MemoryImage::equals_init)
// only the size and hash are written unless options.all_memory_bytes.
void write_trace_file(const RunResult& result, const std::string& path, const OpNames& names = {},
                      const TraceWriteOptions& options = {});
// The two halves of write_trace_file, for a caller that places the files itself (the CLI
// writes each under a temporary name and renames it into place, cli/io/atomic_output.h):
// whether the trace puts images into a sidecar, and the trace and that sidecar to streams,
// the trace naming the sidecar `sidecar_name` (a file name in the trace's folder).
bool trace_wants_sidecar(const RunResult& result, const TraceWriteOptions& options = {});
void write_trace_with_sidecar(const RunResult& result, std::ostream& out, std::ostream* sidecar,
                              const std::string& sidecar_name, const OpNames& names = {},
                              const TraceWriteOptions& options = {});
// "<trace>.mem": where write_trace_file puts the bytes of large images.
std::string sidecar_path_of(const std::string& trace_path);

// The events in FORMAT.md order: (cta, t, op, warp, lane, kind), stable for ties.
std::vector<const TraceEvent*> events_in_trace_order(const RunResult& result);
// The trace order of events (FORMAT.md): by CTA, time, op, warp, lane, kind.
bool event_order(const TraceEvent& a, const TraceEvent& b);

// Lowercase hex of bytes, two digits per byte (memory images).
std::string to_hex(const std::vector<uint8_t>& bytes);

}  // namespace tmasim
