#pragma once
// XXH64 with seed 0 (the xxHash specification in github.com/Cyan4973/xxHash, its doc folder),
// written from the specification: the hash a trace keeps of a memory image of at least 1 MiB
// (traces/FORMAT.md, version 4). FNV-1a hashes one byte per multiply, ~1 GB/s; XXH64 takes
// 8 bytes per multiply in four independent lanes, so a 276 MB full-chip input tensor costs
// tens of milliseconds, not a third of the run. `xxhsum -H1 FILE` prints the same value.
#include <cstddef>
#include <cstdint>
#include <string>

namespace tmasim {

// Bytes fed in any pieces give the hash of their concatenation.
class Xxh64 {
public:
    void update(const void* data, size_t n);
    uint64_t digest() const;

private:
    uint64_t lanes_[4] = {0x9E3779B185EBCA87ull + 0xC2B2AE3D27D4EB4Full, 0xC2B2AE3D27D4EB4Full, 0,
                          0 - 0x9E3779B185EBCA87ull};
    uint64_t total_ = 0;
    uint8_t pending_[32] = {};  // the bytes of a stripe not yet complete
    size_t pending_count_ = 0;
};

uint64_t xxh64(const void* data, size_t n);
// 16 lowercase hex digits, most significant first (as xxhsum prints it).
std::string hex16(uint64_t value);
std::string xxh64_hex(const void* data, size_t n);

}  // namespace tmasim
