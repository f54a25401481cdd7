// wgmma_warp_rows on a hand-built shared-memory image: each warp's 16 rows of A x B^T,
// bf16 as well as f16, scale_d, and the documented f32 summation order.
#include <catch2/catch.hpp>

#include <vector>

#include "model/copy/wgmma_compute.h"
#include "model/copy/wgmma_layout.h"
#include "scenarios/values.h"

using namespace tmasim;
using namespace tmasim::model;

namespace {

struct Image {
    std::vector<uint8_t> smem = std::vector<uint8_t>(4096, 0);
    WgmmaOperands in;
    Image(DType type, int n) {
        in.smem = smem.data();
        in.type = type;
        in.swizzle = Swizzle::none;
        in.a_base = 0;
        in.b_base = 2048;  // A is 64 x 16 x 2 bytes
        in.k_total = 16;
        in.n = n;
    }
    void set(int64_t base, int64_t row, int64_t k, float v) {
        store_element_float(smem.data() + base + wgmma_operand_offset(in.swizzle, in.k_total, row, k), in.type, 0, v);
    }
};

}  // namespace

TEST_CASE("wgmma arithmetic: each warp computes its 16 rows of A x B^T (+ D)", "[model][wgmma]") {
    for (const DType type : {DType::f16, DType::bf16}) {
        Image img(type, 8);
        // Small integers (exact in bf16): A[m][k] = (m + k) % 7 - 3, B[n][k] = (2n + k) % 5 - 2.
        for (int m = 0; m < 64; ++m)
            for (int k = 0; k < 16; ++k) img.set(img.in.a_base, m, k, static_cast<float>((m + k) % 7 - 3));
        for (int n = 0; n < 8; ++n)
            for (int k = 0; k < 16; ++k) img.set(img.in.b_base, n, k, static_cast<float>((2 * n + k) % 5 - 2));
        for (int w = 0; w < 4; ++w) {
            std::vector<float> chain(16 * 8);
            for (size_t i = 0; i < chain.size(); ++i) chain[i] = static_cast<float>(i);
            const std::vector<float> plain = wgmma_warp_rows(img.in, w, false, chain);
            const std::vector<float> added = wgmma_warp_rows(img.in, w, true, chain);
            for (int r = 0; r < 16; ++r)
                for (int n = 0; n < 8; ++n) {
                    int want = 0;
                    for (int k = 0; k < 16; ++k) want += ((16 * w + r + k) % 7 - 3) * ((2 * n + k) % 5 - 2);
                    CHECK(plain[r * 8 + n] == static_cast<float>(want));
                    CHECK(added[r * 8 + n] == static_cast<float>(want + r * 8 + n));
                }
        }
    }
}

TEST_CASE("wgmma arithmetic: products summed in K order in f32, D added last", "[model][wgmma]") {
    Image img(DType::f16, 8);
    // Row 0 products: 4096 * 4096 = 2^24, then 1 * 1, then -4096 * 4096. In K order the +1
    // is lost to rounding (2^24 + 1 rounds to 2^24, ties to even), so the sum is 0; any
    // order that added the 1 last would give 1.
    img.set(img.in.a_base, 0, 0, 4096.0f);
    img.set(img.in.a_base, 0, 1, 1.0f);
    img.set(img.in.a_base, 0, 2, -4096.0f);
    img.set(img.in.b_base, 0, 0, 4096.0f);
    img.set(img.in.b_base, 0, 1, 1.0f);
    img.set(img.in.b_base, 0, 2, 4096.0f);
    const std::vector<float> chain(16 * 8, 0.5f);
    CHECK(wgmma_warp_rows(img.in, 0, false, chain)[0] == 0.0f);
    CHECK(wgmma_warp_rows(img.in, 0, true, chain)[0] == 0.5f);
}
