#include "device/launch/tensor_map_encode.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "device/launch/cuda_driver.h"

namespace tmasim::device {

namespace {

CUtensorMapDataType driver_dtype(DType t) {
    switch (t) {
    case DType::f32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::f16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::bf16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case DType::u8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case DType::i32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    }
    throw std::logic_error("unknown DType");
}

CUtensorMapSwizzle driver_swizzle(Swizzle s) {
    switch (s) {
    case Swizzle::none: return CU_TENSOR_MAP_SWIZZLE_NONE;
    case Swizzle::b32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case Swizzle::b64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case Swizzle::b128: return CU_TENSOR_MAP_SWIZZLE_128B;
    }
    throw std::logic_error("unknown Swizzle");
}

CUtensorMapInterleave driver_interleave(Interleave i) {
    switch (i) {
    case Interleave::none: return CU_TENSOR_MAP_INTERLEAVE_NONE;
    case Interleave::b16: return CU_TENSOR_MAP_INTERLEAVE_16B;
    case Interleave::b32: return CU_TENSOR_MAP_INTERLEAVE_32B;
    }
    throw std::logic_error("unknown Interleave");
}

}  // namespace

std::string TensorMapEncodeArgs::describe() const {
    return fmt::format("rank {} dims [{}] strides_bytes [{}] box [{}] element_strides [{}] "
                       "interleave {} swizzle {} oob_fill {} (all fastest-first)",
                       rank, fmt::join(dims, ", "), fmt::join(strides, ", "), fmt::join(box, ", "),
                       fmt::join(element_strides, ", "), static_cast<int>(interleave),
                       static_cast<int>(swizzle), static_cast<int>(oob_fill));
}

TensorMapEncodeArgs tensor_map_encode_args(const TensorMap& map, const GlobalTensor& tensor) {
    const size_t rank = tensor.shape.size();
    if (map.box.size() != rank)
        throw std::runtime_error(fmt::format("tensor map {}: box rank {} differs from tensor rank {}",
                                             map.name, map.box.size(), rank));
    TensorMapEncodeArgs a;
    a.dtype = driver_dtype(tensor.type);
    a.rank = static_cast<cuuint32_t>(rank);
    a.swizzle = driver_swizzle(map.swizzle);
    a.interleave = driver_interleave(map.interleave);
    // NaN fill is the driver's "NAN_REQUEST_ZERO_FMA"; zero fill is "NONE".
    a.oob_fill = map.oob_fill == OobFill::nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                              : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    const int64_t esize = dtype_size(tensor.type);
    int64_t stride = esize;  // bytes between consecutive elements of the current dimension
    for (size_t k = 0; k < rank; ++k) {
        const size_t ir = rank - 1 - k;  // IR index of the k-th fastest dimension
        a.dims.push_back(static_cast<cuuint64_t>(tensor.shape[ir]));
        a.box.push_back(static_cast<cuuint32_t>(map.box[ir]));
        const int64_t es = map.element_strides.empty() ? 1 : map.element_strides.at(ir);
        a.element_strides.push_back(static_cast<cuuint32_t>(es));
        if (k > 0) a.strides.push_back(static_cast<cuuint64_t>(stride));
        stride *= tensor.shape[ir];
    }
    return a;
}

void encode_tensor_map(const CudaDriver& driver, const TensorMap& map,
                       const GlobalTensor& tensor, CUdeviceptr base, CUtensorMap* out) {
    const TensorMapEncodeArgs a = tensor_map_encode_args(map, tensor);
    // Rank 1 has no strides; hand the driver a valid (16-byte multiple) one all the same.
    const cuuint64_t rank1_stride = (a.dims[0] * dtype_size(tensor.type) + 15) / 16 * 16;
    const CUresult rc = driver.cuTensorMapEncodeTiled(
        out, a.dtype, a.rank, reinterpret_cast<void*>(base), a.dims.data(),
        a.strides.empty() ? &rank1_stride : a.strides.data(), a.box.data(), a.element_strides.data(),
        a.interleave, a.swizzle, a.l2_promotion, a.oob_fill);
    if (rc != CUDA_SUCCESS)
        throw std::runtime_error(fmt::format("tensor map {}: cuTensorMapEncodeTiled: {}: {} ({})",
                                             map.name, driver.error_name(rc),
                                             driver.error_string(rc), a.describe()));
}

}  // namespace tmasim::device
