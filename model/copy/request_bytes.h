#pragma once
// Where a TmaRequest's bytes are and how they move, for every request kind: 1-D bulk
// ranges, tiled tensor boxes (TensorCopy) and gather4/scatter4 rows (Gather4Copy). The
// engine moves payloads with it, and the issuer registers the same spans for the race
// and reuse rules, so both always see the same geometry.
#include <cstdint>
#include <utility>
#include <vector>

#include "model/copy/shared_memory_image.h"
#include "model/copy/tma_request.h"
#include "model/state/global_memory.h"
#include "scenarios/ir.h"

namespace tmasim::model {

using ByteRanges = std::vector<std::pair<int64_t, int64_t>>;

class RequestBytes {
public:
    RequestBytes(const TmaRequest& r, const GlobalTensor& tensor);

    // Bytes the request moves through shared memory (a load's complete_tx total).
    int64_t smem_bytes() const;
    // Lowest and highest shared-memory byte it reads or writes.
    std::pair<int64_t, int64_t> smem_span() const;
    // The in-bounds global bytes it writes, exactly (stores, reduces, scatters).
    ByteRanges global_writes() const;
    // The global ranges whose L2 residency decides its latency.
    ByteRanges residency_ranges() const;

    // Loads: the payload read out of global memory, then written to shared memory.
    std::vector<uint8_t> read_global(const std::vector<uint8_t>& global) const;
    // The same out of the run's global memory: a tensor box reads only its rows
    // (GlobalMemory::read_range), other kinds the tensor's bytes.
    std::vector<uint8_t> read_global(GlobalMemory& global) const;
    void write_smem(const std::vector<uint8_t>& payload, std::vector<uint8_t>& smem) const;
    // A load whose bytes can land straight from the tensor's declared init, read when it
    // lands, equal to read_global now followed by write_smem: a tensor box of a tensor that
    // still holds its init, unswizzled, inside shared memory of `smem_size` bytes. A
    // full-chip stream's loads skip a 16 KB payload (zeroed, filled, copied) per tile.
    bool lands_from_init(GlobalMemory& global, size_t smem_size) const;
    void write_smem_from_init(GlobalMemory& global, std::vector<uint8_t>& smem) const;
    // What write_smem_from_init writes, to be written later (SharedMemoryImage).
    InitLanding init_landing() const;
    // Stores, reduces, scatters: the payload read out of shared memory, then written
    // (or, for reduces, combined element by element) into global memory.
    std::vector<uint8_t> read_smem(const std::vector<uint8_t>& smem) const;
    void write_global(const std::vector<uint8_t>& payload, std::vector<uint8_t>& global) const;

private:
    void reduce_into(const std::vector<uint8_t>& payload, const std::vector<int64_t>& elements,
                     std::vector<uint8_t>& global) const;

    const TmaRequest& r_;
    const GlobalTensor& tensor_;
};

}  // namespace tmasim::model
