#include "model/copy/element_reduce.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "scenarios/values.h"

namespace tmasim::model {

ElementReduce::ElementReduce(ReduceOp op, DType type) : op_(op), type_(type), bytes_(dtype_size(type)) {
    if (!reduce_supported(op, type))
        throw std::logic_error("model: cp.reduce has no ." + to_string(op) + " for " + to_string(type) +
                               " (the loader should have rejected it)");
}

float ElementReduce::combine_float(float a, float b) const {
    switch (op_) {
        case ReduceOp::add: return a + b;
        case ReduceOp::min:
        case ReduceOp::max: {
            // PTX min/max: a NaN operand yields the other one (fmin/fmax), and -0 is
            // below +0, which fmin/fmax leave unspecified.
            if (a == 0.0f && b == 0.0f) {
                const bool pick_negative = (op_ == ReduceOp::min);
                return (std::signbit(a) == pick_negative) ? a : b;
            }
            return op_ == ReduceOp::min ? std::fmin(a, b) : std::fmax(a, b);
        }
        default: break;
    }
    throw std::logic_error("model: no float reduce ." + to_string(op_));
}

int32_t ElementReduce::combine_int(int32_t a, int32_t b) const {
    const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    switch (op_) {
        case ReduceOp::add: return static_cast<int32_t>(ua + ub);  // wraps modulo 2^32
        case ReduceOp::min: return a < b ? a : b;
        case ReduceOp::max: return a > b ? a : b;
        case ReduceOp::and_: return static_cast<int32_t>(ua & ub);
        case ReduceOp::or_: return static_cast<int32_t>(ua | ub);
        case ReduceOp::xor_: return static_cast<int32_t>(ua ^ ub);
        default: break;
    }
    throw std::logic_error("model: no integer reduce ." + to_string(op_));
}

void ElementReduce::apply(uint8_t* dst, const uint8_t* src) const {
    if (type_ == DType::i32) {
        int32_t a = 0, b = 0;
        std::memcpy(&a, dst, 4);
        std::memcpy(&b, src, 4);
        const int32_t r = combine_int(a, b);
        std::memcpy(dst, &r, 4);
        return;
    }
    const float r = combine_float(load_element_float(dst, type_, 0), load_element_float(src, type_, 0));
    store_element_float(dst, type_, 0, r);
}

}  // namespace tmasim::model
