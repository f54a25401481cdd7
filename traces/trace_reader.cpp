#include "traces/trace_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "scenarios/values.h"
#include "traces/event_line_reader.h"
#include "traces/trace_line_source.h"
#include "traces/trace_limits.h"
#include "traces/trace_writer.h"

namespace tmasim {
namespace {

using Json = nlohmann::json;

using namespace trace_limits;

// Line order of FORMAT.md; a line may never go back to an earlier section.
enum class Section { header, event, diagnostic, memory, outcome };
const char* section_name(Section s) {
    static const char* names[] = {"header", "event", "diagnostic", "memory", "outcome"};
    return names[static_cast<int>(s)];
}

// Typed access to one line's object. Each getter records the key, so finish() can reject
// keys nobody asked for: a misspelt or newer key is an error, never silently dropped.
class LineFields {
public:
    LineFields(const Json& j, const std::string& path, int line, const std::string& type)
        : j_(j), path_(path), line_(line), type_(type) {}

    [[noreturn]] void fail(const std::string& message) const {
        throw TraceError(path_, line_, message);
    }
    bool has(const std::string& key) const { return j_.contains(key); }

    const Json& get(const std::string& key) {
        used_.insert(key);
        auto it = j_.find(key);
        if (it == j_.end()) fail(type_ + ": missing key '" + key + "'");
        return *it;
    }
    std::string str(const std::string& key) {
        const Json& v = get(key);
        if (!v.is_string()) fail(type_ + ": '" + key + "' must be a string");
        std::string s = v.get<std::string>();
        // "big.jsonl.mem\u0000x" would open big.jsonl.mem: no name, path or text holds a NUL.
        if (s.find('\0') != std::string::npos) fail(type_ + ": '" + key + "' holds a NUL character (\\u0000)");
        return s;
    }
    // Every integer is range-checked: a value the writer never produces (a time near 2^63,
    // a CTA of 2^31) would otherwise wrap here or overflow later in diff and export.
    int64_t i64(const std::string& key, int64_t lo, int64_t hi) {
        const Json& v = get(key);
        if (!v.is_number_integer()) fail(type_ + ": '" + key + "' must be an integer");
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
            fail(type_ + ": '" + key + "' is out of range; allowed: " + std::to_string(lo) + ".." + std::to_string(hi));
        const int64_t x = v.get<int64_t>();
        if (x < lo || x > hi)
            fail(type_ + ": '" + key + "' is " + std::to_string(x) + "; allowed: " + std::to_string(lo) + ".." +
                 std::to_string(hi));
        return x;
    }
    int i32(const std::string& key, int lo, int hi) { return static_cast<int>(i64(key, lo, hi)); }
    uint64_t u64(const std::string& key) {
        const Json& v = get(key);
        if (!v.is_number_unsigned()) fail(type_ + ": '" + key + "' must be an unsigned integer");
        return v.get<uint64_t>();
    }
    bool boolean(const std::string& key) {
        const Json& v = get(key);
        if (!v.is_boolean()) fail(type_ + ": '" + key + "' must be true or false");
        return v.get<bool>();
    }
    std::vector<int64_t> iters(const std::string& key) {
        const Json& v = get(key);
        std::vector<int64_t> out;
        if (!v.is_array()) fail(type_ + ": '" + key + "' must be an array of integers");
        if (v.size() > kMaxIters)
            fail(type_ + ": '" + key + "' has " + std::to_string(v.size()) + " entries; allowed: at most " +
                 std::to_string(kMaxIters) + " (nested loops)");
        for (const Json& x : v) {
            if (!x.is_number_integer() || (x.is_number_unsigned() && x.get<uint64_t>() > kMaxIter) ||
                x.get<int64_t>() < 0 || x.get<int64_t>() > kMaxIter)
                fail(type_ + ": '" + key + "' must hold loop iterations; allowed: 0.." + std::to_string(kMaxIter));
            out.push_back(x.get<int64_t>());
        }
        return out;
    }
    std::map<std::string, std::string> string_map(const std::string& key) {
        const Json& v = get(key);
        std::map<std::string, std::string> out;
        if (!v.is_object()) fail(type_ + ": '" + key + "' must be an object of strings");
        if (v.size() > trace_limits::kMaxDetailKeys)
            fail(type_ + ": '" + key + "' has " + std::to_string(v.size()) + " keys; allowed: at most " +
                 std::to_string(trace_limits::kMaxDetailKeys));
        for (auto it = v.begin(); it != v.end(); ++it) {
            if (!it.value().is_string()) fail(type_ + ": '" + key + "." + it.key() + "' must be a string");
            const std::string v = it.value().get<std::string>();
            if (v.find('\0') != std::string::npos || it.key().find('\0') != std::string::npos)
                fail(type_ + ": '" + key + "." + it.key() + "' holds a NUL character (\\u0000)");
            out[it.key()] = v;
        }
        return out;
    }
    Outcome outcome(const std::string& key) {
        std::string text = str(key);
        auto o = parse_outcome(text);
        if (!o) fail(type_ + ": '" + key + "': unknown outcome '" + text + "'; allowed: " + allowed_outcomes());
        return *o;
    }
    void finish() const {
        for (auto it = j_.begin(); it != j_.end(); ++it)
            if (!used_.count(it.key())) fail(type_ + ": unknown key '" + it.key() + "'");
    }

private:
    const Json& j_;
    const std::string& path_;
    int line_;
    std::string type_;
    std::set<std::string> used_{"type"};
};

// Returns the format version (1; 2: large images in a sidecar file; 3: compact events; 4: XXH64
// for large images).
int read_header(LineFields& f, Provenance& p) {
    std::string format = f.str("format");
    if (format != kTraceFormat) f.fail("not a tmasim trace (format '" + format + "')");
    int64_t version = f.i64("version", 0, INT64_MAX);
    if (version < kTraceVersion || version > kTraceHashVersion)
        f.fail("trace format version " + std::to_string(version) + " is not supported (this tmasim reads versions " +
               std::to_string(kTraceVersion) + " to " + std::to_string(kTraceHashVersion) + ")");
    p.backend = f.str("backend");
    p.tool_version = f.str("tool_version");
    p.scenario = f.str("scenario");
    p.scenario_file = f.str("scenario_file");
    p.scenario_hash = f.str("scenario_hash");
    p.gpu = f.str("gpu");
    // Times are converted to microseconds by this clock: 0 would divide by zero.
    p.sm_clock_mhz = f.i32("sm_clock_mhz", 1, kMaxClockMhz);
    p.driver = f.str("driver");
    p.cuda = f.str("cuda");
    p.model_config = f.str("model_config");
    p.model_config_hash = f.str("model_config_hash");
    p.seed = f.u64("seed");
    p.extra = f.string_map("extra");
    return static_cast<int>(version);
}

TraceEvent read_event(LineFields& f, OpNames& names, int version) {
    TraceEvent e;
    e.op = f.i32("op", 0, kMaxOpId);
    std::string name = f.str("name");
    if (!name.empty()) names[e.op] = name;
    e.iters = f.iters("iters");
    e.cta = f.i32("cta", 0, kMaxCta);
    e.warp = f.i32("warp", 0, kMaxWarp);
    e.lane = f.i32("lane", 0, kMaxLane);
    std::string kind = f.str("kind");
    auto k = parse_event_kind(kind);
    if (!k) f.fail("event: unknown kind '" + kind + "'");
    e.kind = *k;
    e.t = f.i64("t", 0, kMaxTime);
    if (f.has("t_ns")) e.t_ns = f.i64("t_ns", 0, kMaxTime);
    // Version 3 leaves out the key, model_only when false and an empty detail; a key there
    // is an unknown key (finish()).
    const bool compact = version >= kTraceCompactVersion;
    if (!compact || f.has("model_only")) e.model_only = f.boolean("model_only");
    if (f.has("what")) e.what = f.str("what");
    if (!compact || f.has("detail")) e.detail = f.string_map("detail");
    if (compact) return e;
    // The key is redundant on purpose (grep-able, diff pairs by it); a disagreement means
    // the file was edited by hand or written by a broken writer.
    std::string key = f.str("key");
    if (key != e.key()) f.fail("event: key '" + key + "' does not match its fields ('" + e.key() + "')");
    return e;
}

Diagnostic read_diagnostic(LineFields& f) {
    Diagnostic d;
    d.outcome = f.outcome("outcome");
    d.rule = f.str("rule");
    d.op = f.i32("op", -1, kMaxOpId);  // -1: the run as a whole
    d.iters = f.iters("iters");
    d.cta = f.i32("cta", 0, kMaxCta);
    d.message = f.str("message");
    d.detail = f.string_map("detail");
    return d;
}

// The trace's folder: a sidecar is named by its file name alone, next to the trace.
std::string folder_of(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// `size` bytes at `offset` of the sidecar `name` (FORMAT.md, version 2), range-checked
// against the file's length before anything is allocated.
std::vector<uint8_t> read_sidecar_bytes(LineFields& f, const std::string& trace_path, const std::string& name,
                                        uint64_t offset, uint64_t size) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
        f.fail("memory: 'sidecar' '" + name + "'; allowed: a file name in the trace's folder (no '/')");
    const std::string path = folder_of(trace_path) + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        f.fail("memory: sidecar '" + path + "' is missing or not a regular file");
    const uint64_t length = static_cast<uint64_t>(st.st_size);
    if (offset > length || size > length - offset)
        f.fail("memory: bytes " + std::to_string(offset) + "+" + std::to_string(size) + " lie outside sidecar '" +
               path + "' (" + std::to_string(length) + " bytes)");
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes(size);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    if (!in) f.fail("memory: cannot read sidecar '" + path + "'");
    return bytes;
}

// The line's hash of the bytes read: fnv1a64 up to version 3, from version 4 the algorithm
// the size rule picks (kXxh64MinBytes).
void check_hash(LineFields& f, const MemoryImage& m, int version, const std::string& where) {
    const std::string algorithm = version >= kTraceHashVersion ? hash_algorithm_for(m.bytes.size()) : "fnv1a64";
    const std::string hash = f.str(algorithm);
    if (hash != image_hash_by(m, algorithm)->hex)
        f.fail("memory '" + m.name + "': " + algorithm + " " + hash + " does not match its bytes" + where);
}

MemoryImage read_memory(LineFields& f, int version, const std::string& trace_path,
                        std::vector<std::string>& sidecars) {
    MemoryImage m;
    m.name = f.str("name");
    m.space = f.str("space");
    if (m.space != "global" && m.space != "shared" && m.space != "snapshot")
        f.fail("memory: space '" + m.space + "'; allowed: global, shared, snapshot");
    m.cta = f.i32("cta", 0, kMaxCta);
    uint64_t size = f.u64("size");
    if (f.has("init_unchanged")) {
        if (version < kTraceCompactVersion)
            f.fail("memory: 'init_unchanged' needs trace format version " + std::to_string(kTraceCompactVersion) +
                   "; this trace is version " + std::to_string(version));
        if (f.has("hex") || f.has("sidecar"))
            f.fail("memory '" + m.name + "': 'init_unchanged' with bytes; allowed: one of hex, sidecar, init_unchanged");
        if (!f.boolean("init_unchanged")) f.fail("memory '" + m.name + "': 'init_unchanged' must be true");
        MemoryImage::Digest digest;
        digest.size = size;
        // Version 4 hashes by the size rule, but a digest read from a version 3 trace and
        // written again keeps its fnv1a64: either, not both.
        digest.algorithm = version >= kTraceHashVersion && f.has("xxh64") ? "xxh64" : "fnv1a64";
        if (digest.algorithm == "xxh64" && f.has("fnv1a64"))
            f.fail("memory '" + m.name + "': both 'fnv1a64' and 'xxh64'; allowed: one of them");
        digest.hex = f.str(digest.algorithm);
        // Lowercase, as the writer spells it: diff compares it with a hash of bytes as text.
        if (digest.hex.size() != 16 || digest.hex.find_first_not_of("0123456789abcdef") != std::string::npos)
            f.fail("memory '" + m.name + "': " + digest.algorithm + " '" + digest.hex +
                   "'; allowed: 16 lowercase hex digits");
        m.digest_only = digest;
        m.equals_init = true;
        return m;
    }
    if (f.has("sidecar") || f.has("offset")) {
        if (version < kTraceSidecarVersion)
            f.fail("memory: 'sidecar' needs trace format version " + std::to_string(kTraceSidecarVersion) +
                   "; this trace is version " + std::to_string(version));
        if (f.has("hex")) f.fail("memory '" + m.name + "': both 'hex' and 'sidecar'; allowed: one of them");
        if (size > kMaxSidecarBytes)
            f.fail("memory '" + m.name + "': size " + std::to_string(size) + "; allowed: at most " +
                   std::to_string(kMaxSidecarBytes));
        std::string sidecar = f.str("sidecar");
        m.bytes = read_sidecar_bytes(f, trace_path, sidecar, f.u64("offset"), size);
        const std::string sidecar_path = folder_of(trace_path) + sidecar;
        if (std::find(sidecars.begin(), sidecars.end(), sidecar_path) == sidecars.end())
            sidecars.push_back(sidecar_path);
        check_hash(f, m, version, " in sidecar '" + sidecar + "'");
        return m;
    }
    auto bytes = from_hex(f.str("hex"));
    if (!bytes) f.fail("memory '" + m.name + "': 'hex' is not a hex string");
    if (bytes->size() != size)
        f.fail("memory '" + m.name + "': size " + std::to_string(size) + " but hex holds " +
               std::to_string(bytes->size()) + " bytes");
    m.bytes = std::move(*bytes);
    check_hash(f, m, version, "");
    return m;
}

}  // namespace

const char* const kLinkedDetailKeys[4] = {"barrier", "bytes", "phase", "tx_count"};

std::optional<std::vector<uint8_t>> from_hex(const std::string& hex) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (hex.size() % 2) return std::nullopt;
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return out;
}


