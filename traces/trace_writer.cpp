#include "traces/trace_writer.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "scenarios/values.h"
#include "traces/provenance_fields.h"
#include "traces/trace_line_writer.h"

namespace tmasim {
namespace {

// ordered_json keeps insertion order, which is what makes the output byte-stable.
using OrderedJson = nlohmann::ordered_json;

// Messages come from backends and may hold stray bytes; a trace must still be written.
std::string dump(const OrderedJson& j) {
    return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

OrderedJson string_map(const std::map<std::string, std::string>& m) {
    OrderedJson j = OrderedJson::object();
    for (const auto& [k, v] : m) j[k] = v;  // std::map iterates in key order
    return j;
}

OrderedJson iters_json(const std::vector<int64_t>& iters) {
    OrderedJson j = OrderedJson::array();
    for (int64_t i : iters) j.push_back(i);
    return j;
}

OrderedJson header_json(const Provenance& p, int version) {
    OrderedJson j;
    j["type"] = "header";
    j["format"] = kTraceFormat;
    j["version"] = version;
    put_provenance_fields(j, p);
    return j;
}

OrderedJson diagnostic_json(const Diagnostic& d) {
    OrderedJson j;
    j["type"] = "diagnostic";
    j["outcome"] = to_string(d.outcome);
    j["rule"] = d.rule;
    j["op"] = d.op;
    j["iters"] = iters_json(d.iters);
    j["cta"] = d.cta;
    j["message"] = d.message;
    j["detail"] = string_map(d.detail);
    return j;
}

// The model gives an unchanged input of kXxh64MinBytes as its hash alone (ModelOptions::
// unchanged_input_bytes), where this writer would keep only the hash anyway.
static_assert(kSidecarMinBytes == kXxh64MinBytes, "the model's digest-only inputs are the writer's");

// How one image is written: inline hex, raw in the sidecar, or (an unchanged input) only
// its size and hash.
enum class ImagePlacement { inline_hex, sidecar, digest_only };

ImagePlacement placement_of(const MemoryImage& m, bool sidecar_open, const TraceWriteOptions& options) {
    if (m.digest_only) return ImagePlacement::digest_only;  // read back without its bytes
    const bool large = m.bytes.size() >= kSidecarMinBytes;
    if (large && m.equals_init && !options.all_memory_bytes) return ImagePlacement::digest_only;
    return sidecar_open && m.bytes.size() >= kSidecarImageMinBytes ? ImagePlacement::sidecar
                                                                    : ImagePlacement::inline_hex;
}

// Whether a trace file gets a sidecar: when the bytes it would hold come to 1 MiB or more
// (132 CTAs' shared buffers are 8 MB, 17 MB as hex).
bool wants_sidecar(const RunResult& result, const TraceWriteOptions& options) {
    uint64_t total = 0;
    for (const MemoryImage& m : result.memory)
        if (placement_of(m, false, options) != ImagePlacement::digest_only) total += m.bytes.size();
    return total >= kSidecarMinBytes;
}

// `sidecar` names the file holding the bytes at `offset` (ImagePlacement::sidecar only).
// An inline image's "hex" (the last key) is left to memory_line.
OrderedJson memory_json(const MemoryImage& m, ImagePlacement placement, const std::string& sidecar,
                        uint64_t offset, const ImageHash& hash) {
    OrderedJson j;
    j["type"] = "memory";
    j["name"] = m.name;
    j["space"] = m.space;
    j["cta"] = m.cta;
    j["size"] = image_size(m);
    j[hash.algorithm] = hash.hex;
    switch (placement) {
        case ImagePlacement::inline_hex: break;
        case ImagePlacement::sidecar:
            j["sidecar"] = sidecar;
            j["offset"] = offset;
            break;
        case ImagePlacement::digest_only: j["init_unchanged"] = true; break;
    }
    return j;
}

// The memory line: the JSON dump of memory_json with, for an inline image, "hex" appended
// as its last key. Hex digits need no escaping, so the bytes are the dump of the object
// that holds it; a 1 MB image's 2 MB of digits went through nlohmann's escaping scan.
void write_memory_line(std::ostream& out, const MemoryImage& m, ImagePlacement placement,
                       const std::string& sidecar, uint64_t offset, const ImageHash& hash) {
    std::string line = dump(memory_json(m, placement, sidecar, offset, hash));
    if (placement == ImagePlacement::inline_hex) {
        line.pop_back();  // the object's closing brace
        line += R"(,"hex":")";
        line += to_hex(m.bytes);
        line += "\"}";
    }
    out << line << '\n';
}

}  // namespace

bool event_order(const TraceEvent& a, const TraceEvent& b) {
    return std::make_tuple(a.cta, a.t, a.op, a.warp, a.lane, static_cast<int>(a.kind)) <
           std::make_tuple(b.cta, b.t, b.op, b.warp, b.lane, static_cast<int>(b.kind));
}

OpNames op_names_of(const Scenario& scenario) {
    OpNames names;
    for (const Op* op : scenario.all_ops()) names[op->id] = to_string(op->kind);
    return names;
}

std::vector<const TraceEvent*> events_in_trace_order(const RunResult& result) {
    std::vector<const TraceEvent*> events;
    events.reserve(result.events.size());
    for (const TraceEvent& e : result.events) events.push_back(&e);
    // A backend that already emits in trace order pays one pass, not a sort.
    auto less = [](const TraceEvent* a, const TraceEvent* b) { return event_order(*a, *b); };
    if (!result.events_sorted && !std::is_sorted(events.begin(), events.end(), less))
        std::stable_sort(events.begin(), events.end(), less);
    return events;
}

std::string to_hex(const std::vector<uint8_t>& bytes) {
    // Both digits of a byte from one table entry: inline images are written 2 MB of digits
    // per MB, and indexing a std::string twice per byte cost more than the table.
    static const auto pairs = [] {
        std::array<char, 512> t{};
        static const char digits[] = "0123456789abcdef";
        for (int b = 0; b < 256; ++b) {
            t[2 * b] = digits[b >> 4];
            t[2 * b + 1] = digits[b & 15];
        }
        return t;
    }();
    std::string s(bytes.size() * 2, '0');
    char* out = s.data();
    for (const uint8_t b : bytes) {
        std::memcpy(out, &pairs[2 * size_t{b}], 2);
        out += 2;
    }
    return s;
}

namespace {

// An event's loop indices and detail live on the heap apart from it, allocated in the order
// the backend made the events. The model makes them in simulation time, all CTAs at once,
// and the trace lists them CTA by CTA: at 132 CTAs one line's heap parts lie far from the
// last line's, a cache miss or two per line that 1 CTA never has. The writer fetches them
// a few lines ahead.
constexpr size_t kPrefetchLines = 4;

void prefetch_heap_parts(const TraceEvent& e) {
    if (!e.iters.empty()) __builtin_prefetch(e.iters.data());
    if (!e.detail.empty()) __builtin_prefetch(&*e.detail.begin());
}

// `sidecar` null: every image inline. Else images of at least kSidecarImageMinBytes go to
// `sidecar` (opened by the caller, named `sidecar_name` in the trace).
void write_trace_to(const RunResult& result, std::ostream& out, const OpNames& names, std::ostream* sidecar,
                    const std::string& sidecar_name, const TraceWriteOptions& options) {
    out << dump(header_json(result.provenance, kTraceHashVersion)) << '\n';

    // Lines go to a buffer flushed every 256 KB: one stream write per line cost more than
    // building it, and a buffer that stays in the L2 cache spares the misses a 4 MB one had
    // on every line appended (and again when the kernel copied it out).
    constexpr size_t kBufferBytes = size_t(256) << 10;
    std::string buf;
    buf.reserve(kBufferBytes);
    // Op names by id from a table (ids are small and dense): a map lookup per line was 4% of
    // the writer's instructions.
    static const std::string unnamed;
    std::vector<const std::string*> name_of;
    if (!names.empty() && names.begin()->first >= 0 && names.rbegin()->first < (1 << 20)) {
        name_of.assign(static_cast<size_t>(names.rbegin()->first) + 1, &unnamed);
        for (const auto& [id, name] : names) name_of[static_cast<size_t>(id)] = &name;
    }
    auto name_for = [&](int op) -> const std::string& {
        if (op >= 0 && static_cast<size_t>(op) < name_of.size()) return *name_of[static_cast<size_t>(op)];
        if (!name_of.empty()) return unnamed;  // the table holds every id the map has
        auto name = names.find(op);
        return name == names.end() ? unnamed : name->second;
    };
    const std::vector<const TraceEvent*> events = events_in_trace_order(result);
    for (size_t i = 0; i < events.size(); ++i) {
        const TraceEvent* e = events[i];
        if (i + kPrefetchLines < events.size()) prefetch_heap_parts(*events[i + kPrefetchLines]);
        append_event_line(buf, *e, name_for(e->op));
        buf += '\n';
        if (buf.size() >= kBufferBytes - 4096) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));

