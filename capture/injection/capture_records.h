#pragma once
// What the injected library records of a program's launches, and where it writes it
// (cupti_capture.cpp says why a CUPTI injection; docs/capture.md describes the files). Plain C++
// and the driver API only: this library runs inside the captured program.
#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tmasim_capture {

// A device allocation a launch's params or tensor maps reach; its bytes by content hash.
struct Region {
    uint64_t base = 0, size = 0;
    std::string before, after;  // hashes naming raw/data/<hash>.bin; "" when not read
};

// One cuTensorMapEncodeTiled call: its arguments as the driver got them (fastest first) and the
// 128 bytes it wrote, by which a launch's param bytes are recognised as this map.
struct EncodedMap {
    uint8_t bytes[128] = {};
    int dtype = 0;
    uint64_t global_address = 0;
    std::vector<uint64_t> dims, strides;
    std::vector<uint32_t> box, element_strides;
    int interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
};

// Where a recognised map lies in the params: param index and byte offset inside it.
struct MapUse {
    size_t param = 0, at = 0;
    size_t map = 0;  // index into the recorder's encoded maps
    uint64_t global_address = 0;
};

struct Param {
    size_t offset = 0;  // in the kernel's param space (cuFuncGetParamInfo)
    std::vector<uint8_t> bytes;
};

struct LaunchRecord {
    std::string entry;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
    unsigned dynamic_shared = 0;
    std::vector<Param> params;
    std::vector<Region> regions;
    std::vector<MapUse> maps;
    int sync_before = 0, sync_after = 0;  // CUresult of the synchronisations around the launch
    std::string refused;                  // why this launch cannot be replayed ("" when it can)
};

class Recorder {
public:
    // kernel: capture only launches whose entry contains it (nullptr: all); limit: at most that
    // many launches (nullptr: no limit).
    Recorder(const std::string& dir, const char* kernel, const char* limit);
    bool wants_more() const { return limit_ < 0 || captured_ < limit_; }
    bool wants(const std::string& entry) const { return kernel_.empty() || entry.find(kernel_) != std::string::npos; }
    void note_tensor_map(const EncodedMap& m) { maps_.push_back(m); }
    void note_module_image(const void* image);
    void note_missed_runtime_launch(const char* function);
    // A launch whose kernel has no name the driver gives (cuFuncGetName's CUresult): counted in
    // raw/callbacks.txt, so a capture that missed launches says so.
    void note_unnamed_launch(int result) { ++unnamed_[result]; }
    void count_callback(int domain, unsigned cbid) { ++callbacks_[{domain, cbid}]; }
    // raw/device.txt: the GPU and driver the launches ran on (written once).
    void note_device();
    // Finds the encoded maps among r.params' bytes (any 64-byte aligned place, as a
    // __grid_constant__ CUtensorMap or a field of a params struct).
    void match_tensor_maps(LaunchRecord& r) const;
    // Copies [base, base+size) of device memory to raw/data/<hash>.bin (once per content).
    std::string store_device_bytes(uint64_t base, uint64_t size);
    void begin(LaunchRecord r);
    bool pending() const { return pending_; }
    void finish(int sync_after);
    void close();

private:
    void write_line(const LaunchRecord& r);
    std::string dir_, kernel_;
    long limit_ = -1, captured_ = 0;
    std::vector<EncodedMap> maps_;
    LaunchRecord current_;
    bool pending_ = false, closed_ = false, device_noted_ = false;
    int modules_ = 0;
    std::vector<std::string> missed_;
    std::map<int, long> unnamed_;
    std::map<std::pair<int, unsigned>, long> callbacks_;
    FILE* launches_ = nullptr;
};

}  // namespace tmasim_capture
