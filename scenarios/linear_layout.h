#pragma once
// Register layouts of a tile (Gluon's distributed layouts), all reduced to one form: a
// linear layout over GF(2). Register r, lane l and warp w own the element whose
// coordinates are the XOR of the bases of the set bits of r, l and w. Blocked and slice
// layouts are converted to it for a given tile shape, so every question the backends ask
// (who owns what, which registers sit next to each other in memory) has one answer.
//
// Coordinates and shapes are outermost first, like the rest of the scenario format.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tmasim {

using Coords = std::vector<int64_t>;

// Layout shapes, bases and shared-layout parameters must all be powers of two.
inline bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

struct LinearLayout {
    std::vector<int64_t> shape;  // the tile, outermost first; every entry a power of two
    std::vector<Coords> reg, lane, warp;  // bases, each with shape.size() coordinates

    int64_t num_regs() const { return int64_t(1) << reg.size(); }
    int64_t num_lanes() const { return int64_t(1) << lane.size(); }
    int64_t num_warps() const { return int64_t(1) << warp.size(); }
    // The element register r of lane l of warp w holds.
    Coords element(int64_t r, int64_t l, int64_t w) const;
    // Row-major index of coords in `shape`.
    int64_t flat(const Coords& c) const;
    bool operator==(const LinearLayout& o) const;
    bool operator!=(const LinearLayout& o) const { return !(*this == o); }
};

// BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order): `order` lists
// the dimensions fastest first (Gluon's convention), the other lists are outermost first.
struct BlockedSpec {
    std::vector<int64_t> size_per_thread, threads_per_warp, warps_per_cta, order;
};

// A layout as declared: blocked, a slice of another declared layout, or linear.
struct RegLayoutSpec {
    enum class Kind { blocked, slice, linear };
    Kind kind = Kind::blocked;
    BlockedSpec blocked;
    int64_t slice_dim = 0;
    std::shared_ptr<const RegLayoutSpec> parent;  // slice
    LinearLayout linear;                          // linear: its own shape
    int64_t rank() const;                         // the rank of tensors it lays out
};

// Throws std::invalid_argument naming what is wrong (the loader adds file:line:col):
// threads_per_warp must multiply to 32, sizes must be powers of two, order a permutation.
void check_blocked(const BlockedSpec& b);
// The same checks without throwing: empty when `b` is fine, else the message, with `key`
// set to the list it is about (size_per_thread, threads_per_warp, warps_per_cta, order).
std::string blocked_error(const BlockedSpec& b, std::string& key);
// The linear layout of `spec` for a tile of `shape`. A layout whose block is smaller than
// the tile repeats in registers along `order`'s dimensions, fastest first; one larger
// than the tile broadcasts (lane and warp bases past the tile become 0, register bases
// past it are dropped), as Triton's toLinearLayout does.
LinearLayout to_linear(const RegLayoutSpec& spec, const std::vector<int64_t>& shape);
// The element-ownership map, printed as Gluon's layouts tutorial prints it: one cell per
// element, its owners "T<thread>:<register>" joined by '|', each right-aligned to the
// widest owner; rows of a 2-D tile one per line, a 1-D tile one element per line.
std::string ownership_map(const LinearLayout& l);
// The same map's cells, one per element in row-major order (`tmasim layout` bands them).
std::vector<std::string> ownership_cells(const LinearLayout& l);
// The bases, as Gluon's DistributedLinearLayout spells them.
std::string linear_text(const LinearLayout& l);

}  // namespace tmasim
