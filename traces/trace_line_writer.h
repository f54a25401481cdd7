#pragma once
// Appends trace lines to a reused buffer without building a JSON object per line: the
// event section is most of a trace (a million lines for a full-chip run), and a tree of
// nlohmann nodes per event cost more than the simulation. The bytes are the ones
// nlohmann::ordered_json::dump gives for the same object (tests/traces/test_trace_io.cpp
// holds the two side by side), so a trace does not change with the writer.
#include <cstdint>
#include <string>

#include "scenarios/run_result.h"

namespace tmasim {

// `s` as a JSON string literal, quotes included, escaped the way nlohmann does (invalid
// UTF-8 replaced by U+FFFD).
void append_json_string(std::string& out, const std::string& s);

// One event line, without the newline; `name` is the op kind ("" when unknown).
void append_event_line(std::string& out, const TraceEvent& e, const std::string& name);

}  // namespace tmasim
