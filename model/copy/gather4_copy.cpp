#include "model/copy/gather4_copy.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "model/copy/swizzle_address.h"
#include "model/copy/tensor_copy.h"

namespace tmasim::model {

Gather4Copy::Gather4Copy(const GlobalTensor& tensor, const TensorMap& map, std::vector<int64_t> rows, int64_t col)
    : rows_(std::move(rows)),
      col_(col),
      elem_bytes_(dtype_size(tensor.type)),
      type_(tensor.type),
      swizzle_(map.swizzle),
      fill_(map.oob_fill) {
    // The loader checks these; a violation here is a model bug, not a scenario error.
    if (tensor.shape.size() != 2 || map.box.size() != 2 || rows_.size() != kRows)
        throw std::invalid_argument(fmt::format("model: gather4/scatter4 needs a 2-D tensor, a 2-D map and 4 rows "
                                                "(map {}, tensor {})", map.name, tensor.name));
    num_rows_ = tensor.shape[0];
    num_cols_ = tensor.shape[1];
    width_ = map.box[1];
}

std::vector<int64_t> Gather4Copy::global_elements() const {
    std::vector<int64_t> out(kRows * width_, -1);
    for (int i = 0; i < kRows; ++i) {
        const int64_t r = rows_[i];
        if (r < 0 || r >= num_rows_) continue;  // the whole row is out of bounds
        for (int64_t j = 0; j < width_; ++j) {
            const int64_t c = col_ + j;
            if (c >= 0 && c < num_cols_) out[i * width_ + j] = r * num_cols_ + c;
        }
    }
    return out;
}

std::vector<uint8_t> Gather4Copy::gather_global(const std::vector<uint8_t>& global) const {
    std::vector<uint8_t> tile(tile_bytes());
    const std::vector<int64_t> g = global_elements();
    for (size_t k = 0; k < g.size(); ++k) {
        uint8_t* out = tile.data() + k * elem_bytes_;
        if (g[k] < 0)
            TensorCopy::fill_oob_element(out, type_, fill_);
        else
            std::memcpy(out, global.data() + g[k] * elem_bytes_, elem_bytes_);
    }
    return tile;
}

void Gather4Copy::scatter_global(const std::vector<uint8_t>& tile, std::vector<uint8_t>& global) const {
    const std::vector<int64_t> g = global_elements();
    for (size_t k = 0; k < g.size(); ++k)
        if (g[k] >= 0) std::memcpy(global.data() + g[k] * elem_bytes_, tile.data() + k * elem_bytes_, elem_bytes_);
}

void Gather4Copy::write_smem(const std::vector<uint8_t>& tile, std::vector<uint8_t>& smem,
                             int64_t smem_offset) const {
    for (int64_t b = 0; b < static_cast<int64_t>(tile.size()); ++b)
        smem.at(swizzled_address(swizzle_, smem_offset + b)) = tile[b];
}

std::vector<uint8_t> Gather4Copy::read_smem(const std::vector<uint8_t>& smem, int64_t smem_offset) const {
    std::vector<uint8_t> tile(tile_bytes());
    for (int64_t b = 0; b < tile_bytes(); ++b) tile[b] = smem.at(swizzled_address(swizzle_, smem_offset + b));
    return tile;
}

std::pair<int64_t, int64_t> Gather4Copy::smem_span(int64_t smem_offset) const {
    return swizzled_span(swizzle_, smem_offset, tile_bytes());
}

std::vector<std::pair<int64_t, int64_t>> Gather4Copy::global_byte_ranges() const {
    return TensorCopy::byte_ranges(global_elements(), elem_bytes_);
}

}  // namespace tmasim::model
