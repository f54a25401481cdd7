#pragma once
// An event's whole detail map where the reader trimmed it (TraceReadOptions::EventDetail::
// small_whole): its line read again from the trace file at the offset the reader kept, one
// line at a time, so the details of a trace never stand in memory all at once (`tmasim
// export` writes each event's map into its output as it goes).
#include <fstream>
#include <map>
#include <string>

#include "traces/trace_reader.h"

namespace tmasim {

class EventDetails {
public:
    // `file` was read from `path` with EventDetail::small_whole (or all: nothing to read).
    EventDetails(const std::string& path, const TraceFile& file);

    // The detail of `e`, one of file.result.events: e.detail itself, or for a trimmed event
    // its line's, valid until the next call. Throws TraceError when the line no longer holds
    // that event (the file changed since it was read).
    const std::map<std::string, std::string>& of(const TraceEvent& e);

private:
    std::string read_line_at(uint64_t offset);

    const std::string& path_;
    const TraceFile& file_;
    std::ifstream in_;
    std::map<std::string, std::string> read_;
};

}  // namespace tmasim
