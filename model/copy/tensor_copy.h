#pragma once
// Byte movement of TMA copies, without time: tiled tensor loads/stores in 1-5D and 1-D
// bulk copies. A copy is split in two halves because the engine performs them at
// different times: a load reads global memory when it starts and writes shared memory
// when the bytes land; a store reads shared memory first and writes global memory later.
//
// The box in shared memory is dense and row-major over ceil(box/elementStride)
// elements per dimension (outermost first); with a swizzle mode each byte's absolute
// address (offset from the 1024-aligned base) is swizzled (semantics.md E28-E29).
// Without interleave the TMA ignores the innermost element stride (DRV cuTensorMapEncodeTiled;
// an H200 loaded all 16 bytes of a u8 box with elementStrides[0] = 2).
//
// Interleaved maps (INTERLEAVE_16B/32B), as an H200 moves them (probes of boxes 1-5-D, u8,
// f16, f32, loads and stores; scenarios/catalog/tensormap/interleave_16b_load.yaml):
//   - the innermost coordinate, dim, box and element stride count 16- or 32-byte units,
//     whatever the element type (one unit holds a channel slice, PTX 5.5.6);
//   - dimension 1 (outermost first; the driver's dimension rank-2) is moved at one index,
//     its box and element stride ignored (it is bounds-checked like the others);
//   - the box is dense in shared memory over those units, then swizzled as usual; loads
//     fill out-of-bounds units and credit every byte; a store writes back the same places.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "model/state/tensormap_state_fields.h"
#include "model/copy/swizzle_address.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class TensorCopy {
public:
    TensorCopy(const GlobalTensor& tensor, const TensorMap& map);
    // From a map's current fields (a map in global memory that tensormap.replace changed:
    // another tensor, dims, strides, box); element indices count `fields.inner_unit_bytes()`.
    explicit TensorCopy(const MapFields& fields);

    const std::vector<int64_t>& extent() const { return extent_; }  // elements per dim
    int64_t box_elements() const;
    int64_t box_bytes() const { return box_elements() * elem_bytes_; }

    // Load: the box at `coords` (outermost first, may be negative), dense and unswizzled,
    // with out-of-bounds elements filled with zero or NaN (float types, oob_fill: nan).
    std::vector<uint8_t> gather_global(const std::vector<uint8_t>& global,
                                       const std::vector<int64_t>& coords) const;
    // The same, reading each in-bounds run of the tensor through read(byte offset, bytes,
    // out) (GlobalMemory::read_range: an input never held whole).
    using GlobalRead = std::function<void(int64_t offset, int64_t n, uint8_t* out)>;
    std::vector<uint8_t> gather_global(const GlobalRead& read, const std::vector<int64_t>& coords) const;
    // gather_global's box written straight to `out` (box_bytes() of them); with no swizzle
    // that is the box's place in shared memory, where scatter_smem would copy it.
    void gather_global_to(const GlobalRead& read, const std::vector<int64_t>& coords, uint8_t* out) const;
    bool unswizzled() const { return swizzle_ == Swizzle::none; }
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
    // Writes the out-of-bounds fill of one element: zero, or, when the map asks for NaN fill
    // on a float type, the NaN an H200 writes: 0x7FF7 in every 16-bit half (semantics.md D26).
    static void fill_oob_element(uint8_t* element, DType type, OobFill fill);

    // 1-D bulk copy; throws std::out_of_range naming `what` when a range leaves its buffer.
    static void bulk_copy(const std::vector<uint8_t>& src, int64_t src_offset,
                          std::vector<uint8_t>& dst, int64_t dst_offset, int64_t bytes,
                          const char* what);

