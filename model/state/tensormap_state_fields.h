#pragma once
// The fields of one tiled tensor map, as the TMA reads them out of its 128-byte CUtensorMap
// (PTX 5.5.8, 9.7.9.28): which tensor (global_address), global dims and strides, box,
// element strides, swizzle, interleave, fill. A map starts with what the host's
// cuTensorMapEncodeTiled wrote (encode()); tensormap.replace changes one field (replace()).
// Every list is outermost first, like the scenario (FORMAT.md "Axis order").
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

struct MapFields {
    std::string map;                      // the scenario's map name, for messages
    std::string tensor;                   // the GlobalTensor global_address points at
    // Bytes from the tensor's first byte to global_address: 0 for a map the host encoded over a
    // tensor; a kernel's own map (tensormap.replace of global_address) may start inside one.
    int64_t base_offset = 0;
    DType type = DType::f32;
    std::vector<int64_t> global_dims;     // per dimension; the innermost one of an interleaved map counts units
    std::vector<int64_t> global_strides;  // bytes between indices of dims 0..rank-2 (the innermost is dense)
    std::vector<int64_t> box;
    std::vector<int64_t> element_strides;
    Swizzle swizzle = Swizzle::none;
    Interleave interleave = Interleave::none;
    OobFill oob_fill = OobFill::zero;

    // The fields cuTensorMapEncodeTiled stores for `map` over the dense `tensor` (what the
    // device backend passes the driver: dims = shape, strides from the shape).
    static MapFields encode(const TensorMap& map, const GlobalTensor& tensor);

    size_t rank() const { return box.size(); }
    int64_t element_bytes() const { return dtype_size(type); }
    // What one step of the innermost coordinate moves: an element, or with interleave a
    // whole 16- or 32-byte unit (measured on an H200, see TensorCopy).
    int64_t inner_unit_bytes() const;

    // tensormap.replace of `field` (`dim` outermost first; global_stride: 0..rank-2).
    // global_address takes `retarget` (same element type: the validator checks it).
    // Throws std::invalid_argument for a dimension the map does not have.
    void replace(MapField field, int64_t dim, int64_t value, const GlobalTensor* retarget);

    // The first cuTensorMapEncodeTiled rule the fields break, "" when none: a replace can
    // combine valid values into an invalid map (PTX 9.7.9.28 leaves its use undefined).
    std::string invalid_reason() const;
    // "tensor A dims [4, 64] strides [256] box [4, 64]": the fields a message shows.
    std::string describe() const;
};

}  // namespace tmasim::model
