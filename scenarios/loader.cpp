#include "scenarios/loader.h"

#include <sys/stat.h>

#include <fstream>
#include <map>

#include "scenarios/barrier_view.h"
#include "scenarios/checked_size.h"
#include "scenarios/init_loader.h"
#include "scenarios/kernel_loader.h"
#include "scenarios/layout_loader.h"
#include "scenarios/op_loader.h"
#include "scenarios/rule_ids.h"
#include "scenarios/validator.h"
#include "scenarios/values.h"
#include "scenarios/yaml_access.h"
#include "scenarios/yaml_document.h"

namespace tmasim {
namespace {

// Limits on products of sizes (checked_size.h). A tensor's bytes; a grid's CTAs, which the
// IR counts in an int; a shared buffer's bytes past which no sum of buffers could be
// computed (the validator's own limit, 232448 bytes in all, refuses far less).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 30;
// All global tensors of a scenario together: the model keeps each one's declared and final
// bytes (eight 1 GiB tensors reached 5.3 GiB); the catalog's largest run declares 277 MB.
constexpr int64_t kMaxGlobalBytes = int64_t(2) << 30;
constexpr int64_t kMaxCtas = INT32_MAX;
constexpr int64_t kMaxSharedBufferBytes = int64_t(1) << 40;

const char* kTopKeys =
    "scenario, summary, source, arch, launch, global, tensormaps, shared, barriers, accumulators, layouts, tiles, program, "
    "kernel, expect";

// A loop, not std::regex: its matcher recurses once per character, and a name can be as
// long as the file.
void check_name(const std::string& name, const SourceLoc& loc, const std::string& path) {
    auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    bool ok = !name.empty() && name.size() <= kMaxNameLength && letter(name[0]);
    for (char c : name) ok = ok && (letter(c) || (c >= '0' && c <= '9'));
    if (!ok)
        throw ScenarioError(loc, path.size() > 300 ? path.substr(0, 300) + "..." : path,
                            "\"" + (name.size() > 80 ? name.substr(0, 80) + "..." : name) +
                                "\" is not a name; allowed: letters, digits and _, not starting with a digit, at most " +
                                std::to_string(kMaxNameLength) + " characters");
}

DType read_dtype(MapReader& m) {
    std::string t = m.string("type");
    auto d = parse_dtype(t);
    if (!d) m.fail("type", "unknown type \"" + t + "\"; allowed: " + allowed_dtypes());
    return *d;
}

// compare: exact | opaque | {ulps: N} (ImageCompare).
ImageCompare read_compare(MapReader& m, DType type) {
    ImageCompare c;
    const YAML::Node n = m.node("compare");
    const char* allowed = "exact, opaque, or {ulps: N} (1..1048576, for f32, f16 and bf16 tensors)";
    if (n.IsScalar()) {
        const std::string v = n.as<std::string>();
        if (v == "exact") return c;
        if (v == "opaque") return c.kind = ImageCompare::Kind::opaque, c;
        m.fail("compare", "unknown comparison \"" + v + "\"; allowed: " + allowed);
    }
    if (!n.IsMap()) m.fail("compare", std::string("expected ") + allowed);
    MapReader u(n, m.file(), m.key_path("compare"));
    u.only_keys("ulps");
    if (type != DType::f32 && type != DType::f16 && type != DType::bf16)
        m.fail("compare", "an ulp bound is for float tensors (f32, f16, bf16); this one is " + to_string(type));
    c.kind = ImageCompare::Kind::ulps;
    c.ulps = u.integer("ulps", 1, int64_t(1) << 20);
    return c;
}

Launch read_launch(MapReader& m, bool kernel) {
    if (!kernel && m.has("dynamic_shared"))
        m.fail("dynamic_shared", "is for kernel scenarios (kernel:); a program's shared memory is its shared:");
    m.only_keys(kernel ? "grid, cluster, block, dynamic_shared" : "grid, cluster, block");
    Launch l;
    l.loc = m.loc();
    l.grid.clear();
    const std::vector<int64_t> grid = m.int_list("grid", 1, 3, 1, 65535);
    // Each extent is bounded, their product is not: 65535^3 CTAs wrapped the int count to 1.
    if (!checked_product(grid, kMaxCtas))
        m.fail("grid", shape_text(grid) + " is more than " + std::to_string(kMaxCtas) +
                           " CTAs; allowed: a product of at most " + std::to_string(kMaxCtas) +
                           " CTAs (the backends launch the grid 1-D, gridDim.x < 2^31)");
    for (int64_t g : grid) l.grid.push_back(static_cast<int>(g));
    l.cluster.clear();
    if (m.has("cluster")) {
        // 8 CTAs is the portable cluster size (PG 1.2.2.1); larger needs a non-portable opt-in.
        for (int64_t c : m.int_list("cluster", 1, 3, 1, 8)) l.cluster.push_back(static_cast<int>(c));
    } else {
        l.cluster = {1};
    }
    l.block = static_cast<int>(m.integer("block", 1, 1024));
    if (kernel) l.dynamic_shared = m.integer_or("dynamic_shared", 0, 0, 232448);
    if (l.cluster_size() > 8) m.fail("cluster", "a cluster of " + std::to_string(l.cluster_size()) +
                                                     " CTAs; allowed: at most 8 (the portable cluster size)");
    if (l.num_ctas() % l.cluster_size() != 0)
        m.fail("cluster", "the grid's " + std::to_string(l.num_ctas()) + " CTAs do not split into clusters of " +
                              std::to_string(l.cluster_size()) + "; allowed: a cluster size that divides the grid");
    m.finish(kernel ? "grid, cluster, block, dynamic_shared" : "grid, cluster, block");
    return l;
}

// Every declared name, across sections: the device backend turns names into C++
// identifiers, and a name declared twice would leave the validator checking one
// declaration while a backend runs the other.
class DeclaredNames {
public:
    void add(const std::string& section, const std::string& name, const SourceLoc& at) {
        auto [it, fresh] = seen_.emplace(name, Declared{section, at});
        if (fresh) return;
        const Declared& first = it->second;
        throw ScenarioError(at, section + "." + name,
                            first.section == section
                                ? "the " + what(section) + " '" + name + "' is declared twice (first at line " +
                                      std::to_string(first.at.line) + "); allowed: each name once"
                                : "the name '" + name + "' is already the " + what(first.section) + " declared at line " +
                                      std::to_string(first.at.line) + "; allowed: a name used by one declaration only");
    }

private:
    struct Declared {
        std::string section;
        SourceLoc at;
    };
    static std::string what(const std::string& section) {
        static const std::map<std::string, std::string> words = {
            {"global", "global tensor"}, {"tensormaps", "tensor map"}, {"shared", "shared buffer"},
            {"barriers", "barrier"},     {"accumulators", "accumulator"}, {"layouts", "layout"},
            {"tiles", "register tile"}};
        return words.at(section);
    }
    std::map<std::string, Declared> seen_;
};

template <typename F>
void for_each_entry(MapReader& top, const std::string& key, DeclaredNames& names, F&& fn) {
    YAML::Node section = top.optional(key);
    if (!section.IsDefined() || section.IsNull()) return;
    if (!section.IsMap()) top.fail(key, "expected a mapping of name: {...}, got " + node_kind(section));
    for (auto it = section.begin(); it != section.end(); ++it) {
        if (!it->first.IsScalar())
            throw ScenarioError(loc_of(it->first, top.file()), key, "expected a name, got " + node_kind(it->first));
        std::string name = it->first.Scalar();
        std::string path = key + "." + name;
        check_name(name, loc_of(it->first, top.file()), path);
        names.add(key, name, loc_of(it->first, top.file()));
        // `bar:` with no value is an empty declaration, like `bar: {}`.
        YAML::Node value = it->second.IsNull() ? YAML::Node(YAML::NodeType::Map) : it->second;
        const SourceLoc at = loc_of(it->first, top.file());
        fn(name, MapReader(value, top.file(), path, at), at);
    }
}

// An expected rule must be one the model can report, with that rule's outcome.
void check_expected_rule(MapReader& e, const Expectation& x) {
    if (x.rule.empty()) return;
    const auto outcome = rule_outcome(x.rule);
    if (!outcome) {
        std::string ids;
        for (const RuleId& r : known_rule_ids()) ids += (ids.empty() ? "" : ", ") + r.id;
        const std::string guess = did_you_mean_rule(x.rule);
        e.fail("rule", "unknown rule \"" + x.rule + "\"; " + (guess.empty() ? "" : guess + " ") + "allowed: " + ids);
    }
    if (x.outcome != Outcome::ok && *outcome != x.outcome)
        e.fail("rule", "rule " + x.rule + " makes the outcome " + to_string(*outcome) + ", but expect.outcome is " +
                           to_string(x.outcome) + "; allowed: outcome " + to_string(*outcome) + " with this rule");
}

Scenario read_scenario(const YAML::Node& root, const std::string& file) {
    MapReader top(root, file, "");
    top.only_keys(kTopKeys);
    Scenario sc;
    DeclaredNames names;
    sc.file = file;
    sc.name = top.string("scenario");
    check_name(sc.name, top.loc("scenario"), "scenario");
    sc.summary = top.string_or("summary", "");
    sc.source = top.string_or("source", "");
    sc.arch = top.string_or("arch", "sm_90");
    if (sc.arch != "sm_90" && sc.arch != "sm_100")
        top.fail("arch", "unknown arch \"" + sc.arch + "\"; allowed: sm_90, sm_100");
    const bool kernel = top.has("kernel");
    if (kernel && top.has("program"))
        top.fail("kernel", "a scenario gives either program: (ops) or kernel: (a CUDA or PTX kernel), not both");
    if (kernel)
        for (const char* k : {"shared", "barriers", "accumulators", "layouts", "tiles"})
            if (top.has(k))
                top.fail(k, std::string(k) + " is for op scenarios; a kernel declares its own shared memory, barriers "
                                             "and registers (allowed with kernel: global, tensormaps)");
    {
        MapReader l(top.node("launch"), file, "launch");
        sc.launch = read_launch(l, kernel);
    }
    int64_t global_bytes = 0;
    for_each_entry(top, "global", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        m.only_keys("type, shape, init, compare");
        GlobalTensor t;
        t.name = name;
        t.loc = loc;
        t.type = read_dtype(m);
        t.shape = m.int_list("shape", 1, 5, 1, int64_t(1) << 32);
        t.init = m.has("init") ? read_init(m.node("init"), t.type, file, m.key_path("init")) : InitSpec{};
        if (m.has("compare")) t.compare = read_compare(m, t.type);
        m.finish("type, shape, init, compare");
        // Checked: [2^32, 2^32] u8 wrapped int64 to 0 bytes and validated.
        std::vector<int64_t> factors = t.shape;
        factors.push_back(dtype_size(t.type));
        if (!checked_product(factors, kMaxTensorBytes))
            m.fail("shape", "tensor is larger than 1 GiB: " + shape_text(t.shape) + " elements of " +
                                std::to_string(dtype_size(t.type)) + " byte(s); allowed: at most 1 GiB (" +
                                std::to_string(kMaxTensorBytes) + " bytes) per tensor");
        global_bytes += t.size_bytes();
        if (global_bytes > kMaxGlobalBytes)
            m.fail("shape", "the global tensors declared up to here total " + std::to_string(global_bytes) +
                                " bytes; allowed: at most 2 GiB (" + std::to_string(kMaxGlobalBytes) +
                                " bytes) per scenario");
        if (t.init.kind == InitSpec::Kind::file) read_init_file(t, file, m.key_path("init"));
        sc.globals.push_back(t);
    });
    for_each_entry(top, "tensormaps", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        const char* keys = "tensor, box, element_strides, swizzle, oob_fill, interleave, location";
        m.only_keys(keys);
        TensorMap tm;
        tm.name = name;
        tm.loc = loc;
        tm.tensor = m.string("tensor");
        tm.box = m.int_list("box", 1, 5, INT64_MIN, INT64_MAX);
        if (m.has("element_strides")) tm.element_strides = m.int_list("element_strides", 1, 5, INT64_MIN, INT64_MAX);
        std::string sw = m.string_or("swizzle", "none");
        auto swz = parse_swizzle(sw);
        if (!swz) m.fail("swizzle", "unknown swizzle \"" + sw + "\"; allowed: " + allowed_swizzles());
        tm.swizzle = *swz;
        std::string fill = m.string_or("oob_fill", "zero");
        auto of = parse_oob_fill(fill);
        if (!of) m.fail("oob_fill", "unknown oob_fill \"" + fill + "\"; allowed: " + allowed_oob_fills());
        tm.oob_fill = *of;
        std::string il = m.string_or("interleave", "none");
        auto ilv = parse_interleave(il);
        if (!ilv) m.fail("interleave", "unknown interleave \"" + il + "\"; allowed: " + allowed_interleaves());
        tm.interleave = *ilv;
        std::string where = m.string_or("location", "param");
        auto loc_kind = parse_map_location(where);
        if (!loc_kind) m.fail("location", "unknown location \"" + where + "\"; allowed: " + allowed_map_locations());
        tm.location = *loc_kind;
        m.finish(keys);
        sc.tensormaps.push_back(tm);
    });
    for_each_entry(top, "shared", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        m.only_keys("type, shape, align, array");
        SharedBuffer b;
        b.name = name;
        b.loc = loc;
        b.type = read_dtype(m);
        b.shape = m.int_list("shape", 1, 5, 1, 232448);
        b.align = m.integer_or("align", 128, 16, 1024);
        if ((b.align & (b.align - 1)) != 0) m.fail("align", std::to_string(b.align) + " is not a power of two; allowed: 16, 32, ..., 1024");
        b.array = m.integer_or("array", 0, 1, 64);
        m.finish("type, shape, align, array");
        // Checked here, where the product can still be named: the validator adds the buffers'
        // sizes (a total past 227 KB is its refusal), and five extents of 232448 wrap int64.
        std::vector<int64_t> factors = b.shape;
        factors.insert(factors.end(), {dtype_size(b.type), b.count()});
        if (!checked_product(factors, kMaxSharedBufferBytes))
            m.fail("shape", "shared buffer too large: " + shape_text(b.shape) + " elements of " +
                                std::to_string(dtype_size(b.type)) + " byte(s)" +
                                (b.array ? " x " + std::to_string(b.array) + " copies" : std::string()) +
                                "; allowed: at most 232448 bytes of shared memory (227 KB per block on sm_90)");
        sc.shared.push_back(b);
    });
    for_each_entry(top, "barriers", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        m.only_keys("array, at, offset");
        BarrierDecl d;
        d.name = name;
        d.loc = loc;
        d.array = m.integer_or("array", 0, 1, 64);
        read_barrier_view(m, d, sc);
        m.finish("array, at, offset");
        sc.barriers.push_back(d);
    });
    check_barrier_views(sc);
    for_each_entry(top, "accumulators", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        m.only_keys("n");
        AccumulatorDecl a;
        a.name = name;
        a.loc = loc;
        a.n = static_cast<int>(m.integer("n", 8, 256));
        if (a.n % 8 != 0) m.fail("n", std::to_string(a.n) + " is not a multiple of 8; allowed: 8, 16, ..., 256 [PTX 9.7.15.5]");
        m.finish("n");
        sc.accumulators.push_back(a);
    });
    for_each_entry(top, "layouts", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        sc.layouts.push_back(read_layout_decl(name, m, loc, sc.layouts));
    });
    for_each_entry(top, "tiles", names, [&](const std::string& name, MapReader m, const SourceLoc& loc) {
        sc.tiles.push_back(read_tile_decl(name, m, loc, sc));
    });
    if (kernel) {
        MapReader k(top.node("kernel"), file, "kernel");
        sc.kernel = read_kernel_spec(k, sc);
    } else {
        if (!top.has("program"))
            top.fail("program", "required key is missing; a scenario gives program: (a list of ops) or kernel: "
                                "(a CUDA or PTX kernel)");
        YAML::Node program = top.node("program");
        if (!program.IsSequence() || program.size() == 0)
            top.fail("program", "expected a non-empty list of ops, got " + node_kind(program));
        int next_id = 0;
        sc.program = read_ops(program, file, "program", next_id);
    }
    if (top.has("expect")) {
        MapReader e(top.node("expect"), file, "expect");
        e.only_keys("outcome, rule, op");
        sc.expect.loc = e.loc();
        std::string oc = e.string("outcome");
        auto o = parse_outcome(oc);
        if (!o) e.fail("outcome", "unknown outcome \"" + oc + "\"; allowed: " + allowed_outcomes());
        sc.expect.outcome = *o;
        sc.expect.rule = e.string_or("rule", "");
        sc.expect.op = e.string_or("op", "");
        e.finish("outcome, rule, op");
        check_expected_rule(e, sc.expect);
    }
    top.finish(kTopKeys);
    return sc;
}

}  // namespace