// Two events out of trace order, or an image named twice: a trace the writer did not write.
void check_event_order(const std::vector<TraceEvent>& events, const std::string& path, int line_no) {
    if (events.size() >= 2 && event_order(events.back(), events[events.size() - 2]))
        throw TraceError(path, line_no,
                         "event out of trace order (traces/FORMAT.md: events sorted by cta, t, op, warp, lane, kind)");
}

// What options.event_detail keeps of the event just read (file.result.events.back()).
void keep_detail(TraceFile& file, TraceReadOptions::EventDetail mode, uint64_t line_start) {
    using Mode = TraceReadOptions::EventDetail;
    TraceEvent& e = file.result.events.back();
    if (mode == Mode::all || e.detail.empty()) return;
    if (mode == Mode::none) {
        e.detail.clear();
        return;
    }
    if (mode == Mode::small_whole) {
        size_t text = 0;
        for (const auto& [k, v] : e.detail) text += k.size() + v.size();
        if (e.detail.size() <= kKeptDetailKeys && text <= kKeptDetailBytes) return;
        file.trimmed_details.emplace_back(file.result.events.size() - 1, line_start);
    }
    std::map<std::string, std::string> kept;
    for (const char* key : kLinkedDetailKeys)
        if (auto it = e.detail.find(key); it != e.detail.end()) kept.insert(e.detail.extract(it));
    e.detail.swap(kept);
}

