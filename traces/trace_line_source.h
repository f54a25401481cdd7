#pragma once
// The lines of a trace file as the reader takes them: bounded in length and in total (a file
// with no newline is not read to its end), and each parsed as JSON refusing a key named twice.
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tmasim {

// Lines of a trace, at most kMaxTraceLineBytes each and kMaxTraceBytes in all: a file with
// no newline is not read to its end. Reads 1 MB blocks and looks for each newline with
// memchr: a character at a time through the stream buffer was a sixth of a full-chip diff.
class TraceLineReader {
public:
    TraceLineReader(std::istream& in, const std::string& path) : in_(in), path_(path), block_(size_t(1) << 20) {}

    // The next line without its newline; false at the end (a last line without a newline
    // is a line).
    bool next(std::string& line, int line_no);

    // The byte offset of the line next() returned last.
    uint64_t line_start() const { return start_; }

private:
    bool refill();

    std::istream& in_;
    const std::string& path_;
    std::vector<char> block_;
    size_t at_ = 0, end_ = 0, total_ = 0, start_ = 0;
    bool eof_ = false;
};

// One line's JSON object; a key that appears twice in one object is a TraceError (nlohmann
// keeps the last in silence). A line the parser rejects comes back discarded.
nlohmann::json parse_trace_line(const std::string& line, const std::string& path, int line_no);

}  // namespace tmasim
