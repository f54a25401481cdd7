#include "scenarios/layout_access.h"

#include <algorithm>

namespace tmasim {

LayoutAccessPlan plan_layout_access(const LinearLayout& l, int64_t esize,
                                    const std::function<int64_t(const Coords&)>& offset) {
    LayoutAccessPlan p;
    const int64_t regs = l.num_regs();
    std::vector<int64_t> off(size_t(regs * l.num_lanes() * l.num_warps()));
    for (int64_t w = 0; w < l.num_warps(); ++w)
        for (int64_t ln = 0; ln < l.num_lanes(); ++ln)
            for (int64_t r = 0; r < regs; ++r) off[size_t((w * l.num_lanes() + ln) * regs + r)] = offset(l.element(r, ln, w));
    auto contiguous = [&](int64_t v) {
        for (size_t t = 0; t < off.size(); t += size_t(regs))
            for (int64_t r0 = 0; r0 < regs; r0 += v) {
                const int64_t first = off[t + size_t(r0)];
                if (first % v != 0) return false;
                for (int64_t j = 1; j < v; ++j)
                    if (off[t + size_t(r0 + j)] != first + j) return false;
            }
        return true;
    };
    p.vec = 1;
    for (int64_t v = 2; v * esize <= 16 && v <= regs; v *= 2)
        if (contiguous(v)) p.vec = v;
    p.vec_bytes = p.vec * esize;
    p.per_thread = regs / p.vec;
    int64_t n = 1;
    for (int64_t s : l.shape) n *= s;
    std::vector<bool> seen(size_t(n), false);
    p.stores.assign(size_t(l.num_warps() * l.num_lanes() * p.per_thread), false);
    for (int64_t w = 0; w < l.num_warps(); ++w)
        for (int64_t ln = 0; ln < l.num_lanes(); ++ln)
            for (int64_t k = 0; k < p.per_thread; ++k) {
                // A vector's elements are the same for every holder of its first one.
                const int64_t e = l.flat(l.element(k * p.vec, ln, w));
                if (seen[size_t(e)]) continue;
                seen[size_t(e)] = true;
                p.stores[size_t((w * l.num_lanes() + ln) * p.per_thread + k)] = true;
            }
    return p;
}

SectorCount count_sectors(const std::vector<int64_t>& addrs, int64_t width) {
    std::vector<int64_t> sectors, lines;
    for (int64_t a : addrs) {
        for (int64_t sct = a / 32; sct <= (a + width - 1) / 32; ++sct) sectors.push_back(sct);
        for (int64_t ln = a / 128; ln <= (a + width - 1) / 128; ++ln) lines.push_back(ln);
    }
    std::sort(sectors.begin(), sectors.end());
    std::sort(lines.begin(), lines.end());
    SectorCount c;
    c.sectors = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
    c.lines = std::unique(lines.begin(), lines.end()) - lines.begin();
    return c;
}

}  // namespace tmasim
