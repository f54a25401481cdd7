#pragma once
// One request to the TMA unit, as CopyIssuer builds it and TmaEngine moves it, and the
// questions every part of the model asks about its kind. Keeping the predicates here
// means a new kind (reduce, gather4, scatter4) is classified once: the engine, the issuer
// and the byte movement (RequestBytes) all agree on what reads or writes which memory.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/core/event_log.h"
#include "scenarios/ir.h"

namespace tmasim::model {

struct MapFields;
class TensorCopy;

struct TmaRequest {
    // Prefetches move no bytes into shared memory: they only warm the L2 lines (the
    // model's residency), taking port time like a load of the same size.
    // Reduces read shared memory like stores and combine into global memory element by
    // element (cp.reduce.async.bulk); gather4/scatter4 move four rows of a 2-D map.
    enum class Kind {
        tensor_load, tensor_store, bulk_load, bulk_store, tensor_prefetch, bulk_prefetch,
        bulk_reduce, tensor_reduce, gather4, scatter4
    };
    Kind kind = Kind::tensor_load;
    const Op* op = nullptr;         // the issuing op
    EventSite site;                 // the issuing op instance and thread
    int thread = 0;
    const TensorMap* map = nullptr; // tensor ops
    // Tensor ops: the map's fields at issue (a map in global memory may have been changed
    // by tensormap.replace); the bytes move by these, not by the declaration.
    std::shared_ptr<const MapFields> fields;
    int tensormap_reader = -1;      // a map in global memory: its in-flight read (TensorMapStates)
    std::string tensor;             // global tensor name
    std::vector<int64_t> coords;    // tensor ops, outermost first
    std::vector<int64_t> rows;      // gather4/scatter4: the four row coordinates
    int64_t col = 0;                // gather4/scatter4: the first column
    ReduceOp reduce = ReduceOp::add;  // reduces: the element operation
    int64_t global_offset = 0;      // bulk ops, bytes
    int64_t smem_offset = 0;        // bytes from the CTA's shared-memory base
    int64_t bytes = 0;
    int barrier = -1;               // loads
    int bulk_token = -1;            // stores
    uint32_t cluster_time = 0;      // loads in a cluster: the TMA agent's ClusterClock time at issue
    // Loads land and credit their barrier in chunks (tma_complete_tx_chunk_bytes): a
    // phase can complete on part of a copy when the expected bytes are fewer than the
    // box, as on the hardware; the rest counts against the next phase.
    struct Chunk {
        int64_t first = 0, last = 0;  // shared-memory bytes the chunk covers
        int64_t credit = 0;           // bytes its complete_tx signals
        int write_id = -1;            // AsyncWriteRegistry id
    };
    // The chunks are cut from one span and registered one after another, so they are held
    // as that rule, not as a list: a list was 64 x 32 bytes per tile, written at issue and
    // read when the tile lands, by then out of cache at 132 CTAs.
    class ChunkRun {
    public:
        ChunkRun() = default;
        // `bytes` credited from [first, last], `chunk` bytes a chunk (the last one ends at
        // `last` and credits the rest), registered as writes first_write_id on.
        ChunkRun(int64_t first, int64_t last, int64_t bytes, int64_t chunk, int first_write_id)
            : first_(first), last_(last), bytes_(bytes), chunk_(chunk), first_write_id_(first_write_id),
              count_(bytes > 0 ? static_cast<size_t>((bytes + chunk - 1) / chunk) : 0) {}
        size_t size() const { return count_; }
        bool empty() const { return count_ == 0; }
        Chunk operator[](size_t i) const {
            const int64_t done = static_cast<int64_t>(i) * chunk_;
            Chunk c;
            c.first = first_ + done;
            c.last = done + chunk_ >= bytes_ ? last_ : std::min(last_, first_ + done + chunk_ - 1);
            c.credit = std::min(chunk_, bytes_ - done);
            c.write_id = first_write_id_ + static_cast<int>(i);
            return c;
        }

    private:
        int64_t first_ = 0, last_ = -1, bytes_ = 0, chunk_ = 1;
        int first_write_id_ = -1;
        size_t count_ = 0;
    };
    ChunkRun chunks;
    // A tensor request's box geometry, made by RequestBytes on first use and kept: it is
    // asked for at issue, for the latency, and when the bytes land (four vectors each time).
    mutable std::shared_ptr<const TensorCopy> box;
};

using RequestKind = TmaRequest::Kind;

// Global -> shared with an mbarrier (complete_tx).
inline bool loads_smem(RequestKind k) {
    return k == RequestKind::tensor_load || k == RequestKind::bulk_load || k == RequestKind::gather4;
}
inline bool is_prefetch(RequestKind k) {
    return k == RequestKind::tensor_prefetch || k == RequestKind::bulk_prefetch;
}
// Shared -> global through a bulk group: stores, reduces and scatters (C18-C19).
inline bool writes_global(RequestKind k) { return !loads_smem(k) && !is_prefetch(k); }
inline bool is_reduce(RequestKind k) { return k == RequestKind::bulk_reduce || k == RequestKind::tensor_reduce; }
// Moves the box of a tiled tensor map (TensorCopy).
inline bool is_tensor_box(RequestKind k) {
    return k == RequestKind::tensor_load || k == RequestKind::tensor_store || k == RequestKind::tensor_prefetch ||
           k == RequestKind::tensor_reduce;
}
inline bool is_row_copy(RequestKind k) { return k == RequestKind::gather4 || k == RequestKind::scatter4; }

}  // namespace tmasim::model
