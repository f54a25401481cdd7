#include "scenarios/linear_layout.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace tmasim {
namespace {

int log2i(int64_t v) {
    int n = 0;
    while ((int64_t(1) << n) < v) ++n;
    return n;
}

std::string list_text(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

// A basis along `dim` of value `v`.
Coords unit(size_t rank, size_t dim, int64_t v) {
    Coords c(rank, 0);
    c[dim] = v;
    return c;
}

// Fits a layout to `shape`: bases reaching past the tile broadcast (lanes, warps) or are
// dropped (registers); dimensions the layout covers only partly get more registers, in
// `order` (fastest first). The layout's extent along each dimension is the OR of its bases
// plus one, which is its size for the power-of-two layouts built here.
LinearLayout fit_to_shape(LinearLayout l, const std::vector<int64_t>& shape, const std::vector<int64_t>& order) {
    const size_t rank = shape.size();
    auto outside = [&](const Coords& b) {
        for (size_t d = 0; d < rank; ++d)
            if (b[d] >= shape[d]) return true;
        return false;
    };
    std::vector<Coords> regs;
    for (const Coords& b : l.reg)
        if (!outside(b)) regs.push_back(b);
    for (auto* set : {&l.lane, &l.warp})
        for (Coords& b : *set)
            for (size_t d = 0; d < rank; ++d)
                if (b[d] >= shape[d]) b[d] = 0;
    l.reg = regs;
    for (int64_t d : order) {
        int64_t covered = 1;
        for (const auto* set : {&l.reg, &l.lane, &l.warp})
            for (const Coords& b : *set) covered = std::max(covered, b[size_t(d)] * 2);
        for (int64_t v = covered; v < shape[size_t(d)]; v *= 2) l.reg.push_back(unit(rank, size_t(d), v));
    }
    l.shape = shape;
    return l;
}

LinearLayout blocked_to_linear(const BlockedSpec& b, const std::vector<int64_t>& shape) {
    const size_t rank = b.order.size();
    LinearLayout l;
    // Registers, then lanes, then warps; within each, the fastest dimension first.
    for (int64_t d : b.order)
        for (int i = 0; i < log2i(b.size_per_thread[size_t(d)]); ++i) l.reg.push_back(unit(rank, size_t(d), int64_t(1) << i));
    for (int64_t d : b.order)
        for (int i = 0; i < log2i(b.threads_per_warp[size_t(d)]); ++i)
            l.lane.push_back(unit(rank, size_t(d), b.size_per_thread[size_t(d)] << i));
    for (int64_t d : b.order)
        for (int i = 0; i < log2i(b.warps_per_cta[size_t(d)]); ++i)
            l.warp.push_back(
                unit(rank, size_t(d), b.size_per_thread[size_t(d)] * b.threads_per_warp[size_t(d)] << i));
    return fit_to_shape(l, shape, b.order);
}

}  // namespace

Coords LinearLayout::element(int64_t r, int64_t l, int64_t w) const {
    Coords c(shape.size(), 0);
    auto apply = [&](const std::vector<Coords>& bases, int64_t bits) {
        for (size_t i = 0; i < bases.size(); ++i)
            if ((bits >> i) & 1)
                for (size_t d = 0; d < c.size(); ++d) c[d] ^= bases[i][d];
    };
    apply(reg, r);
    apply(lane, l);
    apply(warp, w);
    return c;
}

int64_t LinearLayout::flat(const Coords& c) const {
    int64_t f = 0;
    for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + c[d];
    return f;
}

bool LinearLayout::operator==(const LinearLayout& o) const {
    return shape == o.shape && reg == o.reg && lane == o.lane && warp == o.warp;
}

int64_t RegLayoutSpec::rank() const {
    switch (kind) {
        case Kind::blocked: return int64_t(blocked.order.size());
        case Kind::slice: return parent->rank() - 1;
        case Kind::linear: return int64_t(linear.shape.size());
    }
    return 0;
}

std::string blocked_error(const BlockedSpec& b, std::string& key) {
    const size_t rank = b.order.size();
    key = "order";
    if (b.size_per_thread.size() != rank || b.threads_per_warp.size() != rank || b.warps_per_cta.size() != rank)
        return "size_per_thread, threads_per_warp, warps_per_cta and order must have one entry per dimension; "
               "allowed: lists of equal length";
    const std::pair<const char*, const std::vector<int64_t>*> lists[] = {
        {"size_per_thread", &b.size_per_thread}, {"threads_per_warp", &b.threads_per_warp}, {"warps_per_cta", &b.warps_per_cta}};
    for (const auto& [name, list] : lists)
        for (int64_t v : *list)
            if (!is_power_of_two(v)) {
                key = name;
                return std::to_string(v) + " is not a power of two; allowed: 1, 2, 4, ...";
            }
    int64_t lanes = 1;
    for (int64_t v : b.threads_per_warp) lanes *= v;
    if (lanes != 32) {
        key = "threads_per_warp";
        return "threads_per_warp " + list_text(b.threads_per_warp) + " multiplies to " + std::to_string(lanes) +
               "; allowed: a product of 32 (one warp)";
    }
    std::vector<int64_t> sorted = b.order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t d = 0; d < rank; ++d)
        if (sorted[d] != int64_t(d))
            return "order " + list_text(b.order) + " is not a permutation of the dimensions 0.." + std::to_string(rank - 1);
    return "";
}

