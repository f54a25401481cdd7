#include "model/kernel/tensormap_bytes.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace tmasim::model::kernel {
namespace {

constexpr uint32_t kMagic = 0x4d4d5454;  // "TTMM": a map the model encoded
constexpr size_t kRank = 4, kType = 5, kSwizzle = 6, kInterleave = 7, kFill = 8;
constexpr size_t kAddress = 16, kDims = 24, kStrides = 64, kBox = 96, kElementStrides = 101;
constexpr int kMaxRank = 5;

void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint64_t get64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The element types the model's tensors have, numbered as tensormap.replace.elemtype numbers
// them (PTX 9.7.9.28, table "Tensormap new_val validity": 0 u8, 3 s32, 6 f16, 7 f32, 10 bf16;
// not CUtensorMapDataType's numbering).
int type_code(DType t) {
    switch (t) {
        case DType::u8: return 0;
        case DType::i32: return 3;
        case DType::f16: return 6;
        case DType::f32: return 7;
        case DType::bf16: return 10;
    }
    return 7;
}
std::optional<DType> type_of(int code) {
    switch (code) {
        case 0: return DType::u8;
        case 3: return DType::i32;
        case 6: return DType::f16;
        case 7: return DType::f32;
        case 10: return DType::bf16;
        default: return std::nullopt;
    }
}
// Swizzle and interleave as tensormap.replace numbers them (CU_TENSOR_MAP_SWIZZLE_*: none, 32B, 64B, 128B).
int swizzle_code(Swizzle s) { return s == Swizzle::none ? 0 : s == Swizzle::b32 ? 1 : s == Swizzle::b64 ? 2 : 3; }
std::optional<Swizzle> swizzle_of(int c) {
    switch (c) {
        case 0: return Swizzle::none;
        case 1: return Swizzle::b32;
        case 2: return Swizzle::b64;
        case 3: return Swizzle::b128;
        default: return std::nullopt;
    }
}
int interleave_code(Interleave i) { return i == Interleave::none ? 0 : i == Interleave::b16 ? 1 : 2; }
std::optional<Interleave> interleave_of(int c) {
    switch (c) {
        case 0: return Interleave::none;
        case 1: return Interleave::b16;
        case 2: return Interleave::b32;
        default: return std::nullopt;
    }
}

}  // namespace

TensorMapBytes encode_tensormap(const MapFields& f, uint64_t address) {
    TensorMapBytes b{};
    std::memcpy(b.data(), &kMagic, 4);
    const size_t rank = f.rank();
    b[kRank] = static_cast<uint8_t>(rank);
    b[kType] = static_cast<uint8_t>(type_code(f.type));
    b[kSwizzle] = static_cast<uint8_t>(swizzle_code(f.swizzle));
    b[kInterleave] = static_cast<uint8_t>(interleave_code(f.interleave));
    b[kFill] = f.oob_fill == OobFill::nan ? 1 : 0;
    put64(&b[kAddress], address + static_cast<uint64_t>(f.base_offset));
    for (size_t d = 0; d < rank && d < kMaxRank; ++d) {
        put64(&b[kDims + 8 * d], static_cast<uint64_t>(f.global_dims[d]));
        b[kBox + d] = static_cast<uint8_t>(f.box[d] - 1);
        b[kElementStrides + d] = static_cast<uint8_t>(f.element_strides[d] - 1);
        if (d + 1 < rank) put64(&b[kStrides + 8 * d], static_cast<uint64_t>(f.global_strides[d]));
    }
    return b;
}

