#pragma once
// compute-sanitizer's text report (racecheck, synccheck, memcheck, initcheck), read into
// records. Plain C++: no CUDA, so it is tested on recorded reports without a GPU.
//
// The forms read (compute-sanitizer's user guide, "Understanding ... Reports"), each line
// after the `=========` prefix:
//   racecheck hazard:   "Error: Potential RAW hazard detected at __shared__ 0x40 in block (0,0,0) :"
//                       "    Write Thread (3,0,0) at kernel+0x2f0 in file.cu:20"
//                       "    Read Thread (35,0,0) at kernel+0x410 in file.cu:31"
//   racecheck analysis: "Error: Race reported between Write access at kernel+0x2f0 in file.cu:20"
//                       "    and Read access at kernel+0x410 in file.cu:31 [128 hazards]"
//   one-thread reports: "Barrier error detected. Divergent thread(s) in warp",
//                       "Invalid __shared__ read of size 4 bytes", "Uninitialized __global__
//                       memory read of size 4 bytes", "Potential invalid __shared__ read ...",
//                       then "    at kernel+0xf0 in file.cu:79" and
//                       "    by thread (37,0,0) in block (0,0,0)"
//   summaries:          "RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)",
//                       "ERROR SUMMARY: 1 error"
// Both location spellings are read: "kernel+0x2f0 in file.cu:20" and the older
// "0x000002f0 in file.cu:20:kernel(int*)"; "Device Frame:" lines add the caller locations of
// inlined code. Lines the reader does not know (the program's own output, host frames) are
// skipped.
#include <array>
#include <string>
#include <vector>

namespace tmasim::device {

struct SanitizerLocation {
    std::string function;  // "" when the report gives none
    std::string pc;        // "0x2f0": the offset in the function
    std::string file;      // "" without line information
    int line = 0;
};

struct SanitizerAccess {
    std::string type;                   // "Read" or "Write"
    std::array<int, 3> thread{-1, -1, -1};  // -1: the report names no thread (analysis mode)
    int block_rank = -1;                // a cluster launch: the CTA's rank in its cluster
    SanitizerLocation at;
    long long hazards = 0;              // analysis lines: "[N hazards]"; 0 when not given
};

struct SanitizerFinding {
    enum class Kind { hazard, race, barrier, access, uninitialized, other };
    Kind kind = Kind::other;
    std::string severity;               // "error", "warning", "info", "" (one-thread reports)
    std::string hazard;                 // "RAW", "WAR", "WAW" (hazard records only)
    std::string address;                // "__shared__ 0x40"; "" when not given
    std::array<int, 3> block{-1, -1, -1};
    std::vector<SanitizerAccess> accesses;  // hazard: two (earlier first); race: every location
    std::vector<SanitizerLocation> frames;  // "Device Frame:" lines, innermost first
    std::string headline;               // the first line, without the prefix
};

struct SanitizerReport {
    std::vector<SanitizerFinding> findings;
    bool has_summary = false;  // a summary line was read: the tool finished its report
    long long summary_count = 0;  // hazards displayed (racecheck) or errors (the others)
};

std::string to_string(SanitizerFinding::Kind kind);

SanitizerReport parse_sanitizer_report(const std::string& text);

}  // namespace tmasim::device
