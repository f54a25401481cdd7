#include "scenarios/source_loc.h"

namespace tmasim {

std::string SourceLoc::str() const {
    return (file.empty() ? "<input>" : file) + ":" + std::to_string(line) + ":" + std::to_string(col);
}

ScenarioError::ScenarioError(const SourceLoc& loc, const std::string& key, const std::string& message)
    : std::runtime_error(loc.str() + ": error: " + key + ": " + message),
      loc_(loc), key_(key), message_(message) {}

}  // namespace tmasim