void check_blocked(const BlockedSpec& b) {
    std::string key;
    const std::string error = blocked_error(b, key);
    if (!error.empty()) throw std::invalid_argument(error);
}

LinearLayout to_linear(const RegLayoutSpec& spec, const std::vector<int64_t>& shape) {
    for (int64_t s : shape)
        if (!is_power_of_two(s)) throw std::invalid_argument("tile dimension " + std::to_string(s) + " is not a power of two");
    if (int64_t(shape.size()) != spec.rank())
        throw std::invalid_argument("a rank-" + std::to_string(spec.rank()) + " layout cannot lay out a tile of shape " +
                                    list_text(shape));
    switch (spec.kind) {
        case RegLayoutSpec::Kind::blocked: return blocked_to_linear(spec.blocked, shape);
        case RegLayoutSpec::Kind::slice: {
            // The parent laid out over the tile with a 1 inserted at the sliced dimension:
            // everything along it broadcasts; then that coordinate is dropped and the
            // register bases that became zero with it.
            std::vector<int64_t> parent_shape = shape;
            parent_shape.insert(parent_shape.begin() + spec.slice_dim, 1);
            LinearLayout p = to_linear(*spec.parent, parent_shape);
            auto drop = [&](std::vector<Coords>& bases, bool remove_zero) {
                std::vector<Coords> out;
                for (Coords b : bases) {
                    b.erase(b.begin() + spec.slice_dim);
                    if (remove_zero && std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; })) continue;
                    out.push_back(b);
                }
                bases = out;
            };
            drop(p.reg, true);
            drop(p.lane, false);
            drop(p.warp, false);
            p.shape = shape;
            return p;
        }
        case RegLayoutSpec::Kind::linear:
            if (spec.linear.shape != shape)
                throw std::invalid_argument("the linear layout's shape " + list_text(spec.linear.shape) +
                                            " is not the tile's " + list_text(shape));
            return spec.linear;
    }
    return {};
}

std::vector<std::string> ownership_cells(const LinearLayout& l) {
    if (l.shape.size() < 1 || l.shape.size() > 2)
        throw std::invalid_argument("ownership maps are printed for 1-D and 2-D tiles");
    int64_t n = 1;
    for (int64_t s : l.shape) n *= s;
    std::vector<std::vector<std::string>> owners(static_cast<size_t>(n));
    size_t widest = 0;
    for (int64_t w = 0; w < l.num_warps(); ++w)
        for (int64_t ln = 0; ln < l.num_lanes(); ++ln)
            for (int64_t r = 0; r < l.num_regs(); ++r) {
                std::string o = "T" + std::to_string(w * l.num_lanes() + ln) + ":" + std::to_string(r);
                widest = std::max(widest, o.size());
                owners[size_t(l.flat(l.element(r, ln, w)))].push_back(o);
            }
    std::vector<std::string> cells;
    for (const auto& of : owners) {
        std::string c;
        for (const std::string& o : of) c += (c.empty() ? "" : "|") + std::string(widest - o.size(), ' ') + o;
        cells.push_back(c);
    }
    return cells;
}

std::string ownership_map(const LinearLayout& l) {
    const std::vector<std::string> cells = ownership_cells(l);
    const int64_t n = static_cast<int64_t>(cells.size());
    auto cell = [&](int64_t e) { return cells[size_t(e)]; };
    std::ostringstream out;
    if (l.shape.size() == 1) {
        for (int64_t e = 0; e < n; ++e) out << (e == 0 ? "[" : " ") << cell(e) << (e + 1 == n ? "]" : ",") << '\n';
        return out.str();
    }
    const int64_t rows = l.shape[0], cols = l.shape[1];
    for (int64_t r = 0; r < rows; ++r) {
        out << (r == 0 ? "[[" : " [");
        for (int64_t c = 0; c < cols; ++c) out << (c ? ", " : "") << cell(r * cols + c);
        out << (r + 1 == rows ? "]]" : "],") << '\n';
    }
    return out.str();
}

std::string linear_text(const LinearLayout& l) {
    auto bases = [](const std::vector<Coords>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + list_text(v[i]);
        return s + "]";
    };
    return "reg_bases=" + bases(l.reg) + ", lane_bases=" + bases(l.lane) + ", warp_bases=" + bases(l.warp) +
           ", shape=" + list_text(l.shape);
}

}  // namespace tmasim
