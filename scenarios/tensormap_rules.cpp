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
    const bool interleaved = m.interleave != Interleave::none;
    if (rank < 1 || rank > 5) fail(m, "tensor", "tensor rank " + std::to_string(rank) + " is out of range; allowed: 1..5");
    if (interleaved && rank < 3)
        fail(m, "interleave", "interleave " + to_string(m.interleave) + " needs a tensor of rank 3..5, but " + t.name +
                                  " has rank " + std::to_string(rank) + "; allowed: none for rank 1 and 2");
    if (m.interleave == Interleave::b32 && m.swizzle != Swizzle::b32)
        fail(m, "swizzle", "interleave 32B needs swizzle 32B, got " + to_string(m.swizzle) + "; allowed: 32B");
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
        // Without interleave the TMA ignores the innermost stride (an H200 loaded every
        // element of a u8 box with elementStrides[0] = 2), so a map must not rely on it.
        if (!interleaved && m.element_strides[rank - 1] != 1)
            fail(m, "element_strides", "element_strides[" + std::to_string(rank - 1) + "] = " +
                                           std::to_string(m.element_strides[rank - 1]) +
                                           " is ignored by the TMA without interleave; allowed: 1 for the innermost dimension");
    }
    // Documented for interleave none only, but an H200's driver refuses it with interleave too
    // (u8 boxes of 8 and 24, an f16 box of 4 with INTERLEAVE_16B).
    const int64_t inner_bytes = m.box[rank - 1] * esize;
    if (inner_bytes % 16 != 0)
        fail(m, "box", "the innermost box dimension is " + std::to_string(inner_bytes) +
                           " bytes; allowed: a multiple of 16 bytes (boxDim[0] * element size)");
    // Global strides (bytes between consecutive indices of each outer dimension).
    int64_t stride = esize;
    const int64_t stride_align = m.interleave == Interleave::b32 ? 32 : 16;
    for (size_t d = rank; d-- > 1;) {
        stride *= t.shape[d];
        if (stride % stride_align != 0)
            fail(m, "tensor", "global stride of dimension " + std::to_string(d - 1) + " is " + std::to_string(stride) +
                                  " bytes; allowed: a multiple of " + std::to_string(stride_align) + " bytes" +
                                  (interleaved && stride_align == 32 ? " with interleave 32B" : " (pad the tensor's rows)"));
        if (stride >= (int64_t(1) << 40))
            fail(m, "tensor", "global stride of dimension " + std::to_string(d - 1) + " is too large; allowed: < 2^40 bytes");
    }
    // With interleave the inner dimension counts 16/32-byte units and is not limited by the
    // swizzle span (an H200 took a 16-unit INTERLEAVE_16B box with SWIZZLE_128B).
    if (!interleaved && m.swizzle != Swizzle::none && inner_bytes > swizzle_bytes(m.swizzle))
        fail(m, "swizzle", "inner box of " + std::to_string(inner_bytes) + " bytes exceeds the " + to_string(m.swizzle) +
                               " swizzle span; allowed: at most " + std::to_string(swizzle_bytes(m.swizzle)) + " bytes");
    if (m.oob_fill == OobFill::nan && !dtype_is_float(t.type))
        fail(m, "oob_fill", "NaN fill needs a float tensor, but " + t.name + " is " + to_string(t.type) +
                                "; allowed: zero");
}

}  // namespace tmasim
