#include "traces/event_line_reader.h"

#include <cstring>

#include "traces/trace_limits.h"
#include "traces/trace_writer.h"

namespace tmasim {
namespace {

using namespace trace_limits;

// A cursor over one line; every method returns false where the text is not what the
// writer writes there.
class Cursor {
public:
    explicit Cursor(const std::string& line) : at_(line.data()), end_(line.data() + line.size()) {}

    // A template on the literal's size: no strlen per call (a million lines, ten literals each).
    template <size_t Size>
    bool literal(const char (&text)[Size]) {
        const size_t n = Size - 1;
        if (static_cast<size_t>(end_ - at_) < n) return false;
        for (size_t i = 0; i < n; ++i)  // a loop of known length: no call to memcmp
            if (at_[i] != text[i]) return false;
        at_ += n;
        return true;
    }
    template <size_t Size>
    bool peek(const char (&text)[Size]) const {
        const size_t n = Size - 1;
        return static_cast<size_t>(end_ - at_) >= n && std::memcmp(at_, text, n) == 0;
    }
    // A JSON string of printable ASCII without quote or backslash (escapes: declined).
    bool string(std::string& out) {
        if (at_ == end_ || *at_ != '"') return false;
        const char* first = ++at_;
        while (at_ != end_ && *at_ != '"') {
            const unsigned char c = static_cast<unsigned char>(*at_);
            if (c < 0x20 || c >= 0x7f || c == '\\') return false;
            ++at_;
        }
        if (at_ == end_) return false;
        out.assign(first, at_);
        ++at_;
        return true;
    }
    // A non-negative JSON integer (no sign, no leading zero, no fraction) in [0, hi].
    bool integer(int64_t hi, int64_t& out) {
        const char* first = at_;
        int64_t v = 0;
        while (at_ != end_ && *at_ >= '0' && *at_ <= '9') {
            if (at_ - first >= 18) return false;  // past any range here; the general path says so
            v = v * 10 + (*at_ - '0');
            ++at_;
        }
        if (at_ == first || (*first == '0' && at_ - first > 1)) return false;
        if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) return false;
        if (v > hi) return false;
        out = v;
        return true;
    }
    template <class Int>
    bool integer(int64_t hi, Int& out) {
        int64_t v = 0;
        if (!integer(hi, v)) return false;
        out = static_cast<Int>(v);
        return true;
    }
    bool done() const { return at_ == end_; }

private:
    const char* at_;
    const char* end_;
};

bool read_iters(Cursor& c, std::vector<int64_t>& iters) {
    if (!c.literal("[")) return false;
    if (c.literal("]")) return true;
    for (;;) {
        int64_t i = 0;
        if (iters.size() == kMaxIters || !c.integer(kMaxIter, i)) return false;
        iters.push_back(i);
        if (c.literal("]")) return true;
        if (!c.literal(",")) return false;
    }
}

bool read_detail(Cursor& c, std::map<std::string, std::string>& detail) {
    if (!c.literal("{")) return false;
    if (c.literal("}")) return true;
    std::string key, value;
    for (;;) {
        if (!c.string(key) || !c.literal(":") || !c.string(value)) return false;
        // Ascending, as a map writes them; a repeated key is left to the general path.
        if (!detail.empty() && !(detail.rbegin()->first < key)) return false;
        if (detail.size() >= trace_limits::kMaxDetailKeys) return false;  // the general path says why
        detail.emplace_hint(detail.end(), key, value);
        if (c.literal("}")) return true;
        if (!c.literal(",")) return false;
    }
}

}  // namespace

bool read_event_line_fast(const std::string& line, int version, TraceEvent& event, std::string& name) {
    Cursor c(line);
    TraceEvent e;
    std::string key, kind;
    // Version 3 has no key and leaves out model_only when false and an empty detail.
    const bool compact = version >= kTraceCompactVersion;
    if (!c.literal(R"({"type":"event")")) return false;
    if (!compact && (!c.literal(R"(,"key":)") || !c.string(key))) return false;
    if (!c.literal(R"(,"op":)") || !c.integer(kMaxOpId, e.op)) return false;
    if (!c.literal(R"(,"name":)") || !c.string(name)) return false;
    if (!c.literal(R"(,"iters":)") || !read_iters(c, e.iters)) return false;
    if (!c.literal(R"(,"cta":)") || !c.integer(kMaxCta, e.cta)) return false;
    if (!c.literal(R"(,"warp":)") || !c.integer(kMaxWarp, e.warp)) return false;
    if (!c.literal(R"(,"lane":)") || !c.integer(kMaxLane, e.lane)) return false;
    if (!c.literal(R"(,"kind":)") || !c.string(kind)) return false;
    const auto parsed_kind = parse_event_kind(kind);
    if (!parsed_kind) return false;
    e.kind = *parsed_kind;
    if (!c.literal(R"(,"t":)") || !c.integer(kMaxTime, e.t)) return false;
    if (c.literal(R"(,"t_ns":)") && !c.integer(kMaxTime, e.t_ns)) return false;
    if (c.literal(R"(,"model_only":true)"))
        e.model_only = true;
    else if (!compact && !c.literal(R"(,"model_only":false)"))
        return false;
    if (c.literal(R"(,"what":)") && !c.string(e.what)) return false;
    if (c.literal(R"(,"detail":)")) {
        // Version 3 writes no empty detail; one in the file is left to the general path.
        if (!read_detail(c, e.detail) || (compact && e.detail.empty())) return false;
    } else if (!compact) {
        return false;
    }
    if (!c.literal("}") || !c.done()) return false;
    if (!compact && key != e.key()) return false;
    event = std::move(e);
    return true;
}

}  // namespace tmasim
