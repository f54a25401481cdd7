#pragma once
// One CTA's shared-memory bytes, with the TMA loads that land straight from a tensor's
// declared init (RequestBytes::lands_from_init) written when someone reads the bytes, not
// when they land. A full-chip stream lands 276 MB that nothing reads before the run's end
// (only the last tile of each stage reaches the trace); writing each tile at its landing
// cost a sixth of the 132-CTA run, most of it because 132 CTAs' stages (8.4 MB) do not fit
// in L2 and pushed every other CTA's state out with them.
//
// Exact: a landing's bytes are a function of the box and the init alone (the init is read
// whatever the tensor holds by then), every access to the bytes goes through bytes(), which
// writes the held landings first in landing order, and a landing is dropped only when a
// later one covers all its bytes. At most kMostHeld are held (then all are written), so a
// program that lands all over shared memory and never reads it keeps a bounded list.
//
// The bytes themselves are made (zeroed) on the first read, not with the CTA: a streaming
// CTA's shared memory is read only for the trace's images at the end (copy_range), which
// are built from zeros and the held landings directly. 132 CTAs' 64 KB zeroed up front and
// copied out at the end were 2,100 page faults and two passes over 8.4 MB.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/state/global_memory.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class TensorCopy;

// What RequestBytes::write_smem_from_init needs, kept apart from the request (which is
// gone once the landing is done).
struct InitLanding {
    std::shared_ptr<const TensorCopy> box;  // the request's box geometry (TmaRequest::box)
    std::vector<int64_t> coords;
    const GlobalTensor* tensor = nullptr;
    int64_t smem_offset = 0;  // the box's first byte; it covers box->box_bytes() bytes, unswizzled
    int64_t bytes = 0;

    // The box read from the tensor's init, written to `at` (where smem_offset lies).
    void write(GlobalMemory& global, uint8_t* at) const;
};

class SharedMemoryImage {
public:
    static constexpr size_t kMostHeld = 16;

    // `global` holds the tensors the landings read the init of; it outlives this image.
    SharedMemoryImage(size_t bytes, GlobalMemory& global);

    size_t size() const { return size_; }
    // The bytes, with every held landing written first.
    std::vector<uint8_t>& bytes();
    const std::vector<uint8_t>& bytes() const;
    // bytes()[offset, offset + n) (inside the image), without making the whole image when it
    // was never read: zeros and the held landings that lie inside the range, in landing
    // order (those outside cannot change it). Holds the landings on.
    std::vector<uint8_t> copy_range(size_t offset, size_t n) const;
    // Holds `landing` until the bytes are read (see above).
    void land_from_init(InitLanding landing);
    size_t held() const { return held_.size(); }

private:
    void write_held() const;
    void make_bytes() const;  // zeroed, on the first read

    size_t size_ = 0;
    // Mutable: reading the bytes of a const image writes what is held first.
    mutable bool made_ = false;
    mutable std::vector<uint8_t> bytes_;
    mutable std::vector<InitLanding> held_;
    GlobalMemory& global_;
};

}  // namespace tmasim::model