private:
    // Global element index of box element k at `coords`, or -1 when out of bounds.
    int64_t global_element(int64_t k, const std::vector<int64_t>& coords) const;
    // The box row whose outer-dimension box indices are `at` (the innermost entry unused):
    // whether it lies inside the tensor in every outer dimension, and then in `base` the
    // global element index of its innermost coordinate 0.
    bool outer_row_base(const std::vector<int64_t>& coords, const std::vector<int64_t>& at, int64_t& base) const;
    // Calls f(k, global_element(k, coords)) for every box element k in order, a row of the
    // innermost dimension at a time instead of dividing k per element (a full-chip run moves
    // a hundred million elements).
    template <class F>
    void for_each_element(const std::vector<int64_t>& coords, F&& f) const;
    // Calls f(k, g, n) for runs of n box elements k.. that sit at consecutive global
    // elements g.. (g -1: n out-of-bounds elements), so a row, or a box of whole rows, moves
    // with one memcpy. Where the innermost dimension is dense, a row's runs come from its
    // bounds, not from each element.
    template <class F>
    void for_each_run(const std::vector<int64_t>& coords, F&& f) const;
    // Calls f(box_byte, smem_byte, run) for the 16-byte chunks of a box of `bytes` at
    // `smem_offset` (swizzling permutes whole chunks), so bytes move a chunk at a time; false,
    // calling nothing, when some byte would leave a shared memory of `smem_size` bytes.
    template <class F>
    bool for_each_smem_chunk(int64_t smem_offset, int64_t bytes, size_t smem_size, F&& f) const {
        if (bytes <= 0) return true;
        const auto [first, last] = swizzled_span(swizzle_, smem_offset, bytes);
        // Chunks stay inside their 128-byte line, so the span bounds every swizzled address.
        if (smem_offset < 0 || first < 0 || last >= static_cast<int64_t>(smem_size)) return false;
        if (swizzle_ == Swizzle::none) {  // every address is its own: one run (a 16 KB tile: 1024 before)
            f(0, smem_offset, static_cast<size_t>(bytes));
            return true;
        }
        for (int64_t b = 0; b < bytes;) {
            const int64_t addr = smem_offset + b;
            const int64_t run = std::min<int64_t>(16 - addr % 16, bytes - b);
            f(b, swizzled_address(swizzle_, addr), static_cast<size_t>(run));
            b += run;
        }
        return true;
    }
    // An out-of-bounds box element: every data element of it (an interleave unit holds several).
    void fill_oob(uint8_t* element) const {
        for (int64_t b = 0; b < elem_bytes_; b += dtype_size(type_)) fill_oob_element(element + b, type_, fill_);
    }

    std::vector<int64_t> shape_;         // global dims: the bounds of each coordinate
    std::vector<int64_t> index_stride_;  // elements (units) between consecutive indices of each dim
    std::vector<int64_t> extent_;
    std::vector<int64_t> stride_;
    int64_t elem_bytes_ = 4;             // bytes one box element moves: the element, or an interleave unit
    int64_t base_index_ = 0;             // the map's start in the tensor, in elements (MapFields::base_offset)
    DType type_ = DType::f32;
    Swizzle swizzle_ = Swizzle::none;
    OobFill fill_ = OobFill::zero;
};

template <class F>
void TensorCopy::for_each_run(const std::vector<int64_t>& coords, F&& f) const {
    int64_t first_k = 0, first_g = 0, n = 0;
    auto add = [&](int64_t k, int64_t g, int64_t count) {
        if (count <= 0) return;
        if (n > 0 && (first_g < 0 ? g < 0 : g >= 0 && g == first_g + n)) {
            n += count;
            return;
        }
        if (n > 0) f(first_k, first_g, n);
        first_k = k;
        first_g = g;
        n = count;
    };
    const size_t rank = extent_.size();
    const bool dense_rows = rank > 0 && coords.size() >= rank && stride_[rank - 1] == 1 && index_stride_[rank - 1] == 1;
    if (!dense_rows) {
        for_each_element(coords, [&](int64_t k, int64_t g) { add(k, g, 1); });
    } else {
        const size_t inner = rank - 1;
        const int64_t width = extent_[inner], c0 = coords[inner];
        // The row's in-bounds box columns [lo, hi).
        const int64_t lo = std::min(width, std::max<int64_t>(0, -c0));
        const int64_t hi = std::max(lo, std::min(width, shape_[inner] - c0));
        int64_t rows = 1;
        for (size_t d = 0; d < inner; ++d) rows *= extent_[d];
        std::vector<int64_t> at(rank, 0);
        for (int64_t row = 0; row < rows && width > 0; ++row) {
            const int64_t k = row * width;
            int64_t base = 0;
            if (!outer_row_base(coords, at, base)) {
                add(k, -1, width);
            } else {
                add(k, -1, lo);
                add(k + lo, base + c0 + lo, hi - lo);
                add(k + hi, -1, width - hi);
            }
            for (size_t d = inner; d-- > 0;) {
                if (++at[d] < extent_[d]) break;
                at[d] = 0;
            }
        }
    }
    if (n > 0) f(first_k, first_g, n);
}

template <class F>
void TensorCopy::for_each_element(const std::vector<int64_t>& coords, F&& f) const {
    const size_t rank = extent_.size();
    const int64_t n = box_elements();
    if (n <= 0) return;
    if (rank == 0 || coords.size() < rank) {  // the element-wise path (it throws on short coords)
        for (int64_t k = 0; k < n; ++k) f(k, global_element(k, coords));
        return;
    }
    const size_t inner = rank - 1;
    std::vector<int64_t> at(rank, 0);  // the outer dimensions' box indices
    int64_t k = 0;
    for (;;) {
        int64_t base = 0;
        const bool outer_in = outer_row_base(coords, at, base);
        for (int64_t j = 0; j < extent_[inner]; ++j, ++k) {
            const int64_t c = coords[inner] + j * stride_[inner];
            f(k, outer_in && c >= 0 && c < shape_[inner] ? base + c * index_stride_[inner] : int64_t{-1});
        }
        size_t d = inner;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++at[d] < extent_[d]) break;
            at[d] = 0;
        }
    }
}

}  // namespace tmasim::model
