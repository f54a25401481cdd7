#pragma once
// Byte movement of Blackwell tile::gather4 / tile::scatter4, without time (semantics.md
// G34-G35; PTX 5.5.3.4, 9.7.9.27.1.2). The map is 2-D with box [1, width]; one op moves
// rows rows[0..3], columns col..col+width-1, as a dense 4 x width tile in shared memory
// (row i at byte offset i*width*esize), swizzled by the map's mode like a tiled box.
// Gather fills out-of-bounds elements (negative rows and columns included) with zero or
// NaN; scatter skips them. Traps (negative scatter rows, misaligned columns) are checked
// at issue (CopyIssuer), not here.
#include <cstdint>
#include <utility>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

class Gather4Copy {
public:
    static constexpr int kRows = 4;

    Gather4Copy(const GlobalTensor& tensor, const TensorMap& map, std::vector<int64_t> rows, int64_t col);

    int64_t width() const { return width_; }  // elements per row
    int64_t tile_bytes() const { return kRows * width_ * elem_bytes_; }

    // Global element index of every tile element (row-major), -1 where out of bounds.
    std::vector<int64_t> global_elements() const;
    // Gather: the tile read out of global memory, OOB elements filled.
    std::vector<uint8_t> gather_global(const std::vector<uint8_t>& global) const;
    // Scatter: the tile written to global memory, OOB elements skipped.
    void scatter_global(const std::vector<uint8_t>& tile, std::vector<uint8_t>& global) const;

    void write_smem(const std::vector<uint8_t>& tile, std::vector<uint8_t>& smem, int64_t smem_offset) const;
    std::vector<uint8_t> read_smem(const std::vector<uint8_t>& smem, int64_t smem_offset) const;
    // Lowest and highest shared-memory byte of the tile (whole 128-byte lines when swizzled).
    std::pair<int64_t, int64_t> smem_span(int64_t smem_offset) const;
    // The in-bounds global bytes, one merged [first, last] range per in-bounds row part.
    std::vector<std::pair<int64_t, int64_t>> global_byte_ranges() const;

private:
    std::vector<int64_t> rows_;
    int64_t col_ = 0;
    int64_t width_ = 0;
    int64_t num_rows_ = 0, num_cols_ = 0;  // the tensor's shape
    int64_t elem_bytes_ = 4;
    DType type_ = DType::f32;
    Swizzle swizzle_ = Swizzle::none;
    OobFill fill_ = OobFill::zero;
};

}  // namespace tmasim::model
