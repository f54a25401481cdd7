#pragma once
// Text from the user's files (labels, names, paths, an unknown rule id) printed in a message:
// line breaks become spaces, and every other control character (ESC of a terminal escape, BEL,
// DEL) is shown as \xNN, so an error or `explain` never sends the terminal a sequence a
// scenario or a trace carried.
#include <string>

namespace tmasim::cli {

std::string printable_line(const std::string& text);

}  // namespace tmasim::cli
