#include "model/copy/request_bytes.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include "model/copy/element_reduce.h"
#include "model/copy/gather4_copy.h"
#include "model/copy/tensor_copy.h"

namespace tmasim::model {

namespace {
// A tensor request moves by the map's fields at issue when it has them (set before any
// RequestBytes is made for it, and never changed after).
const TensorCopy& box_of(const TmaRequest& r, const GlobalTensor& tensor) {
    if (!r.box) r.box = std::make_shared<const TensorCopy>(r.fields ? TensorCopy(*r.fields) : TensorCopy(tensor, *r.map));
    return *r.box;
}

std::vector<int64_t> linear_elements(int64_t first_element, int64_t count) {
    std::vector<int64_t> out(count);
    std::iota(out.begin(), out.end(), first_element);
    return out;
}
}  // namespace

RequestBytes::RequestBytes(const TmaRequest& r, const GlobalTensor& tensor) : r_(r), tensor_(tensor) {}

int64_t RequestBytes::smem_bytes() const {
    if (is_tensor_box(r_.kind)) return box_of(r_, tensor_).box_bytes();
    if (is_row_copy(r_.kind)) return Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).tile_bytes();
    return r_.bytes;
}

std::pair<int64_t, int64_t> RequestBytes::smem_span() const {
    if (is_tensor_box(r_.kind)) return box_of(r_, tensor_).smem_span(r_.smem_offset);
    if (is_row_copy(r_.kind)) return Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).smem_span(r_.smem_offset);
    return {r_.smem_offset, r_.smem_offset + r_.bytes - 1};
}

ByteRanges RequestBytes::global_writes() const {
    if (is_tensor_box(r_.kind)) return box_of(r_, tensor_).global_byte_ranges(r_.coords);
    if (is_row_copy(r_.kind)) return Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).global_byte_ranges();
    return {{r_.global_offset, r_.global_offset + r_.bytes - 1}};
}

ByteRanges RequestBytes::residency_ranges() const {
    // A tensor box counts as one span (its lowest to highest in-bounds byte); gather4
    // rows are far apart, so each row part counts on its own.
    if (is_tensor_box(r_.kind)) return {box_of(r_, tensor_).global_span(r_.coords)};
    return global_writes();
}

std::vector<uint8_t> RequestBytes::read_global(GlobalMemory& global) const {
    if (!is_tensor_box(r_.kind)) return read_global(global.read_bytes(tensor_.name));
    return box_of(r_, tensor_).gather_global(
        [&](int64_t offset, int64_t n, uint8_t* out) { global.read_range(tensor_.name, offset, n, out); }, r_.coords);
}

std::vector<uint8_t> RequestBytes::read_global(const std::vector<uint8_t>& global) const {
    if (is_tensor_box(r_.kind)) return box_of(r_, tensor_).gather_global(global, r_.coords);
    if (is_row_copy(r_.kind)) return Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).gather_global(global);
    std::vector<uint8_t> out(r_.bytes);
    TensorCopy::bulk_copy(global, r_.global_offset, out, 0, r_.bytes, "bulk.load source");
    return out;
}

bool RequestBytes::lands_from_init(GlobalMemory& global, size_t smem_size) const {
    if (!is_tensor_box(r_.kind) || !global.holds_init(tensor_.name)) return false;
    const TensorCopy& box = box_of(r_, tensor_);
    const int64_t bytes = box.box_bytes();
    return box.unswizzled() && bytes > 0 && r_.smem_offset >= 0 &&
           r_.smem_offset + bytes <= static_cast<int64_t>(smem_size);
}

void RequestBytes::write_smem_from_init(GlobalMemory& global, std::vector<uint8_t>& smem) const {
    box_of(r_, tensor_).gather_global_to(
        [&](int64_t offset, int64_t n, uint8_t* out) { global.read_initial_range(tensor_.name, offset, n, out); },
        r_.coords, smem.data() + r_.smem_offset);
}

InitLanding RequestBytes::init_landing() const {
    const int64_t bytes = box_of(r_, tensor_).box_bytes();  // makes r_.box
    return InitLanding{r_.box, r_.coords, &tensor_, r_.smem_offset, bytes};
}

void RequestBytes::write_smem(const std::vector<uint8_t>& payload, std::vector<uint8_t>& smem) const {
    if (is_tensor_box(r_.kind))
        box_of(r_, tensor_).scatter_smem(payload, smem, r_.smem_offset);
    else if (is_row_copy(r_.kind))
        Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).write_smem(payload, smem, r_.smem_offset);
    else
        TensorCopy::bulk_copy(payload, 0, smem, r_.smem_offset, r_.bytes, "bulk.load destination");
}

std::vector<uint8_t> RequestBytes::read_smem(const std::vector<uint8_t>& smem) const {
    if (is_tensor_box(r_.kind)) return box_of(r_, tensor_).gather_smem(smem, r_.smem_offset);
    if (is_row_copy(r_.kind)) return Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).read_smem(smem, r_.smem_offset);
    std::vector<uint8_t> out(r_.bytes);
    TensorCopy::bulk_copy(smem, r_.smem_offset, out, 0, r_.bytes, "bulk.store source");
    return out;
}

void RequestBytes::write_global(const std::vector<uint8_t>& payload, std::vector<uint8_t>& global) const {
    if (r_.kind == RequestKind::tensor_reduce) {
        // Out-of-bounds box elements are skipped, as a tensor store skips them.
        reduce_into(payload, box_of(r_, tensor_).global_elements(r_.coords), global);
    } else if (r_.kind == RequestKind::bulk_reduce) {
        const int64_t esize = dtype_size(tensor_.type);
        reduce_into(payload, linear_elements(r_.global_offset / esize, r_.bytes / esize), global);
    } else if (is_tensor_box(r_.kind)) {
        box_of(r_, tensor_).scatter_global(payload, r_.coords, global);
    } else if (is_row_copy(r_.kind)) {
        Gather4Copy(tensor_, *r_.map, r_.rows, r_.col).scatter_global(payload, global);
    } else {
        TensorCopy::bulk_copy(payload, 0, global, r_.global_offset, r_.bytes, "bulk.store destination");
    }
}

void RequestBytes::reduce_into(const std::vector<uint8_t>& payload, const std::vector<int64_t>& elements,
                               std::vector<uint8_t>& global) const {
    const ElementReduce reduce(r_.reduce, tensor_.type);
    const int64_t esize = reduce.element_bytes();
    for (size_t k = 0; k < elements.size(); ++k) {
        const int64_t g = elements[k];
        if (g < 0) continue;
        if ((g + 1) * esize > static_cast<int64_t>(global.size()) || static_cast<int64_t>(k + 1) * esize > static_cast<int64_t>(payload.size()))
            throw std::out_of_range("reduce destination: element " + std::to_string(g) + " leaves " + tensor_.name);
        reduce.apply(global.data() + g * esize, payload.data() + k * esize);
    }
}

}  // namespace tmasim::model
