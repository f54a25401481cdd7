#pragma once
// IR tensor map -> the arguments of cuTensorMapEncodeTiled. The IR lists dimensions
// outermost first; the driver wants them fastest first, so this is the one place they are
// reversed. Kept apart from the driver call so tests can check it without a GPU.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::device {

class CudaDriver;

struct TensorMapEncodeArgs {
    CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    cuuint32_t rank = 0;
    std::vector<cuuint64_t> dims;             // elements, fastest first
    std::vector<cuuint64_t> strides;          // bytes of dims[1..rank-1] (rank-1 entries)
    std::vector<cuuint32_t> box;              // elements, fastest first
    std::vector<cuuint32_t> element_strides;  // fastest first
    CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
    CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
    CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    std::string describe() const;  // "dims [128, 64] strides [512] box [64, 16] ..." for errors
};

// Global strides come from the packed shape (a tensor is one dense allocation).
TensorMapEncodeArgs tensor_map_encode_args(const TensorMap& map, const GlobalTensor& tensor);

// Encodes into *out for a tensor at device address `base`. Throws std::runtime_error
// "tensor map <name>: cuTensorMapEncodeTiled: <CUDA error name>: <message> (<args>)".
void encode_tensor_map(const CudaDriver& driver, const TensorMap& map,
                       const GlobalTensor& tensor, CUdeviceptr base, CUtensorMap* out);

}  // namespace tmasim::device
