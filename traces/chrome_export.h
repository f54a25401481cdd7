#pragma once
// Exports a run as Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open.
// One process per CTA, one thread per warp; an op on one thread becomes a complete ("X")
// slice from issue to complete (or wait_begin to wait_end); model-only, state and hazard
// events become instants. Timestamps are microseconds at the trace's SM clock, so the
// ruler reads real time; with no clock known, 1 cycle is shown as 1 us.
#include <iosfwd>
#include <string>

#include "scenarios/run_result.h"
#include "traces/trace_writer.h"

namespace tmasim {

void write_chrome_trace(const RunResult& result, std::ostream& out, const OpNames& names = {});
// Throws std::runtime_error when the file cannot be written.
void write_chrome_trace_file(const RunResult& result, const std::string& path, const OpNames& names = {});

}  // namespace tmasim
