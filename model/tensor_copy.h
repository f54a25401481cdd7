#pragma once
// Byte movement of TMA copies, without time: tiled tensor loads/stores in 1-5D and 1-D
// bulk copies. A copy is split in two halves because the engine performs them at
// different times: a load reads global memory when it starts and writes shared memory
// when the bytes land; a store reads shared memory first and writes global memory later.
//
// The box in shared memory is dense and row-major over ceil(box/elementStride)
// elements per dimension (outermost first); with a swizzle mode each byte's absolute
// address (offset from the 1024-aligned base) is swizzled (semantics.md E28-E29).
#include <cstdint>
#include <utility>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

class TensorCopy {
public:
    TensorCopy(const GlobalTensor& tensor, const TensorMap& map);

    const std::vector<int64_t>& extent() const { return extent_; }  // elements per dim
    int64_t box_elements() const;
    int64_t box_bytes() const { return box_elements() * elem_bytes_; }

    // Load: the box at `coords` (outermost first, may be negative), dense and unswizzled,
    // with out-of-bounds elements filled with zero or NaN (float types, oob_fill: nan).
    std::vector<uint8_t> gather_global(const std::vector<uint8_t>& global,
                                       const std::vector<int64_t>& coords) const;
    void scatter_smem(const std::vector<uint8_t>& box, std::vector<uint8_t>& smem,
                      int64_t smem_offset) const;

    // Store: the box read out of shared memory, then written to global memory skipping
    // out-of-bounds elements. Returns how many elements were skipped.
    std::vector<uint8_t> gather_smem(const std::vector<uint8_t>& smem, int64_t smem_offset) const;
    int64_t scatter_global(const std::vector<uint8_t>& box, const std::vector<int64_t>& coords,
                           std::vector<uint8_t>& global) const;

    // Lowest and highest shared-memory byte the box occupies at `smem_offset`.
    std::pair<int64_t, int64_t> smem_span(int64_t smem_offset) const;
    // Global byte ranges [first, last] the box touches in bounds (for L2 residency).
    std::pair<int64_t, int64_t> global_span(const std::vector<int64_t>& coords) const;
    // The in-bounds global bytes of the box exactly, as merged [first, last] ranges (what a
    // store writes; race checks must not flag bytes between the box's rows).
    std::vector<std::pair<int64_t, int64_t>> global_byte_ranges(const std::vector<int64_t>& coords) const;

    // Global element index of every box element at `coords` (row-major), -1 where out of
    // bounds: what a reduction combines into, element by element.
    std::vector<int64_t> global_elements(const std::vector<int64_t>& coords) const;
    // Global elements (-1 = out of bounds, skipped) as merged runs of bytes [first, last].
    static std::vector<std::pair<int64_t, int64_t>> byte_ranges(const std::vector<int64_t>& elements,
                                                                int64_t elem_bytes);
    // Writes the out-of-bounds fill of one element: zero, or the canonical quiet NaN of a
    // float type when the map asks for NaN fill (semantics.md D26).
    static void fill_oob_element(uint8_t* element, DType type, OobFill fill);

    // 1-D bulk copy; throws std::out_of_range naming `what` when a range leaves its buffer.
    static void bulk_copy(const std::vector<uint8_t>& src, int64_t src_offset,
                          std::vector<uint8_t>& dst, int64_t dst_offset, int64_t bytes,
                          const char* what);

private:
    // Global element index of box element k at `coords`, or -1 when out of bounds.
    int64_t global_element(int64_t k, const std::vector<int64_t>& coords) const;
    void fill_oob(uint8_t* element) const { fill_oob_element(element, type_, fill_); }

    std::vector<int64_t> shape_;
    std::vector<int64_t> extent_;
    std::vector<int64_t> stride_;
    int64_t elem_bytes_ = 4;
    DType type_ = DType::f32;
    Swizzle swizzle_ = Swizzle::none;
    OobFill fill_ = OobFill::zero;
};

}  // namespace tmasim::model
