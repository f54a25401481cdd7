#pragma once
// What a backend returns after running a scenario: the backend-neutral content of a trace.
// model/ and device/ fill it; traces/ writes it as JSONL, reads it back and diffs two.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/enums.h"

namespace tmasim {

enum class EventKind { issue, complete, wait_begin, wait_end, state, hazard };
std::string to_string(EventKind k);
std::optional<EventKind> parse_event_kind(const std::string& text);

// One timestamped event. The key (op, iters, cta, warp, lane, kind) is stable across backends.
struct TraceEvent {
    int op = -1;                  // Op::id
    std::vector<int64_t> iters;   // loop indices, outermost first
    int cta = 0;
    int warp = 0;
    int lane = 0;                 // executing lane; 0 for warp-wide ops
    EventKind kind = EventKind::issue;
    int64_t t = 0;                // SM cycles since kernel start, per CTA
    int64_t t_ns = -1;            // globaltimer ns since kernel start (device only; -1 if none)
    bool model_only = false;      // events the device cannot see (bytes landing, phase flip...)
    std::string what;             // model-only events: "complete_tx", "phase_flip", ...
    std::map<std::string, std::string> detail;  // small extra facts (bytes, barrier, parity...)
    std::string key() const;      // "op5[2]@cta0.w1.l0:issue"
};

// A report of a broken rule, a hang or a fault.
struct Diagnostic {
    Outcome outcome = Outcome::hazard;  // hazard | hang | fault
    std::string rule;        // stable rule id, e.g. "proxy.generic_to_async", "mbarrier.tx_mismatch"
    int op = -1;             // op the report names
    std::vector<int64_t> iters;
    int cta = 0;
    std::string message;     // one line, names the op, the buffer and the rule
    std::map<std::string, std::string> detail;  // e.g. expected_bytes, delivered_bytes, pending
};

struct MemoryImage {
    std::string name;        // tensor or shared buffer name ("tile", "stage[1]")
    std::string space;       // "global" | "shared"
    int cta = 0;             // shared only
    std::vector<uint8_t> bytes;
    // Set by a backend that knows `bytes` still equal the scenario's declared init (a tensor
    // the kernel only read): a trace may then keep only its size and hash (FORMAT.md, v3).
    bool equals_init = false;
    // Read back from a trace that kept only the size and hash: `bytes` is then empty.
    struct Digest {
        uint64_t size = 0;
        std::string algorithm;  // "fnv1a64" (trace versions 3) or "xxh64" (version 4 on)
        std::string hex;        // 16 lowercase hex digits
    };
    std::optional<Digest> digest_only = std::nullopt;
};

// The hash a trace keeps of an image (traces/FORMAT.md, version 4): XXH64 of its bytes from
// kXxh64MinBytes on (a full-chip input is 276 MB, and FNV-1a takes one byte per multiply),
// FNV-1a 64 below (as versions 1 to 3 for every image).
constexpr uint64_t kXxh64MinBytes = uint64_t(1) << 20;
struct ImageHash {
    std::string algorithm;  // "fnv1a64" | "xxh64": also the key of a trace's memory line
    std::string hex;
    std::string text() const { return algorithm + " " + hex; }  // "xxh64 5e9b165867ee2b92"
    bool operator==(const ImageHash& o) const { return algorithm == o.algorithm && hex == o.hex; }
};
// The algorithm the size rule above picks for `size` bytes.
std::string hash_algorithm_for(uint64_t size);
uint64_t image_size(const MemoryImage& m);
// From the bytes by the size rule, or, without them, the digest read back.
ImageHash image_hash(const MemoryImage& m);
// By `algorithm`: from the bytes, or the digest if it has that algorithm; nullopt when the
// image holds only a digest by another algorithm (a version 3 trace's fnv1a64).
std::optional<ImageHash> image_hash_by(const MemoryImage& m, const std::string& algorithm);

struct Provenance {
    std::string backend;     // "model" | "device"
    std::string tool_version;
    std::string scenario;    // scenario name
    std::string scenario_file;
    std::string scenario_hash;
    std::string gpu;         // device: GPU name; model: the arch config's name
    int sm_clock_mhz = 0;
    std::string driver;      // device only
    std::string cuda;        // device: CUDA driver version; model: ""
    std::string model_config;       // model: arch config name ("h100-sxm")
    std::string model_config_hash;  // model: fnv1a-64 of the arch config file
    uint64_t seed = 0;
    std::map<std::string, std::string> extra;  // e.g. "sm": "sm_90a", "timer_step_ns"
};

struct Scenario;
// The fields every backend fills the same way: backend, tool version, and the scenario's
// name, file and content hash.
Provenance provenance_for(const Scenario& s, const std::string& backend);

struct RunResult {
    Provenance provenance;
    Outcome outcome = Outcome::ok;
    std::vector<Diagnostic> diagnostics;  // the first one with outcome==outcome explains it
    std::vector<TraceEvent> events;       // sorted by (cta, t, op, warp, lane, kind)
    std::vector<MemoryImage> memory;      // final global tensors, then shared buffers
    // Set by a backend that hands its events over in trace order already (the model's
    // EventLog::take_sorted_events): events_in_trace_order then skips its check, a pass over
    // every event (60 MB at 132 CTAs). Whoever changes `events` after clears it.
    bool events_sorted = false;
    // A kernel scenario's run on the model: each unit op one thread ran, and that thread (its
    // tid, the same in every CTA that ran it). Not in the trace: a compute-sanitizer run
    // compares against it (cli/sanitize_run.cpp: racecheck's races of one thread are no race).
    std::map<int, int> single_thread_ops;
};

}  // namespace tmasim
