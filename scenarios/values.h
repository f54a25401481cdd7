#pragma once
// Element values: initial contents of global tensors and float<->element conversions.
// The host makes the initial bytes once; the model and the device both start from them.
// Conversions round to nearest even, bit-exactly as the device codegen does them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/xxh64.h"

namespace tmasim {

std::vector<uint8_t> initial_bytes(const GlobalTensor& t);
// Elements [first, first + count) of the initial contents, into `out` (count elements of
// t.type): what initial_bytes holds there, without the rest. The model generates a large
// input only where it is read, and hashes it block by block (hash_initial_bytes), instead
// of holding hundreds of MB it never writes.
void initial_elements(const GlobalTensor& t, int64_t first, int64_t count, uint8_t* out);
// XXH64 of initial_bytes(t), fed block by block.
void hash_initial_bytes(const GlobalTensor& t, Xxh64& hash);

uint16_t float_to_f16_bits(float f);
float f16_bits_to_float(uint16_t h);
uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(uint16_t h);

// Element e of a float buffer (f32, f16, bf16) as float.
float load_element_float(const uint8_t* base, DType t, int64_t e);
// Stores v rounded to nearest even to the float type t.
void store_element_float(uint8_t* base, DType t, int64_t e, float v);
// Element e of an integer buffer (u8 zero-extends, i32 sign-extends).
int64_t load_element_int(const uint8_t* base, DType t, int64_t e);
// Stores v wrapped (two's complement truncation) to the integer type t.
void store_element_int(uint8_t* base, DType t, int64_t e, int64_t v);

// fnv1a-64 of bytes, as 16 hex digits (scenario and config hashes, memory hashes).
std::string fnv1a64_hex(const void* data, size_t n);
// fnv1a64_hex of each block, several blocks in one loop: FNV-1a is one multiply per byte,
// each waiting on the last, and a full-chip trace hashes 528 shared buffers of 16 KB; four
// independent chains side by side take the time of about one.
std::vector<std::string> fnv1a64_hex_each(const std::vector<std::pair<const uint8_t*, size_t>>& blocks);

}  // namespace tmasim
