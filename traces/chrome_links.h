#pragma once
// The Chrome export's view of TraceLinks (trace_links.h): each copy in flight as an async
// span ("copy" category), flow arrows issue -> complete_tx -> phase flip -> wait end
// ("flow"), a track per barrier with its transactions and flips ("barrier"), and counter
// tracks of each barrier's tx-count and phase.
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "traces/trace_links.h"

namespace tmasim {

using ChromeJson = nlohmann::ordered_json;

inline int chrome_pid(int cta) { return cta + 1; }
inline int chrome_tid(int warp) { return warp + 1; }
// Barrier tracks come after every warp's (a CTA has at most 32 warps).
constexpr int kChromeBarrierTid = 1001;

// A metadata ("M") event: {"name": what, "ph": "M", "pid", "tid", "args": {key: value}}.
ChromeJson chrome_meta(const char* what, int pid, int tid, const char* key, const ChromeJson& value);

// Where the events go, one at a time (a trace's links held as one tree took GBs), and where an
// event's whole detail map comes from (trimmed by the reader: traces/event_details.h).
using ChromeEmit = std::function<void(const ChromeJson&)>;
using EventDetailOf = std::function<const std::map<std::string, std::string>&(const TraceEvent&)>;

void append_chrome_links(const RunResult& result, const TraceLinks& links, const OpNames& names, double us_per_cycle,
                         const ChromeEmit& emit, const EventDetailOf& detail_of);

}  // namespace tmasim
