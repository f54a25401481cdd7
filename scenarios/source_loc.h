#pragma once
#include <stdexcept>
#include <string>

namespace tmasim {

// Where a value came from in the scenario file (1-based line and column).
struct SourceLoc {
    std::string file;
    int line = 0;
    int col = 0;
    std::string str() const;  // "file:line:col"
};

// Bad input: a scenario that cannot be loaded or is invalid. Always exit code 2.
// what() is one line: "file:line:col: error: <key>: <message>".
class ScenarioError : public std::runtime_error {
public:
    ScenarioError(const SourceLoc& loc, const std::string& key, const std::string& message);
    const SourceLoc& loc() const { return loc_; }
    const std::string& key() const { return key_; }
    const std::string& message() const { return message_; }

private:
    SourceLoc loc_;
    std::string key_;
    std::string message_;
};

}  // namespace tmasim
