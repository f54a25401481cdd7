#include "traces/trace_line_writer.h"

#include <charconv>
#include <cstring>

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

// Decimal digits of v at p (at most 20 characters with the sign); the cursor past them. The
// slow path and the fast one below both spell integers with it. A digit-per-division loop
// into a scratch buffer and a memcpy of it was a third of the writer's instructions (7
// integers per event line, most of them ids and loop indices below 100): those take one or
// two characters here, the rest std::to_chars, which writes two digits a step straight to p.
char* put_int(char* p, int64_t v) {
    if (v >= 0 && v < 10) {
        *p = static_cast<char>('0' + v);
        return p + 1;
    }
    if (v >= 10 && v < 100) {
        p[0] = static_cast<char>('0' + v / 10);
        p[1] = static_cast<char>('0' + v % 10);
        return p + 2;
    }
    return std::to_chars(p, p + 20, v).ptr;
}

void append_int(std::string& out, int64_t v) {
    char digits[24];
    out.append(digits, static_cast<size_t>(put_int(digits, v) - digits));
}

// A literal appended with its length known at compile time (no strlen per event line).
template <size_t N>
void append_literal(std::string& out, const char (&text)[N]) {
    out.append(text, N - 1);
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

namespace {

// Any line, through std::string appends: the path for strings that need escaping.
void append_event_line_escaped(std::string& out, const TraceEvent& e, const std::string& name) {
    // Version 3 leaves out what a reader rebuilds: the key (from the fields), model_only
    // when false and an empty detail; a full-chip trace holds 400k event lines.
    append_literal(out, R"({"type":"event","op":)");
    append_int(out, e.op);
    append_literal(out, R"(,"name":)");
    append_json_string(out, name);
    append_literal(out, R"(,"iters":[)");
    for (size_t i = 0; i < e.iters.size(); ++i) {
        if (i) out += ',';
        append_int(out, e.iters[i]);
    }
    append_literal(out, R"(],"cta":)");
    append_int(out, e.cta);
    append_literal(out, R"(,"warp":)");
    append_int(out, e.warp);
    append_literal(out, R"(,"lane":)");
    append_int(out, e.lane);
    append_literal(out, R"(,"kind":")");
    out += kind_text(e.kind);
    append_literal(out, R"(","t":)");
    append_int(out, e.t);
    if (e.t_ns >= 0) {
        append_literal(out, R"(,"t_ns":)");
        append_int(out, e.t_ns);
    }
    if (e.model_only) append_literal(out, R"(,"model_only":true)");
    if (!e.what.empty()) {
        append_literal(out, R"(,"what":)");
        append_json_string(out, e.what);
    }
    if (!e.detail.empty()) {
        append_literal(out, R"(,"detail":{)");
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

}  // namespace


namespace {

// The writers of the fast path: each moves the cursor past what it wrote (put_int above too).

char* put_text(char* p, const char* text, size_t n) {
    std::memcpy(p, text, n);
    return p + n;
}

template <size_t N>
char* put_literal(char* p, const char (&text)[N]) {
    return put_text(p, text, N - 1);
}

// A string that needs no escaping, quoted.
char* put_plain(char* p, const std::string& s) {
    *p++ = '"';
    p = put_text(p, s.data(), s.size());
    *p++ = '"';
    return p;
}

}  // namespace

void append_event_line(std::string& out, const TraceEvent& e, const std::string& name) {
    // A line is ~130 bytes, built from ~20 pieces: written through a pointer into a stack
    // buffer and appended once, where an append per piece was most of the writer's cost
    // (a full-chip trace holds 400k lines). Strings that need escaping, and lines too long
    // for the buffer, take the append-per-piece path; both give the same bytes.
    constexpr size_t kLineBytes = 1024;
    // An upper bound of the line: its fixed pieces (~150 bytes), 6 numbers and each loop index
    // of at most 20 characters and a comma, the strings with quotes, colon and comma.
    size_t bound = 320 + 21 * e.iters.size() + name.size() + e.what.size();
    bool plain = plain_ascii(name) && plain_ascii(e.what);
    for (const auto& [k, v] : e.detail) {
        bound += k.size() + v.size() + 6;
        plain = plain && plain_ascii(k) && plain_ascii(v);
    }
    if (!plain || bound > kLineBytes) {
        append_event_line_escaped(out, e, name);
        return;
    }
    char line[kLineBytes];
    char* p = line;
    p = put_literal(p, R"({"type":"event","op":)");
    p = put_int(p, e.op);
    p = put_literal(p, R"(,"name":)");
    p = put_plain(p, name);
    p = put_literal(p, R"(,"iters":[)");
    for (size_t i = 0; i < e.iters.size(); ++i) {
        if (i) *p++ = ',';
        p = put_int(p, e.iters[i]);
    }
    p = put_literal(p, R"(],"cta":)");
    p = put_int(p, e.cta);
    p = put_literal(p, R"(,"warp":)");
    p = put_int(p, e.warp);
    p = put_literal(p, R"(,"lane":)");
    p = put_int(p, e.lane);
    p = put_literal(p, R"(,"kind":")");
    const char* kind = kind_text(e.kind);
    p = put_text(p, kind, std::strlen(kind));
    p = put_literal(p, R"(","t":)");
    p = put_int(p, e.t);
    if (e.t_ns >= 0) {
        p = put_literal(p, R"(,"t_ns":)");
        p = put_int(p, e.t_ns);
    }
    if (e.model_only) p = put_literal(p, R"(,"model_only":true)");
    if (!e.what.empty()) {
        p = put_literal(p, R"(,"what":)");
        p = put_plain(p, e.what);
    }
    if (!e.detail.empty()) {
        p = put_literal(p, R"(,"detail":{)");
        bool first = true;
        for (const auto& [k, v] : e.detail) {
            if (!first) *p++ = ',';
            first = false;
            p = put_plain(p, k);
            *p++ = ':';
            p = put_plain(p, v);
        }
        *p++ = '}';
    }
    *p++ = '}';
    out.append(line, static_cast<size_t>(p - line));
}

}  // namespace tmasim
