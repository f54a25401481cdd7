#pragma once
// The parts of a diff that look past the bytes and times: a hazard the model reported that
// the hardware did not show, and a model config that is not the other run's GPU.
#include "scenarios/run_result.h"
#include "traces/trace_diff.h"

namespace tmasim {

// Fills report.races_not_observed and marks the memory a reported race names as
// race_dependent (a difference there is shown, not counted). Call after the memory compare.
void classify_races(const RunResult& a, const RunResult& b, const OpNames& names, DiffReport& report);

// Fills report.arch_warning when one side is the model and the other a GPU its config
// does not describe.
void check_arch(const Provenance& a, const Provenance& b, DiffReport& report);

// Fills report.kernel_span_ns_a/_b from the headers, and report.trace_level_warning when the
// model predicted a kernel traced at another level than the device run it is compared with.
void check_kernel_spans(const Provenance& a, const Provenance& b, DiffReport& report);

}  // namespace tmasim
