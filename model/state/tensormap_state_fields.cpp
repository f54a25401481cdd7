#include "model/state/tensormap_state_fields.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tmasim::model {

MapFields MapFields::encode(const TensorMap& map, const GlobalTensor& tensor) {
    MapFields f;
    f.map = map.name;
    f.tensor = tensor.name;
    f.type = tensor.type;
    f.global_dims = tensor.shape;
    f.global_strides.assign(tensor.shape.size() > 0 ? tensor.shape.size() - 1 : 0, 0);
    int64_t stride = dtype_size(tensor.type);
    for (size_t d = tensor.shape.size(); d-- > 1;) {
        stride *= tensor.shape[d];
        f.global_strides[d - 1] = stride;
    }
    f.box = map.box;
    f.element_strides = map.element_strides.empty() ? std::vector<int64_t>(map.box.size(), 1) : map.element_strides;
    f.swizzle = map.swizzle;
    f.interleave = map.interleave;
    f.oob_fill = map.oob_fill;
    return f;
}

int64_t MapFields::inner_unit_bytes() const {
    return interleave == Interleave::none ? element_bytes() : interleave_bytes(interleave);
}

void MapFields::replace(MapField field, int64_t dim, int64_t value, const GlobalTensor* retarget) {
    const auto check_dim = [&](int64_t dims) {
        if (dim < 0 || dim >= dims)
            throw std::invalid_argument(fmt::format("tensormap.replace: map {} has no dimension {} for {}", map, dim,
                                                    to_string(field)));
    };
    switch (field) {
        case MapField::global_address:
            if (!retarget) throw std::invalid_argument("tensormap.replace: global_address needs a tensor");
            tensor = retarget->name;
            return;
        case MapField::global_dim: check_dim(static_cast<int64_t>(rank())); global_dims[dim] = value; return;
        case MapField::box_dim: check_dim(static_cast<int64_t>(rank())); box[dim] = value; return;
        case MapField::element_stride: check_dim(static_cast<int64_t>(rank())); element_strides[dim] = value; return;
        case MapField::global_stride:
            check_dim(static_cast<int64_t>(rank()) - 1);
            global_strides[dim] = value;
            return;
    }
}

std::string MapFields::invalid_reason() const {
    const int64_t inner = box.back() * element_bytes();
    for (size_t d = 0; d < rank(); ++d) {
        if (box[d] < 1 || box[d] > 256) return fmt::format("box[{}] = {} is outside 1..256", d, box[d]);
        if (element_strides[d] < 1 || element_strides[d] > 8)
            return fmt::format("element_strides[{}] = {} is outside 1..8", d, element_strides[d]);
        if (global_dims[d] < 1 || global_dims[d] > (int64_t{1} << 32))
            return fmt::format("global dim {} = {} is outside 1..2^32", d, global_dims[d]);
    }
    // Measured on the H200: the driver refuses an inner box that is not a multiple of 16
    // bytes with interleave too (u8 box 8 and 24, f16 box 4 with INTERLEAVE_16B).
    if (inner % 16 != 0) return fmt::format("the inner box is {} bytes, not a multiple of 16", inner);
    const int64_t stride_align = interleave == Interleave::b32 ? 32 : 16;
    for (size_t d = 0; d < global_strides.size(); ++d)
        if (global_strides[d] % stride_align != 0 || global_strides[d] >= (int64_t{1} << 40))
            return fmt::format("global stride {} = {} bytes is not a multiple of {} below 2^40", d, global_strides[d],
                               stride_align);
    if (interleave == Interleave::none && swizzle != Swizzle::none && inner > swizzle_bytes(swizzle))
        return fmt::format("the inner box of {} bytes exceeds the {} swizzle span", inner, to_string(swizzle));
    return "";
}

std::string MapFields::describe() const {
    return fmt::format("tensor {} dims [{}] strides [{}] bytes box [{}] element_strides [{}]", tensor,
                       fmt::join(global_dims, ", "), fmt::join(global_strides, ", "), fmt::join(box, ", "),
                       fmt::join(element_strides, ", "));
}

}  // namespace tmasim::model
