#pragma once
#include <stdexcept>
#include <string>

namespace tmasim {

// A trace file that cannot be used: missing, truncated, not JSON, wrong format or version,
// a required key missing. Bad input, so the CLI exits 2. what() is "path:line: message"
// (line 0 when the problem is the whole file, e.g. it cannot be opened).
class TraceError : public std::runtime_error {
public:
    TraceError(const std::string& path, int line, const std::string& message)
        : std::runtime_error(path + ":" + std::to_string(line) + ": " + message),
          path_(path), line_(line), message_(message) {}
    const std::string& path() const { return path_; }
    int line() const { return line_; }
    const std::string& message() const { return message_; }

private:
    std::string path_;
    int line_;
    std::string message_;
};

}  // namespace tmasim
