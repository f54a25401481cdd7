#pragma once
// The raw capture the injected library wrote (capture/injection/capture_records.h), read back:
// one CapturedLaunch per line of raw/launches.jsonl. Read strictly: a capture is tmasim's own
// output, and a line it cannot read means the capture is broken, not that it may be guessed.
#include <cstdint>
#include <string>
#include <vector>

namespace tmasim::capture {

struct CapturedRegion {
    uint64_t base = 0, size = 0;
    std::string before, after;  // content hashes: raw/data/<hash>.bin
};

struct CapturedMap {
    size_t param = 0, at = 0;  // where its 128 bytes lie in the params
    int dtype = 0;             // CUtensorMapDataType
    uint64_t global_address = 0;
    std::vector<uint64_t> dims, strides;  // fastest first, as cuTensorMapEncodeTiled took them
    std::vector<uint32_t> box, element_strides;
    int interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
};

struct CapturedParam {
    uint64_t offset = 0;
    std::vector<uint8_t> bytes;
};

struct CapturedLaunch {
    int index = 0;  // its line in launches.jsonl, from 0
    std::string entry;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
    unsigned dynamic_shared = 0;
    int sync_before = 0, sync_after = 0;  // CUresult: 0 is success
    std::string refused;
    std::vector<CapturedParam> params;
    std::vector<CapturedRegion> regions;
    std::vector<CapturedMap> maps;
};

// Throws std::runtime_error "<path>:<line>: ..." for a line it cannot read.
std::vector<CapturedLaunch> read_launches(const std::string& path);

}  // namespace tmasim::capture
