#include "model/kernel/wgmma_math.h"

#include <algorithm>

#include <fmt/format.h>

namespace tmasim::model::kernel {

SmemDescriptor decode_descriptor(uint64_t desc) {
    SmemDescriptor d;
    d.start = static_cast<int64_t>(desc & 0x3fff) << 4;
    d.lbo = static_cast<int64_t>((desc >> 16) & 0x3fff) << 4;
    d.sbo = static_cast<int64_t>((desc >> 32) & 0x3fff) << 4;
    d.base_offset = static_cast<int>((desc >> 49) & 7);
    switch ((desc >> 62) & 3) {
        case 1: d.swizzle_bytes = 128; break;
        case 2: d.swizzle_bytes = 64; break;
        case 3: d.swizzle_bytes = 32; break;
        default: d.swizzle_bytes = 0; break;
    }
    return d;
}

int64_t operand_address(const SmemDescriptor& d, int bits, bool mn_major, int mn, int k) {
    const int64_t w = d.swizzle_bytes == 0 ? 16 : d.swizzle_bytes;  // a row of the swizzle atom, in bytes
    int64_t a;
    if (!mn_major) {
        const int64_t kb = static_cast<int64_t>(k) * bits / 8;  // byte of k along the 16-byte rows
        if (d.swizzle_bytes == 0) a = (mn % 8) * 16 + (mn / 8) * d.sbo + (kb % 16) + (kb / 16) * d.lbo;
        else a = (mn % 8) * w + (mn / 8) * d.sbo + kb;
    } else {
        const int64_t ib = static_cast<int64_t>(mn) * bits / 8;  // byte of mn along the rows
        if (d.swizzle_bytes == 0) a = (ib % 16) + (ib / 16) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
        else a = (ib % w) + (ib / w) * d.lbo + (k % 8) * w + (k / 8) * d.sbo;
    }
    a += d.start;
    if (d.swizzle_bytes > 0) {
        const int64_t mask = d.swizzle_bytes / 16 - 1;  // 1, 3, 7
        a ^= ((a >> 7) & mask) << 4;
    }
    return a;
}

std::string parse_wgmma_shape(const std::vector<std::string>& parts, WgmmaShape& s) {
    // wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype
    std::vector<Ty> types;
    bool shape = false;
    for (const std::string& p : parts) {
        if (p.size() > 4 && p[0] == 'm' && p.rfind("m64n", 0) == 0) {
            const size_t kpos = p.find('k');
            if (kpos == std::string::npos) return "a shape without k";
            s.n = std::stoi(p.substr(4, kpos - 4));
            s.k = std::stoi(p.substr(kpos + 1));
            shape = true;
            continue;
        }
        const Ty t = parse_ty(p);
        if (t != Ty::none) types.push_back(t);
    }
    if (!shape) return "no m64nNkK shape";
    if (parts.size() > 1 && std::find(parts.begin(), parts.end(), "sp") != parts.end()) return "sparse wgmma (.sp)";
    if (types.size() != 3) return "the model takes wgmma with a dtype, an atype and a btype";
    s.dtype = types[0];
    s.atype = types[1];
    s.btype = types[2];
    if (s.n < 8 || s.n > 256 || s.n % 8 != 0) return fmt::format("N = {} (allowed: 8..256, multiples of 8)", s.n);
    const bool half = s.atype == Ty::f16 || s.atype == Ty::bf16;
    const bool fp8 = s.atype == Ty::e4m3 || s.atype == Ty::e5m2;
    if (!(half || fp8 || s.atype == Ty::tf32)) return "an A type other than f16, bf16, tf32, e4m3, e5m2";
    if ((half && s.k != 16) || (fp8 && s.k != 32) || (s.atype == Ty::tf32 && s.k != 8)) return fmt::format("k{} for this type", s.k);
    if (s.dtype != Ty::f32 && s.dtype != Ty::f16) return "an accumulator other than f32 or f16";
    return "";
}

void d_fragment(int w, int l, int i, int& row, int& col) {
    row = 16 * w + l / 4 + 8 * ((i % 4) / 2);
    col = 8 * (i / 4) + 2 * (l % 4) + (i % 2);
}

void a_fragment(int w, int l, int i, int h, int& row, int& k) {
    row = 16 * w + l / 4 + 8 * (i % 2);
    k = 8 * (i / 2) + 2 * (l % 4) + h;
}

}  // namespace tmasim::model::kernel
