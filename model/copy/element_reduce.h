#pragma once
// The element operation of cp.reduce.async.bulk(.tensor) into global memory
// (semantics.md C21, D24; PTX 9.7.9.25.4.2, 9.7.9.27.1.3): dst = dst (op) src, one
// element at a time, each a relaxed.gpu atomic on the hardware (so concurrent reduces
// into the same element do not race with each other).
//   f32 add: float32 addition (round to nearest even).
//   f16/bf16 add (.noftz), min, max: computed in float32, rounded to nearest even to the
//     type. The float32 result of one add/min/max of two f16/bf16 values rounds to the
//     same value as the exact result (float32 has more than 2p+2 bits), so this is exact.
//   i32 add (wrapping, .s32), min, max (signed), and, or, xor (.b32).
// Combinations reduce_supported() rejects never load; reaching one is a model bug.
#include <cstdint>

#include "scenarios/enums.h"

namespace tmasim::model {

class ElementReduce {
public:
    ElementReduce(ReduceOp op, DType type);

    // Combines one element of `src` into `dst` (both little endian, dtype_size bytes).
    void apply(uint8_t* dst, const uint8_t* src) const;
    int element_bytes() const { return bytes_; }

private:
    float combine_float(float a, float b) const;
    int32_t combine_int(int32_t a, int32_t b) const;

    ReduceOp op_;
    DType type_;
    int bytes_;
};

}  // namespace tmasim::model
