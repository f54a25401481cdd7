#pragma once
// Whether a run's CTAs may be simulated one after another instead of all together.
//
// Simulated together, SystemC resumes the warps of every CTA in turn, cycle by cycle, and at
// 132 CTAs each resumed warp finds its CTA's state out of cache: a full-chip stream cost 1.6
// times the CPU per op of one CTA doing the same work, with 1.05 times the instructions and
// 4.4 times the last-level cache misses (bench/model_perf.sh). Simulated apart, each CTA in a
// SystemC context of its own, they cost what one CTA costs. That gives the same result when
// nothing one CTA does can change another's timing or data, which holds for a program that:
//   - runs CTAs of clusters of one (no DSMEM, multicast or cluster barrier between them);
//   - writes no global memory and no tensor map, and reads global memory only through TMA and
//     bulk loads of parameter tensor maps (no per-thread or layout access, whose L1-to-L2 request
//     path the chip shares, no cp.async, no snapshot);
//   - does the same in every CTA: no `cta` or `rank` in a loop count, a barrier or buffer index,
//     a byte count or any other expression that sets what a warp does or waits for (the
//     coordinates of a load may name them: which bytes a CTA reads does not change its timing).
// For such a program the chip's HBM channel, which every CTA's loads pass, is shared evenly:
// each CTA streams through its own share of it (RunContext::chip_share), as N CTAs doing the
// same work at the same time share it. What the run itself can still find out (two CTAs reading
// the same L2 lines, a hazard, a hang, a fault) sends it back to the CTAs simulated together
// (Simulation::needs_ctas_together), with the same even shares.
#include <optional>
#include <string>

#include "scenarios/ir.h"

namespace tmasim::model {

// Empty when the scenario's CTAs may run apart; else why not (for tests and messages).
std::optional<std::string> why_ctas_run_together(const Scenario& s);

}  // namespace tmasim::model