// An id the scenario the trace names does not have: the trace is not that scenario's (or was
// edited), and diff, export and report would pair, draw or look up what is not there.
class IdCheck {
public:
    IdCheck(const std::string& path) : path_(path) {}
    void set(std::optional<TraceIdBounds> bounds) { bounds_ = std::move(bounds); }

    void cta(int cta, const std::string& type, int line) const {
        if (bounds_ && cta >= bounds_->ctas)
            throw TraceError(path_, line, type + ": 'cta' is " + std::to_string(cta) + "; allowed: 0.." +
                                              std::to_string(bounds_->ctas - 1) + " (the grid of " +
                                              bounds_->scenario_file + ", which the header names)");
    }
    // `run_wide`: -1 (the run as a whole) is allowed too.
    void op(int op, const std::string& type, int line, bool run_wide = false) const {
        if (bounds_ && op >= bounds_->ops && !(run_wide && op == -1))
            throw TraceError(path_, line, type + ": 'op' is " + std::to_string(op) + "; allowed: " +
                                              (run_wide ? "-1, " : "") + "0.." + std::to_string(bounds_->ops - 1) +
                                              " (the ops of " + bounds_->scenario_file + ", which the header names)");
    }
    void event(const TraceEvent& e, int line) const {
        cta(e.cta, "event", line);
        op(e.op, "event", line);
    }

private:
    const std::string& path_;
    std::optional<TraceIdBounds> bounds_;
};

