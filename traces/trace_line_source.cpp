#include "traces/trace_line_source.h"

#include <cstring>
#include <set>

#include "traces/trace_error.h"
#include "traces/trace_reader.h"  // kMaxTraceBytes, kMaxTraceLineBytes

namespace tmasim {

bool TraceLineReader::next(std::string& line, int line_no) {
    line.clear();
    start_ = total_;
    size_t length = 0;
    for (;;) {
        if (at_ == end_ && !refill()) return !line.empty();
        const char* first = block_.data() + at_;
        const char* newline = static_cast<const char*>(std::memchr(first, '\n', end_ - at_));
        const size_t segment = newline ? static_cast<size_t>(newline - first) : end_ - at_;
        const size_t taken = segment + (newline ? 1 : 0);
        // The checks of a character at a time, in its order: the total counts every
        // byte (the newline too) and comes first; the length counts the line's own.
        const size_t total_fails_at = kMaxTraceBytes - total_ + 1;  // 1-based, in this piece
        const size_t length_fails_at = kMaxTraceLineBytes - length + 1;
        const bool total_fails = total_fails_at <= taken;
        const bool length_fails = length_fails_at <= segment;
        if (total_fails && (!length_fails || total_fails_at <= length_fails_at))
            throw TraceError(path_, line_no, "the trace is larger than " + std::to_string(kMaxTraceBytes) +
                                                 " bytes; allowed: at most that");
        if (length_fails)
            throw TraceError(path_, line_no, "a line longer than " + std::to_string(kMaxTraceLineBytes) +
                                                 " bytes; allowed: at most that");
        line.append(first, segment);
        length += segment;
        total_ += taken;
        at_ += taken;
        if (newline) return true;
    }
}

bool TraceLineReader::refill() {
    if (eof_) return false;
    in_.read(block_.data(), static_cast<std::streamsize>(block_.size()));
    at_ = 0;
    end_ = static_cast<size_t>(in_.gcount());
    if (end_ < block_.size()) eof_ = true;
    return end_ > 0;
}

nlohmann::json parse_trace_line(const std::string& line, const std::string& path, int line_no) {
    std::vector<std::set<std::string>> keys;  // one per open object
    std::string duplicate;
    using Json = nlohmann::json;
    Json j = Json::parse(
        line,
        [&](int, Json::parse_event_t event, Json& parsed) {
            if (event == Json::parse_event_t::object_start) keys.emplace_back();
            else if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
            else if (event == Json::parse_event_t::key && !keys.empty() && duplicate.empty() &&
                     !keys.back().insert(parsed.get<std::string>()).second)
                duplicate = parsed.get<std::string>();
            return true;
        },
        false);
    if (!duplicate.empty() && !j.is_discarded())
        throw TraceError(path, line_no, "the key '" + duplicate + "' appears twice in one object");
    return j;
}

}  // namespace tmasim
