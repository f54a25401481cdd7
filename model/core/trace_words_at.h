#pragma once
// Where the traced kernel keeps its clock words, which decides what holds a timed barrier's end
// clock until the barrier releases (device/emit/kernel_writer_trace.cpp, hold_clock_after_barrier):
// words in shared memory are stored there, and that store waits for the release, paying
// trace_sync_hold_cycles more (traces/analysis/sync_holds.py: store-held syncs release ~71
// cycles after the last arrival); words in global memory leave a __syncwarp, which costs
// nothing past the release itself (~24, sync_cycles). The device trace's header says which
// (extra.trace_words_in): the executor keeps them in global memory for a kernel with cp.async,
// or where its shared memory has no room left for them.
#include <string>

namespace tmasim::model {

enum class TraceWordsAt {
    automatic,  // the part of the executor's rule the model can know: global with cp.async
    shared,
    global,
};

inline const char* to_string(TraceWordsAt at) {
    switch (at) {
        case TraceWordsAt::automatic: return "auto";
        case TraceWordsAt::shared: return "shared";
        case TraceWordsAt::global: return "global";
    }
    return "auto";
}

// "auto", "shared" or "global"; false for anything else.
inline bool parse_trace_words_at(const std::string& text, TraceWordsAt& out) {
    for (TraceWordsAt at : {TraceWordsAt::automatic, TraceWordsAt::shared, TraceWordsAt::global})
        if (text == to_string(at)) {
            out = at;
            return true;
        }
    return false;
}
}
