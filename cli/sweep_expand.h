#pragma once
// `tmasim sweep`: a sweep file names a template scenario and a grid of parameters; every
// combination is one point, a scenario of its own. The sweep file:
//
//   sweep: tma_stream                  # name (letters, digits, _)
//   summary: ...                       # optional
//   template: tma_stream.template.yaml # relative to the sweep file; ${...} references (sweep_template.h)
//   params: {stages: [2, 3, 4], ctas: [1, 16, 66, 132]}
//   where: "stages * box <= 256"       # optional: keep only the points where this is not 0
//
// Points run in grid order with the last parameter varying fastest (nested loops, the first
// parameter outermost), numbered from 0 after `where`; each id is its number in 4 digits.
// Every point is loaded and validated before anything runs: an error names the template's
// file:line:col and the point's values; the sweep file's own errors name its file:line:col.
#include <cstddef>
#include <string>
#include <vector>

#include "scenarios/source_loc.h"

namespace tmasim::cli {

constexpr size_t kMaxSweepPoints = 10000;      // a larger grid is refused: split it
constexpr size_t kMaxSweepParams = 32;
constexpr size_t kMaxSweepValues = 1000;       // per parameter
constexpr size_t kMaxSweepTextBytes = size_t(256) << 20;  // all points' scenario text together

struct SweepParam {
    std::string name;
    std::vector<std::string> values;  // as written in the sweep file
    SourceLoc loc;                    // its key in the sweep file
};

struct SweepPoint {
    size_t index = 0;
    std::string id;                   // "0007"
    std::vector<std::string> values;  // one per parameter, in Sweep::params order
    std::string text;                 // the scenario
};

struct Sweep {
    std::string file;           // the sweep file as given
    std::string name;
    std::string template_file;  // resolved against the sweep file's folder
    std::vector<SweepParam> params;
    std::vector<SweepPoint> points;
    size_t grid_size = 0;       // before `where`

    // "stages=2 box=16 ctas=1"
    std::string describe(const SweepPoint& p) const;
    // fnv1a-64 of the expansion (ids and texts): what --collect checks a --slurm folder against.
    std::string fingerprint() const;
};

// Reads, expands and validates a sweep. Throws ScenarioError (exit 2) on any error.
Sweep expand_sweep(const std::string& path);

// A point's id: its index in 4 digits.
std::string point_id(size_t index);

}  // namespace tmasim::cli
