#pragma once
// The model counts SM cycles; SystemC time is one nanosecond per cycle, whatever the
// clock, so traces carry integer cycles and no float conversion decides an ordering.
#include <cmath>
#include <cstdint>

#include <systemc>

namespace tmasim::model {

// One cycle (1 ns) in SystemC's time resolution, which is fixed once any time is made. Read
// once: building an sc_time from a double and a unit on every wait and every logged event
// looked up the simulation context each time.
inline sc_dt::uint64 cycle_value() {
    static const sc_dt::uint64 value = sc_core::sc_time(1, sc_core::SC_NS).value();
    return value;
}

// Equal to sc_time(double(n), SC_NS): a whole number of nanoseconds is a whole number of
// resolution steps.
inline sc_core::sc_time cycles(int64_t n) {
    return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(n) * cycle_value());
}

inline int64_t now_cycles() { return static_cast<int64_t>(sc_core::sc_time_stamp().value() / cycle_value()); }

// A config number of cycles (or bytes / bandwidth) rounded up to whole cycles.
inline int64_t whole_cycles(double c) { return static_cast<int64_t>(std::ceil(c - 1e-9)); }

// Thrown inside a simulated thread when the run is being torn down (hang or fault), so
// the thread unwinds and terminates instead of staying blocked.
struct RunAborted {};

}  // namespace tmasim::model