Scenario load_scenario_text(const std::string& text, const std::string& path) {
    if (text.size() > kMaxScenarioBytes)
        throw ScenarioError(SourceLoc{path, 1, 1}, "file", "the scenario is " + std::to_string(text.size()) +
                                                                " bytes; allowed: at most " +
                                                                std::to_string(kMaxScenarioBytes));
    YAML::Node root = load_single_yaml_document(text, path);
    if (!root.IsDefined() || root.IsNull())
        throw ScenarioError(SourceLoc{path, 1, 1}, "scenario", "the file is empty");
    Scenario sc;
    {
        ReadBudget budget(kMaxTextRead);
        sc = read_scenario(root, path);
    }
    sc.content_hash = fnv1a64_hex(text.data(), text.size());
    validate_scenario(sc);
    return sc;
}

Scenario load_scenario_file(const std::string& path) {
    // Only a regular file of bounded size: /dev/zero, a FIFO or a growing file would
    // otherwise be read until memory runs out.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw ScenarioError(SourceLoc{path, 0, 0}, "file", "cannot open the scenario file");
    if (!S_ISREG(st.st_mode))
        throw ScenarioError(SourceLoc{path, 0, 0}, "file", "not a regular file; allowed: a scenario YAML file");
    if (static_cast<uint64_t>(st.st_size) > kMaxScenarioBytes)
        throw ScenarioError(SourceLoc{path, 1, 1}, "file", "the scenario is " + std::to_string(st.st_size) +
                                                                " bytes; allowed: at most " + std::to_string(kMaxScenarioBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ScenarioError(SourceLoc{path, 0, 0}, "file", "cannot open the scenario file");
    std::string text(kMaxScenarioBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    return load_scenario_text(text, path);
}

}  // namespace tmasim