std::optional<MapFields> decode_tensormap(const uint8_t* b, uint64_t& address, std::string& why) {
    uint32_t magic;
    std::memcpy(&magic, b, 4);
    if (magic != kMagic) {
        why = "its 128 bytes are not a tensor map (not one encoded by the host or copied from one, nor built by tensormap.replace from zeroed bytes)";
        return std::nullopt;
    }
    MapFields f;
    const int rank = b[kRank];
    const auto type = type_of(b[kType]);
    const auto swz = swizzle_of(b[kSwizzle]);
    const auto il = interleave_of(b[kInterleave]);
    if (rank < 1 || rank > kMaxRank || !type || !swz || !il || b[kFill] > 1) {
        why = fmt::format("its fields are out of range (rank {}, element type {}, swizzle {}, interleave {})", rank,
                          b[kType], b[kSwizzle], b[kInterleave]);
        return std::nullopt;
    }
    f.type = *type;
    f.swizzle = *swz;
    f.interleave = *il;
    f.oob_fill = b[kFill] ? OobFill::nan : OobFill::zero;
    address = get64(&b[kAddress]);
    for (int d = 0; d < rank; ++d) {
        f.global_dims.push_back(static_cast<int64_t>(get64(&b[kDims + 8 * d])));
        f.box.push_back(b[kBox + d] + 1);
        f.element_strides.push_back(b[kElementStrides + d] + 1);
        if (d + 1 < rank) f.global_strides.push_back(static_cast<int64_t>(get64(&b[kStrides + 8 * d])));
    }
    return f;
}

bool replace_tensormap_field(uint8_t* b, const std::string& field, int64_t dim, uint64_t value, std::string& why) {
    // A map built on the device from zeroed bytes (Triton's device-side descriptors: every field
    // set by a replace, rank before the dimensions) becomes the model's map at its first replace;
    // bytes neither zero nor a map stay refused when the TMA reads them.
    uint32_t magic;
    std::memcpy(&magic, b, 4);
    if (magic != kMagic && std::all_of(b, b + 128, [](uint8_t v) { return v == 0; })) std::memcpy(b, &kMagic, 4);
    const int rank = b[kRank];
    // The instruction's ordinal counts from the innermost dimension; the encoding is outermost first.
    auto outer = [&](int dims) -> int {
        if (dim < 0 || dim >= dims) return -1;
        return dims - 1 - static_cast<int>(dim);
    };
    if (field == "global_address") {
        put64(&b[kAddress], value);
    } else if (field == "rank") {
        // The new rank keeps the existing dimensions' encoding (the field is the rank minus one).
        if (value + 1 < 1 || value + 1 > kMaxRank) return why = fmt::format("rank {} is outside 1..5", value + 1), false;
        b[kRank] = static_cast<uint8_t>(value + 1);
    } else if (field == "box_dim" || field == "global_dim" || field == "element_stride") {
        const int d = outer(rank);
        if (d < 0) return why = fmt::format("the map has no dimension {} (rank {})", dim, rank), false;
        if (field == "global_dim") put64(&b[kDims + 8 * d], value);
        else if (value < 1 || value > 256) return why = fmt::format("{} {} is outside 1..256", field, value), false;
        else b[(field == "box_dim" ? kBox : kElementStrides) + d] = static_cast<uint8_t>(value - 1);
    } else if (field == "global_stride") {
        // Ordinal i is the stride of dimension i + 1 counted from the innermost (the driver's
        // globalStrides[i]; the innermost dimension's own stride is the element); the encoding
        // keeps dimensions 0..rank-2 outermost first.
        const int d = dim >= 0 && dim < rank - 1 ? rank - 2 - static_cast<int>(dim) : -1;
        if (d < 0) return why = fmt::format("the map has no stride {} (rank {})", dim, rank), false;
        put64(&b[kStrides + 8 * d], value);
    } else if (field == "elemtype") {
        if (!type_of(static_cast<int>(value))) return why = fmt::format("element type {} is not one the model's tensors have", value), false;
        b[kType] = static_cast<uint8_t>(value);
    } else if (field == "interleave_layout") {
        if (!interleave_of(static_cast<int>(value))) return why = fmt::format("interleave {} is outside 0..2", value), false;
        b[kInterleave] = static_cast<uint8_t>(value);
    } else if (field == "swizzle_mode") {
        if (!swizzle_of(static_cast<int>(value))) return why = fmt::format("swizzle mode {} is not one of 0..3 (sm_90)", value), false;
        b[kSwizzle] = static_cast<uint8_t>(value);
    } else if (field == "fill_mode") {
        if (value > 1) return why = fmt::format("fill mode {} is outside 0..1", value), false;
        b[kFill] = static_cast<uint8_t>(value);
    } else if (field == "swizzle_atomicity") {
        if (value != 0) return why = "swizzle atomicity other than 16 bytes is sm_100's; the model holds 16", false;
    } else {
        return why = "tensormap.replace." + field + " is not a field the model holds", false;
    }
    return true;
}

}  // namespace tmasim::model::kernel
