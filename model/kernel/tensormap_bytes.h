#pragma once
// The model's 128-byte tensor map. A kernel sees a CUtensorMap only as 128 opaque bytes that it
// may copy, pass to the TMA, or change with tensormap.replace (PTX 9.7.9.28-29, 5.5.8); the
// driver's encoding is undocumented, so the model has its own, which holds every field the TMA
// and tensormap.replace use. The device backend passes the driver's encoding of the same map.
//   [0,4) magic, [4] rank, [5] element type, [6] swizzle, [7] interleave, [8] fill,
//   [16,24) global address, [24,64) global dims (u64 x5, outermost first),
//   [64,96) global strides in bytes (u64 x4, dims 0..rank-2), [96,101) box dims - 1,
//   [101,106) element strides - 1.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "model/state/tensormap_state_fields.h"

namespace tmasim::model::kernel {

using TensorMapBytes = std::array<uint8_t, 128>;

// `f` with its tensor at device address `address` (plus f.base_offset).
TensorMapBytes encode_tensormap(const MapFields& f, uint64_t address);

// The fields of a map's bytes: rank, type, dims, strides, box, element strides, swizzle,
// interleave and fill, and in `address` its global address (resolving it to a tensor is the
// caller's: MapFields::tensor stays empty). nullopt with `why` for bytes that are not a map the
// model encoded (a kernel that never initialised them, or garbled them).
std::optional<MapFields> decode_tensormap(const uint8_t* bytes, uint64_t& address, std::string& why);

// tensormap.replace.tile.<field> of `value` into the bytes (dim: the PTX's ordinal, innermost
// first, as the instruction names it). `field` is the PTX's name: global_address, rank,
// box_dim, global_dim, global_stride, element_stride, elemtype, interleave_layout,
// swizzle_mode, swizzle_atomicity, fill_mode. False with `why` for a field or value the
// model does not hold.
bool replace_tensormap_field(uint8_t* bytes, const std::string& field, int64_t dim, uint64_t value, std::string& why);

}  // namespace tmasim::model::kernel
