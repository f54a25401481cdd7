#pragma once
// What a launch finds in L2, which decides whether a global read is an L2 hit or goes to HBM.
#include <string>

namespace tmasim::model {

enum class L2AtLaunch {
    // Nothing: every line's first read goes to HBM, through the chip's and the SM's HBM
    // shares (a launch after other work evicted its tensors).
    cold,
    // The device executor's launch: it copies every global tensor in from the host just
    // before (device/launch/gpu_session.cpp), which leaves them in L2 where they fit together. A
    // line's first touch still pays the cold latency (tma_latency_hbm_cycles and the like:
    // bulk_load_latency's first pass, 596 cycles for 4 KiB against 418 when read again), but
    // the bytes stream at L2's rate, not through the SM's HBM share (bench/tma_stream: 128
    // KiB in 1216-1248 ns untraced on the H200, 1643 ns modelled through HBM, 1390 from L2).
    inputs,
    // An identical launch came before (a benchmark's timed launches): what it read is in L2
    // where the global tensors fit there, first touches included.
    warm,
};

inline const char* to_string(L2AtLaunch l2) {
    switch (l2) {
        case L2AtLaunch::cold: return "cold";
        case L2AtLaunch::inputs: return "inputs";
        case L2AtLaunch::warm: return "warm";
    }
    return "inputs";
}

// "cold", "inputs" or "warm"; false for anything else.
inline bool parse_l2_at_launch(const std::string& text, L2AtLaunch& out) {
    for (L2AtLaunch l2 : {L2AtLaunch::cold, L2AtLaunch::inputs, L2AtLaunch::warm})
        if (text == to_string(l2)) {
            out = l2;
            return true;
        }
    return false;
}

}  // namespace tmasim::model
