#pragma once
// The operands of one instruction in a warp's register file, lane by lane (model/kernel/alu*.cpp).
#include <cstdint>

#include "model/kernel/alu.h"

namespace tmasim::model::kernel {

struct Lanes {
    uint64_t* dp = nullptr;
    uint64_t* dp2 = nullptr;
    const uint64_t* src[4] = {nullptr, nullptr, nullptr, nullptr};

    Lanes(const DInst& d, uint64_t* regs) {
        if (d.ndst > 0) dp = lanes_of_slot(regs, d.dst[0]);
        if (d.ndst > 1) dp2 = lanes_of_slot(regs, d.dst[1]);
        for (int i = 0; i < d.nsrc && i < 4; ++i) src[i] = lanes_of_slot(regs, d.src[i]);
    }
    uint64_t& d(int l) { return dp[l]; }
    uint64_t& d2(int l) { return dp2[l]; }
    uint64_t a(int l) const { return src[0][l]; }
    uint64_t b(int l) const { return src[1][l]; }
    uint64_t c(int l) const { return src[2][l]; }
    uint64_t e(int l) const { return src[3][l]; }

    // f(lane) for every lane of `mask`; a full warp in a loop the compiler can unroll.
    template <class F>
    static void each(uint32_t mask, F&& f) {
        if (mask == 0xffffffffu) {
            for (int l = 0; l < 32; ++l) f(l);
            return;
        }
        for (uint32_t m = mask; m; m &= m - 1) f(__builtin_ctz(m));
    }
};

}  // namespace tmasim::model::kernel
