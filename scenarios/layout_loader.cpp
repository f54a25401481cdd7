#include "scenarios/layout_loader.h"

#include <algorithm>
#include <stdexcept>

#include "scenarios/checked_size.h"
#include "scenarios/values.h"

namespace tmasim {
namespace {

const char* kLayoutKinds = "blocked, slice, linear, swizzled_shared, nvmma_shared";

// Layouts lay out 1-D and 2-D tiles (the tutorial's); dimension lists have 1 or 2 entries.
constexpr size_t kMaxRank = 2;

BlockedSpec read_blocked(MapReader& m) {
    const char* keys = "size_per_thread, threads_per_warp, warps_per_cta, order";
    m.only_keys(keys);
    BlockedSpec b;
    b.size_per_thread = m.int_list("size_per_thread", 1, kMaxRank, 1, 1 << 16);
    b.threads_per_warp = m.int_list("threads_per_warp", 1, kMaxRank, 1, 32);
    b.warps_per_cta = m.int_list("warps_per_cta", 1, kMaxRank, 1, 32);
    b.order = m.int_list("order", 1, kMaxRank, 0, int64_t(kMaxRank) - 1);
    m.finish(keys);
    std::string key;
    const std::string error = blocked_error(b, key);
    if (!error.empty()) m.fail(key, error);
    return b;
}

std::vector<Coords> read_bases(MapReader& m, const std::string& key, size_t rank) {
    std::vector<Coords> out;
    if (!m.has(key)) return out;
    YAML::Node list = m.node(key);
    if (!list.IsSequence() || list.size() > 16)
        m.fail(key, "expected a list of at most 16 bases, each a list of one coordinate per dimension, got " +
                        node_kind(list));
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string path = m.key_path(key) + "[" + std::to_string(i) + "]";
        if (!list[i].IsSequence() || list[i].size() != rank)
            throw ScenarioError(loc_of(list[i], m.file()), path,
                                "expected a basis of " + std::to_string(rank) + " coordinate(s) (one per dimension of shape)");
        Coords c;
        for (size_t d = 0; d < rank; ++d)
            c.push_back(scalar_integer(list[i][d], m.file(), path + "[" + std::to_string(d) + "]", 0, 1 << 16));
        out.push_back(c);
    }
    return out;
}

LinearLayout read_linear(MapReader& m) {
    const char* keys = "reg, lane, warp, shape";
    m.only_keys(keys);
    LinearLayout l;
    l.shape = m.int_list("shape", 1, kMaxRank, 1, 1 << 16);
    if (!checked_product(l.shape, kMaxTileElements))
        m.fail("shape", shape_text(l.shape) + " is more than " + std::to_string(kMaxTileElements) +
                            " elements; allowed: at most " + std::to_string(kMaxTileElements) + " (a tile's limit)");
    l.reg = read_bases(m, "reg", l.shape.size());
    l.lane = read_bases(m, "lane", l.shape.size());
    l.warp = read_bases(m, "warp", l.shape.size());
    if (l.lane.size() != 5)
        m.fail("lane", std::to_string(l.lane.size()) + " lane bases; allowed: exactly 5 (32 lanes)");
    for (const auto* set : {&l.reg, &l.lane, &l.warp})
        for (const Coords& b : *set)
            for (size_t d = 0; d < b.size(); ++d)
                if (b[d] >= l.shape[d])
                    m.fail("shape", "a basis reaches coordinate " + std::to_string(b[d]) + " of dimension " +
                                        std::to_string(d) + "; allowed: below the shape's " + std::to_string(l.shape[d]));
    m.finish(keys);
    return l;
}

RegLayoutSpec read_reg_layout(MapReader& m, const std::string& kind, const std::vector<LayoutDecl>& earlier);

std::shared_ptr<const RegLayoutSpec> read_parent(MapReader& m, const std::vector<LayoutDecl>& earlier) {
    YAML::Node p = m.node("parent");
    if (p.IsScalar()) {
        const std::string name = p.Scalar();
        for (const LayoutDecl& d : earlier)
            if (d.name == name) {
                if (d.is_shared) m.fail("parent", "'" + name + "' is a shared layout; allowed: a register layout");
                return std::make_shared<RegLayoutSpec>(d.reg);
            }
        std::string names;
        for (const LayoutDecl& d : earlier) names += (names.empty() ? "" : ", ") + d.name;
        m.fail("parent", "no register layout named '" + name + "' declared before this one; declared: " +
                             (names.empty() ? "(none)" : names));
    }
    MapReader inner(p, m.file(), m.key_path("parent"));
    inner.only_keys("blocked, slice, linear");
    if (inner.has("blocked")) return std::make_shared<RegLayoutSpec>(read_reg_layout(inner, "blocked", earlier));
    if (inner.has("slice")) return std::make_shared<RegLayoutSpec>(read_reg_layout(inner, "slice", earlier));
    if (inner.has("linear")) return std::make_shared<RegLayoutSpec>(read_reg_layout(inner, "linear", earlier));
    inner.fail("parent", "expected a layout name or one of blocked, slice, linear");
}

RegLayoutSpec read_reg_layout(MapReader& outer, const std::string& kind, const std::vector<LayoutDecl>& earlier) {
    MapReader m(outer.node(kind), outer.file(), outer.key_path(kind));
    RegLayoutSpec s;
    if (kind == "blocked") {
        s.kind = RegLayoutSpec::Kind::blocked;
        s.blocked = read_blocked(m);
    } else if (kind == "slice") {
        m.only_keys("dim, parent");
        s.kind = RegLayoutSpec::Kind::slice;
        s.parent = read_parent(m, earlier);
        if (s.parent->rank() < 2) m.fail("parent", "a slice drops a dimension; allowed: a parent of rank 2");
        s.slice_dim = m.integer("dim", 0, s.parent->rank() - 1);
        m.finish("dim, parent");
    } else {
        s.kind = RegLayoutSpec::Kind::linear;
        s.linear = read_linear(m);
    }
    return s;
}

SharedLayoutSpec read_shared_layout(MapReader& outer, const std::string& kind) {
    MapReader m(outer.node(kind), outer.file(), outer.key_path(kind));
    SharedLayoutSpec s;
    if (kind == "swizzled_shared") {
        const char* keys = "vec, per_phase, max_phase, order";
        m.only_keys(keys);
        s.kind = SharedLayoutSpec::Kind::swizzled;
        s.vec = m.integer("vec", 1, 64);
        s.per_phase = m.integer("per_phase", 1, 64);
        s.max_phase = m.integer("max_phase", 1, 64);
        s.order = m.int_list("order", 1, kMaxRank, 0, int64_t(kMaxRank) - 1);
        for (int64_t v : {s.vec, s.per_phase, s.max_phase})
            if ((v & (v - 1)) != 0) m.fail("swizzled_shared", std::to_string(v) + " is not a power of two; allowed: 1, 2, 4, ...");
        if (s.order.size() == 2 && s.order[0] == s.order[1]) m.fail("order", "allowed: [1, 0] or [0, 1]");
        m.finish(keys);
    } else {
        const char* keys = "swizzle_bytes, element_bits, transposed";
        m.only_keys(keys);
        s.kind = SharedLayoutSpec::Kind::nvmma;
        s.swizzle_bytes = m.integer("swizzle_bytes", 0, 128);
        if (s.swizzle_bytes != 32 && s.swizzle_bytes != 64 && s.swizzle_bytes != 128)
            m.fail("swizzle_bytes", std::to_string(s.swizzle_bytes) + "; allowed: 32, 64, 128");
        s.element_bits = m.integer("element_bits", 8, 32);
        if (s.element_bits != 8 && s.element_bits != 16 && s.element_bits != 32)
            m.fail("element_bits", std::to_string(s.element_bits) + "; allowed: 8, 16, 32");
        s.transposed = m.boolean_or("transposed", false);
        m.finish(keys);
    }
    return s;
}

}  // namespace