    for (const Diagnostic& d : result.diagnostics) out << dump(diagnostic_json(d)) << '\n';
    // image_hash of each image; the FNV-1a ones computed together (fnv1a64_hex_each: a
    // full-chip trace has 528 shared buffers).
    auto takes_fnv = [](const MemoryImage& m) {
        return !m.digest_only && hash_algorithm_for(m.bytes.size()) == "fnv1a64";
    };
    std::vector<std::pair<const uint8_t*, size_t>> fnv_blocks;
    for (const MemoryImage& m : result.memory)
        if (takes_fnv(m)) fnv_blocks.emplace_back(m.bytes.data(), m.bytes.size());
    const std::vector<std::string> fnv_hex = fnv1a64_hex_each(fnv_blocks);
    size_t next_fnv = 0;
    uint64_t offset = 0;
    for (const MemoryImage& m : result.memory) {
        const ImagePlacement placement = placement_of(m, sidecar != nullptr, options);
        const ImageHash hash = takes_fnv(m) ? ImageHash{"fnv1a64", fnv_hex[next_fnv++]} : image_hash(m);
        write_memory_line(out, m, placement, sidecar_name, offset, hash);
        if (placement != ImagePlacement::sidecar) continue;
        sidecar->write(reinterpret_cast<const char*>(m.bytes.data()), static_cast<std::streamsize>(m.bytes.size()));
        offset += m.bytes.size();
    }

