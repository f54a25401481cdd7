#include "model/copy/wgmma_compute.h"

#include <stdexcept>

#include "model/copy/wgmma_layout.h"
#include "scenarios/values.h"

namespace tmasim::model {

namespace {
float element(const WgmmaOperands& in, int64_t base, int64_t row, int64_t k) {
    const int64_t offset = base + wgmma_operand_offset(in.swizzle, in.k_total, row, k);
    return load_element_float(in.smem + offset, in.type, 0);
}
}  // namespace

std::vector<float> wgmma_warp_rows(const WgmmaOperands& in, int warp_in_group, bool scale_d,
                                   const std::vector<float>& chain) {
    if (in.type != DType::f16 && in.type != DType::bf16)
        throw std::logic_error("model: wgmma operands must be f16 or bf16");
    const size_t size = static_cast<size_t>(16) * in.n;
    if (scale_d && chain.size() != size) throw std::logic_error("model: wgmma accumulator of the wrong size");
    std::vector<float> out(size);
    for (int r = 0; r < 16; ++r) {
        const int64_t m = 16 * warp_in_group + r;
        float a[kWgmmaK];
        for (int j = 0; j < kWgmmaK; ++j) a[j] = element(in, in.a_base, m, in.k0 + j);
        for (int n = 0; n < in.n; ++n) {
            float sum = 0.0f;
            for (int j = 0; j < kWgmmaK; ++j) sum = sum + a[j] * element(in, in.b_base, n, in.k0 + j);
            const size_t at = static_cast<size_t>(r) * in.n + n;
            out[at] = scale_d ? sum + chain[at] : sum;
        }
    }
    return out;
}

}  // namespace tmasim::model
