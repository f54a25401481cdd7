#pragma once
// The model counts SM cycles; SystemC time is one nanosecond per cycle, whatever the
// clock, so traces carry integer cycles and no float conversion decides an ordering.
#include <cmath>
#include <cstdint>

#include <systemc>

namespace tmasim::model {

inline sc_core::sc_time cycles(int64_t n) {
    return sc_core::sc_time(static_cast<double>(n), sc_core::SC_NS);
}

inline int64_t now_cycles() {
    return static_cast<int64_t>(sc_core::sc_time_stamp().value() /
                                sc_core::sc_time(1, sc_core::SC_NS).value());
}

// A config number of cycles (or bytes / bandwidth) rounded up to whole cycles.
inline int64_t whole_cycles(double c) { return static_cast<int64_t>(std::ceil(c - 1e-9)); }

// Thrown inside a simulated thread when the run is being torn down (hang or fault), so
// the thread unwinds and terminates instead of staying blocked.
struct RunAborted {};

}  // namespace tmasim::model
