#include "traces/trace_line_writer.h"

#include <nlohmann/json.hpp>

namespace tmasim {
namespace {

// Printable ASCII without quote or backslash is written as it is by any JSON writer; the
// rest (control bytes, UTF-8, stray bytes) goes through nlohmann so escaping stays its own.
bool plain_ascii(const std::string& s) {
    for (unsigned char c : s)
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
    return true;
}

void append_int(std::string& out, int64_t v) {
    char digits[24];
    char* end = digits + sizeof digits;
    char* p = end;
    const bool negative = v < 0;
    uint64_t u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    do {
        *--p = static_cast<char>('0' + u % 10);
        u /= 10;
    } while (u);
    if (negative) *--p = '-';
    out.append(p, end);
}

// to_string(EventKind) without a string per event.
const char* kind_text(EventKind k) {
    switch (k) {
        case EventKind::issue: return "issue";
        case EventKind::complete: return "complete";
        case EventKind::wait_begin: return "wait_begin";
        case EventKind::wait_end: return "wait_end";
        case EventKind::state: return "state";
        case EventKind::hazard: return "hazard";
    }
    return "state";
}

}  // namespace

void append_json_string(std::string& out, const std::string& s) {
    if (plain_ascii(s)) {
        out += '"';
        out += s;
        out += '"';
        return;
    }
    out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

void append_event_line(std::string& out, const TraceEvent& e, const std::string& name) {
    // Version 3 leaves out what a reader rebuilds: the key (from the fields), model_only
    // when false and an empty detail; a full-chip trace holds 400k event lines.
    out += R"({"type":"event","op":)";
    append_int(out, e.op);
    out += R"(,"name":)";
    append_json_string(out, name);
    out += R"(,"iters":[)";
    for (size_t i = 0; i < e.iters.size(); ++i) {
        if (i) out += ',';
        append_int(out, e.iters[i]);
    }
    out += R"(],"cta":)";
    append_int(out, e.cta);
    out += R"(,"warp":)";
    append_int(out, e.warp);
    out += R"(,"lane":)";
    append_int(out, e.lane);
    out += R"(,"kind":")";
    out += kind_text(e.kind);
    out += R"(","t":)";
    append_int(out, e.t);
    if (e.t_ns >= 0) {
        out += R"(,"t_ns":)";
        append_int(out, e.t_ns);
    }
    if (e.model_only) out += R"(,"model_only":true)";
    if (!e.what.empty()) {
        out += R"(,"what":)";
        append_json_string(out, e.what);
    }
    if (!e.detail.empty()) {
        out += R"(,"detail":{)";
        bool first = true;
        for (const auto& [k, v] : e.detail) {
            if (!first) out += ',';
            first = false;
            append_json_string(out, k);
            out += ':';
            append_json_string(out, v);
        }
        out += '}';
    }
    out += '}';
}

}  // namespace tmasim
