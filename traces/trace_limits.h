#pragma once
// Ranges of the numbers a trace holds (what the model and the device can write, with
// room): the reader rejects anything outside them, on its general and its fast path.
#include <cstddef>
#include <cstdint>

namespace tmasim::trace_limits {

constexpr int64_t kMaxTime = int64_t(1) << 53;  // cycles or ns; exact as a double
constexpr int kMaxCta = (1 << 24) - 1;
constexpr int kMaxOpId = (1 << 24) - 1;
constexpr int kMaxWarp = 31;  // 1024 threads per CTA
constexpr int kMaxLane = 31;
constexpr size_t kMaxIters = 16;      // loops nest at most 16 deep
constexpr int64_t kMaxIter = 65535;   // a loop runs at most 65536 times
constexpr int kMaxClockMhz = 100000;
// A detail map (an event's or a diagnostic's) has a handful of keys; a 200k-key one made export
// quadratic (27 s). The model's largest has under 20.
constexpr size_t kMaxDetailKeys = 256;

}  // namespace tmasim::trace_limits