TraceFile parse_trace(std::istream& in, const std::string& path, const TraceReadOptions& options) {
    TraceFile file;
    IdCheck ids(path);
    RunResult& r = file.result;
    Section section = Section::header;
    bool saw_outcome = false;
    int version = kTraceVersion;
    int line_no = 0;
    TraceLineReader lines(in, path);
    std::string line, fast_name;
    std::set<std::tuple<std::string, std::string, int>> images;  // (space, name, cta) read so far
    while (lines.next(line, line_no + 1)) {
        ++line_no;
        if (saw_outcome) throw TraceError(path, line_no, "text after the outcome line");
        if (line.empty()) throw TraceError(path, line_no, "empty line");
        // An event line as the writer writes it, where an event line may stand, skips the
        // JSON tree (event_line_reader.h); every other line is read below.
        if (line_no > 1 && section <= Section::event) {
            TraceEvent e;
            if (read_event_line_fast(line, version, e, fast_name)) {
                ids.event(e, line_no);
                if (!fast_name.empty()) file.op_names[e.op] = fast_name;
                r.events.push_back(std::move(e));
                check_event_order(r.events, path, line_no);
                keep_detail(file, options.event_detail, lines.line_start());
                section = Section::event;
                continue;
            }
        }
        Json j = parse_trace_line(line, path, line_no);
        if (j.is_discarded()) throw TraceError(path, line_no, "invalid JSON (truncated or corrupt line)");
        if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
            throw TraceError(path, line_no, "expected a JSON object with a string 'type'");
        std::string type = j["type"].get<std::string>();
        LineFields f(j, path, line_no, type);

        Section s;
        if (type == "header") s = Section::header;
        else if (type == "event") s = Section::event;
        else if (type == "diagnostic") s = Section::diagnostic;
        else if (type == "memory") s = Section::memory;
        else if (type == "outcome") s = Section::outcome;
        else f.fail("unknown line type '" + type + "'; allowed: header, event, diagnostic, memory, outcome");

        if ((line_no == 1) != (s == Section::header))
            f.fail(line_no == 1 ? "not a tmasim trace: the first line must be the header"
                                : "a second header line");
        if (s < section)
            f.fail(type + " line after a " + section_name(section) +
                   " line (FORMAT.md order: header, events, diagnostics, memory, outcome)");
        section = s;

        switch (s) {
        case Section::header:
            version = file.version = read_header(f, r.provenance);
            f.finish();  // before the scenario is looked up by what the header says
            if (options.id_bounds) ids.set(options.id_bounds(r.provenance));
            break;
        case Section::event:
            r.events.push_back(read_event(f, file.op_names, version));
            ids.event(r.events.back(), line_no);
            check_event_order(r.events, path, line_no);
            keep_detail(file, options.event_detail, lines.line_start());
            break;
        case Section::diagnostic:
            r.diagnostics.push_back(read_diagnostic(f));
            ids.cta(r.diagnostics.back().cta, "diagnostic", line_no);
            ids.op(r.diagnostics.back().op, "diagnostic", line_no, true);
            break;
        case Section::memory:
            r.memory.push_back(read_memory(f, version, path, file.sidecars));
            if (r.memory.back().space != "global") ids.cta(r.memory.back().cta, "memory", line_no);
            if (!images.insert({r.memory.back().space, r.memory.back().name, r.memory.back().cta}).second)
                f.fail("memory: the image " + r.memory.back().space + " " + r.memory.back().name + " (cta " +
                       std::to_string(r.memory.back().cta) + ") appears twice");
            break;
        case Section::outcome: r.outcome = f.outcome("outcome"); saw_outcome = true; break;
        }
        f.finish();
    }
    if (line_no == 0) throw TraceError(path, 0, "empty file, not a tmasim trace");
    if (!saw_outcome)
        throw TraceError(path, line_no, "truncated trace: no final outcome line (the run or the write was cut short)");
    return file;
}

TraceFile read_trace_file(const std::string& path, const TraceReadOptions& options) {
    // A regular file only: /dev/zero or a FIFO has no end to read to.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw TraceError(path, 0, "cannot open trace file");
    if (!S_ISREG(st.st_mode)) throw TraceError(path, 0, "not a regular file; allowed: a trace (JSONL) file");
    if (static_cast<uint64_t>(st.st_size) > kMaxTraceBytes)
        throw TraceError(path, 0, "the trace is " + std::to_string(st.st_size) + " bytes; allowed: at most " +
                                      std::to_string(kMaxTraceBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw TraceError(path, 0, "cannot open trace file");
    return parse_trace(in, path, options);
}

RunResult read_trace(const std::string& path) { return read_trace_file(path).result; }

}  // namespace tmasim
