// libFuzzer target: any bytes through the trace reader, then what diff, export and the
// summary do with a trace that was read. A TraceError is the expected answer to bad input;
// a crash, a sanitizer report (e.g. signed overflow on event times) or another exception
// is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "traces/chrome_export.h"
#include "traces/summary.h"
#include "traces/trace_diff.h"
#include "traces/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    tmasim::TraceFile t;
    try {
        t = tmasim::parse_trace(in, "fuzz.jsonl");
    } catch (const tmasim::TraceError&) {
        return 0;
    }
    std::ostringstream sink;
    for (bool first_op : {false, true}) {
        tmasim::DiffOptions options;
        options.align_first_op = first_op;
        options.op_names = t.op_names;
        tmasim::RunResult empty;
        empty.provenance = t.result.provenance;
        tmasim::print_diff(tmasim::diff_traces(t.result, t.result, options), sink);
        tmasim::print_diff(tmasim::diff_traces(t.result, empty, options), sink);
        tmasim::print_diff(tmasim::diff_traces(empty, t.result, options), sink);
    }
    tmasim::write_chrome_trace(t.result, sink, t.op_names);
    tmasim::print_summary(t.result, sink, t.op_names);
    return 0;
}
