// The one place IR axis order (outermost first) becomes the driver's (fastest first).
#include <catch2/catch.hpp>

#include "device/launch/tensor_map_encode.h"

using namespace tmasim;
using namespace tmasim::device;

TEST_CASE("tensor map arguments are reversed to fastest-first with byte strides", "[device][tensormap]") {
    GlobalTensor t;
    t.name = "A";
    t.type = DType::f16;
    t.shape = {4, 64, 128};  // 4 planes of 64 rows of 128 columns
    TensorMap m;
    m.name = "mapA";
    m.tensor = "A";
    m.box = {1, 16, 64};
    m.element_strides = {1, 2, 1};
    m.swizzle = Swizzle::b128;
    m.oob_fill = OobFill::nan;

    const TensorMapEncodeArgs a = tensor_map_encode_args(m, t);
    CHECK(a.rank == 3);
    CHECK(a.dtype == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
    CHECK(a.dims == std::vector<cuuint64_t>{128, 64, 4});
    CHECK(a.strides == std::vector<cuuint64_t>{128 * 2, 64 * 128 * 2});
    CHECK(a.box == std::vector<cuuint32_t>{64, 16, 1});
    CHECK(a.element_strides == std::vector<cuuint32_t>{1, 2, 1});
    CHECK(a.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
    CHECK(a.oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
    CHECK(a.interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
    CHECK(a.describe().find("dims [128, 64, 4]") != std::string::npos);
}

TEST_CASE("tensor map defaults: unit element strides, zero fill, rank 1 without strides", "[device][tensormap]") {
    GlobalTensor t;
    t.type = DType::i32;
    t.shape = {2048};
    TensorMap m;
    m.name = "m";
    m.box = {256};
    const TensorMapEncodeArgs a = tensor_map_encode_args(m, t);
    CHECK(a.dims == std::vector<cuuint64_t>{2048});
    CHECK(a.strides.empty());
    CHECK(a.element_strides == std::vector<cuuint32_t>{1});
    CHECK(a.oob_fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    CHECK(a.dtype == CU_TENSOR_MAP_DATA_TYPE_INT32);
}

TEST_CASE("tensor map interleave reaches the driver's enum", "[device][tensormap]") {
    GlobalTensor t;
    t.type = DType::f16;
    t.shape = {8, 32, 64};
    TensorMap m;
    m.name = "m";
    m.box = {1, 8, 16};
    m.interleave = Interleave::b32;
    m.swizzle = Swizzle::b32;
    TensorMapEncodeArgs a = tensor_map_encode_args(m, t);
    CHECK(a.interleave == CU_TENSOR_MAP_INTERLEAVE_32B);
    CHECK(a.describe().find("interleave 2 swizzle 1") != std::string::npos);
    m.interleave = Interleave::b16;
    CHECK(tensor_map_encode_args(m, t).interleave == CU_TENSOR_MAP_INTERLEAVE_16B);
    m.interleave = Interleave::none;
    CHECK(tensor_map_encode_args(m, t).interleave == CU_TENSOR_MAP_INTERLEAVE_NONE);
}