LayoutDecl read_layout_decl(const std::string& name, MapReader& m, const SourceLoc& loc,
                            const std::vector<LayoutDecl>& earlier) {
    m.only_keys(kLayoutKinds);
    LayoutDecl d;
    d.name = name;
    d.loc = loc;
    int kinds = 0;
    for (const char* k : {"blocked", "slice", "linear", "swizzled_shared", "nvmma_shared"}) {
        if (!m.has(k)) continue;
        if (++kinds > 1) m.fail(k, "a layout is one kind; allowed: one of " + std::string(kLayoutKinds));
        const std::string kind = k;
        if (kind == "swizzled_shared" || kind == "nvmma_shared") {
            d.is_shared = true;
            d.smem = read_shared_layout(m, kind);
        } else {
            d.reg = read_reg_layout(m, kind, earlier);
        }
    }
    if (kinds == 0) m.fail("layout", "expected one of " + std::string(kLayoutKinds));
    m.finish(kLayoutKinds);
    return d;
}

TileDecl read_tile_decl(const std::string& name, MapReader& m, const SourceLoc& loc, const Scenario& sc) {
    const char* keys = "type, shape, layout";
    m.only_keys(keys);
    TileDecl t;
    t.name = name;
    t.loc = loc;
    const std::string type = m.string("type");
    auto d = parse_dtype(type);
    if (!d) m.fail("type", "unknown type \"" + type + "\"; allowed: " + allowed_dtypes());
    t.type = *d;
    t.shape = m.int_list("shape", 1, kMaxRank, 1, 1 << 16);
    int64_t n = 1;
    for (int64_t s : t.shape) {
        if ((s & (s - 1)) != 0) m.fail("shape", std::to_string(s) + " is not a power of two; allowed: 1, 2, 4, ... (Triton's tiles)");
        n *= s;
    }
    if (n > kMaxTileElements)
        m.fail("shape", "a tile of " + std::to_string(n) + " elements; allowed: at most " + std::to_string(kMaxTileElements));
    t.layout = m.string("layout");
    const LayoutDecl* l = sc.find_layout(t.layout);
    if (!l) m.fail("layout", "no layout named '" + t.layout + "' in layouts");
    if (l->is_shared) m.fail("layout", "'" + t.layout + "' is a shared layout; allowed: blocked, slice or linear");
    LinearLayout lin;
    try {
        lin = to_linear(l->reg, t.shape);
    } catch (const std::invalid_argument& e) {
        m.fail("layout", e.what());
    }
    if (lin.num_warps() * 32 != sc.launch.num_warps() * 32 || sc.launch.block % 32 != 0)
        m.fail("layout", "'" + t.layout + "' spreads over " + std::to_string(lin.num_warps()) + " warp(s), the block has " +
                             std::to_string(sc.launch.block) + " threads; allowed: a layout over all of the block's warps");
    // Copies come only from zero bases (broadcast): the non-zero bases are independent over
    // GF(2), so a store's writer is the holder whose zero-basis bits are 0 on both backends.
    uint64_t basis[64] = {};  // basis[b]: the reduced vector whose highest bit is b
    for (const auto* set : {&lin.reg, &lin.lane, &lin.warp})
        for (const Coords& b : *set) {
            uint64_t v = 0;
            for (int64_t c : b) v = (v << 20) | uint64_t(c);
            if (v == 0) continue;
            for (int bit = 63; bit >= 0 && v != 0; --bit) {
                if (!((v >> bit) & 1)) continue;
                if (basis[bit] == 0) {
                    basis[bit] = v;
                    v = 0;
                    break;
                }
                v ^= basis[bit];
                if (v == 0)
                    m.fail("layout", "'" + t.layout + "' gives one element to two (register, lane, warp) combinations "
                                         "through non-zero bases; allowed: copies only through zero bases (broadcast)");
            }
        }
    std::vector<bool> owned(size_t(n), false);
    for (int64_t w = 0; w < lin.num_warps(); ++w)
        for (int64_t ln = 0; ln < lin.num_lanes(); ++ln)
            for (int64_t r = 0; r < lin.num_regs(); ++r) owned[size_t(lin.flat(lin.element(r, ln, w)))] = true;
    for (int64_t e = 0; e < n; ++e)
        if (!owned[size_t(e)])
            m.fail("layout", "'" + t.layout + "' leaves element " + std::to_string(e) +
                                 " of the tile to no thread; allowed: a layout that covers the tile");
    m.finish(keys);
    return t;
}

}  // namespace tmasim
