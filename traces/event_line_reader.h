#pragma once
// The fast path of the trace reader: an event line in exactly the shape the writer gives
// it (traces/trace_line_writer.cpp: keys in its order, no spaces, strings of printable
// ASCII without escapes, integers in their ranges, detail keys ascending, the key agreeing
// with the fields) becomes a TraceEvent without a JSON tree. A full-chip trace holds a
// million event lines, and a tree per line was nine tenths of `tmasim diff`.
//
// Any other line, valid or not, is declined (false) and read the general way, which
// accepts or rejects it, with its message, as it always did: this path only ever accepts
// what the general one accepts, with the same result.
#include <string>

#include "scenarios/run_result.h"

namespace tmasim {

// On true, `event` holds the line's event and `name` its "name" value. `version`: the
// trace's format version (3 has no key and leaves out defaults).
bool read_event_line_fast(const std::string& line, int version, TraceEvent& event, std::string& name);

}  // namespace tmasim
