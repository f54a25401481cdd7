#pragma once
// Round-to-nearest-even float32 -> f16/bf16 conversions (and back) by bit manipulation,
// written once and compiled twice: as device text prepended to every generated kernel,
// and as host functions so a test can prove they agree bit for bit with
// tmasim::float_to_f16_bits / float_to_bf16_bits, which the model uses.
#include <cstdint>
#include <string_view>

namespace tmasim::device {

// CUDA source defining f32_to_f16_bits_rne, f32_to_bf16_bits_rne, f16_bits_to_f32,
// bf16_bits_to_f32 as __device__ __forceinline__ functions.
std::string_view float_bits_device_source();

// The host twins of the device text (same macro body).
uint16_t twin_f32_to_f16_bits_rne(float f);
uint16_t twin_f32_to_bf16_bits_rne(float f);
float twin_f16_bits_to_f32(uint16_t h);
float twin_bf16_bits_to_f32(uint16_t h);

}  // namespace tmasim::device
