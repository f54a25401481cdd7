#include "scenarios/tensormap_rules.h"

#include <string>

namespace tmasim {

namespace {
[[noreturn]] void fail(const TensorMap& m, const std::string& key, const std::string& msg) {
    throw ScenarioError(m.loc, "tensormaps." + m.name + "." + key, msg + " [cuTensorMapEncodeTiled]");
}
}  // namespace

void check_tensormap_encode_rules(const TensorMap& m, const GlobalTensor& t) {
    const size_t rank = t.shape.size();
    const int64_t esize = dtype_size(t.type);
    if (rank < 1 || rank > 5) fail(m, "tensor", "tensor rank " + std::to_string(rank) + " is out of range; allowed: 1..5");
    if (m.box.size() != rank)
        fail(m, "box", "box has " + std::to_string(m.box.size()) + " dims but tensor " + t.name + " has rank " +
                           std::to_string(rank) + "; allowed: one box size per tensor dimension");
    for (size_t d = 0; d < rank; ++d)
        if (m.box[d] < 1 || m.box[d] > 256)
            fail(m, "box", "box[" + std::to_string(d) + "] = " + std::to_string(m.box[d]) +
                               " is out of range; allowed: 1..256");
    if (!m.element_strides.empty()) {
        if (m.element_strides.size() != rank)
            fail(m, "element_strides", "expected " + std::to_string(rank) + " element strides, got " +
                                           std::to_string(m.element_strides.size()));
        for (size_t d = 0; d < rank; ++d)
            if (m.element_strides[d] < 1 || m.element_strides[d] > 8)
                fail(m, "element_strides", "element_strides[" + std::to_string(d) + "] = " +
                                               std::to_string(m.element_strides[d]) + " is out of range; allowed: 1..8");
    }
    const int64_t inner_bytes = m.box[rank - 1] * esize;
    if (inner_bytes % 16 != 0)
        fail(m, "box", "the innermost box dimension is " + std::to_string(inner_bytes) +
                           " bytes; allowed: a multiple of 16 bytes (boxDim[0] * element size)");
    // Global strides (bytes between consecutive indices of each outer dimension).
    int64_t stride = esize;
    for (size_t d = rank; d-- > 1;) {
        stride *= t.shape[d];
        if (stride % 16 != 0)
            fail(m, "tensor", "global stride of dimension " + std::to_string(d - 1) + " is " + std::to_string(stride) +
                                  " bytes; allowed: a multiple of 16 bytes (pad the tensor's rows)");
        if (stride >= (int64_t(1) << 40))
            fail(m, "tensor", "global stride of dimension " + std::to_string(d - 1) + " is too large; allowed: < 2^40 bytes");
    }
    if (m.swizzle != Swizzle::none && inner_bytes > swizzle_bytes(m.swizzle))
        fail(m, "swizzle", "inner box of " + std::to_string(inner_bytes) + " bytes exceeds the " + to_string(m.swizzle) +
                               " swizzle span; allowed: at most " + std::to_string(swizzle_bytes(m.swizzle)) + " bytes");
    if (m.oob_fill == OobFill::nan && !dtype_is_float(t.type))
        fail(m, "oob_fill", "NaN fill needs a float tensor, but " + t.name + " is " + to_string(t.type) +
                                "; allowed: zero");
}

}  // namespace tmasim