    OrderedJson outcome;
    outcome["type"] = "outcome";
    outcome["outcome"] = to_string(result.outcome);
    out << dump(outcome) << '\n';
}

std::string base_name(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

void write_trace(const RunResult& result, std::ostream& out, const OpNames& names,
                 const TraceWriteOptions& options) {
    write_trace_to(result, out, names, nullptr, "", options);
}

bool trace_wants_sidecar(const RunResult& result, const TraceWriteOptions& options) {
    return wants_sidecar(result, options);
}

void write_trace_with_sidecar(const RunResult& result, std::ostream& out, std::ostream* sidecar,
                              const std::string& sidecar_name, const OpNames& names, const TraceWriteOptions& options) {
    write_trace_to(result, out, names, sidecar, sidecar_name, options);
}

void write_trace_file(const RunResult& result, const std::string& path, const OpNames& names,
                      const TraceWriteOptions& options) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("traces: cannot open '" + path + "' for writing");
    const std::string sidecar_path = sidecar_path_of(path);
    const bool large = wants_sidecar(result, options);
    // A sidecar left from an earlier run of the same trace path would mislead a reader.
    std::remove(sidecar_path.c_str());
    std::ofstream sidecar;
    if (large) {
        sidecar.open(sidecar_path, std::ios::binary | std::ios::trunc);
        if (!sidecar) throw std::runtime_error("traces: cannot open '" + sidecar_path + "' for writing");
    }
    write_trace_to(result, out, names, large ? &sidecar : nullptr, base_name(sidecar_path), options);
    out.flush();
    if (!out) throw std::runtime_error("traces: error writing '" + path + "'");
    if (large) {
        sidecar.flush();
        if (!sidecar) throw std::runtime_error("traces: error writing '" + sidecar_path + "'");
    }
}

std::string sidecar_path_of(const std::string& trace_path) { return trace_path + ".mem"; }

}  // namespace tmasim
