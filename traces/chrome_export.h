#pragma once
// Exports a run as Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open.
// One process per CTA (pid CTA+1, named "CTA n"), one thread per warp (tid warp+1, "warp
// n"); an op on one thread becomes a complete ("X") slice from issue to complete (or
// wait_begin to wait_end); model-only and state events become instants ("model"), hazards
// instants of their own category ("hazard"). From the model's events (chrome_links.h):
// copies in flight as async spans, flow arrows issue -> complete_tx -> phase flip -> wait
// end, a track per barrier and counters of its tx-count and phase. Timestamps are
// microseconds at the trace's SM clock, so the ruler reads real time; with no clock known,
// 1 cycle is shown as 1 us.
#include <iosfwd>
#include <string>

#include "scenarios/run_result.h"
#include "traces/event_details.h"
#include "traces/trace_links.h"
#include "traces/trace_writer.h"

namespace tmasim {

// `targets` (from the scenario, when known) lets flows reach waits that did not block;
// `details`, where the reader trimmed events' details, gives their whole maps.
void write_chrome_trace(const RunResult& result, std::ostream& out, const OpNames& names = {},
                        const WaitTargets* targets = nullptr, EventDetails* details = nullptr);
// Throws std::runtime_error when the file cannot be written.
void write_chrome_trace_file(const RunResult& result, const std::string& path, const OpNames& names = {},
                             const WaitTargets* targets = nullptr);

}  // namespace tmasim
