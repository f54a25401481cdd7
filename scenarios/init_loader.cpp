#include "scenarios/init_loader.h"

#include <cmath>

namespace tmasim {
// Named, not anonymous: the unity build puts this file beside other loaders' helpers.
namespace init_loader_detail {

// The values an element of `type` holds exactly (integers) or without becoming infinite
// (floats: the largest finite magnitude, which values/conversions round to nearest even).
struct InitTypeRange {
    double lo, hi;
    bool integer;
    std::string text;  // for messages
};

InitTypeRange init_range_of(DType type) {
    switch (type) {
    case DType::u8: return {0, 255, true, "0..255"};
    case DType::i32: return {-2147483648.0, 2147483647.0, true, "-2147483648..2147483647"};
    case DType::f16: return {-65504, 65504, false, "-65504..65504"};
    case DType::bf16: return {-3.3895313892515355e38, 3.3895313892515355e38, false, "-3.3895314e38..3.3895314e38"};
    case DType::f32: break;
    }
    return {-3.4028234663852886e38, 3.4028234663852886e38, false, "-3.4028235e38..3.4028235e38"};
}

// One value of `key` (fill, min, max), refused unless an element of `type` holds it as given.
double read_init_value(MapReader& m, const std::string& key, DType type) {
    const double v = m.number(key);
    const InitTypeRange r = init_range_of(type);
    const std::string text = m.node(key).Scalar();
    const std::string allowed = "; allowed: " + std::string(r.integer ? "integers " : "") + r.text + " (" +
                                to_string(type) + ")";
    if (r.integer && v != std::floor(v)) m.fail(key, text + " is not an integer, and " + to_string(type) +
                                                         " holds only integers" + allowed);
    if (v < r.lo || v > r.hi) m.fail(key, text + " does not fit " + to_string(type) + allowed);
    return v;
}

}  // namespace init_loader_detail

using namespace init_loader_detail;

InitSpec read_init(const YAML::Node& n, DType type, const std::string& file, const std::string& path) {
    InitSpec init;
    if (n.IsScalar()) {
        if (n.Scalar() == "iota") {
            init.kind = InitSpec::Kind::iota;
            return init;
        }
        throw ScenarioError(loc_of(n, file), path,
                            "unknown init \"" + n.Scalar() + "\"; allowed: iota, {fill: v}, {random: {seed, min, max}}");
    }
    MapReader m(n, file, path);
    m.only_keys("fill, random");
    if (m.has("fill")) {
        init.kind = InitSpec::Kind::fill;
        init.fill_value = read_init_value(m, "fill", type);
    } else if (m.has("random")) {
        init.kind = InitSpec::Kind::random;
        MapReader r(m.node("random"), file, m.key_path("random"));
        r.only_keys("seed, min, max");
        init.seed = static_cast<uint64_t>(r.integer("seed", 0, INT64_MAX));
        // A bound may be a fraction for an integer type (the values are the integers between),
        // but it must lie in the type's range: the values would wrap otherwise.
        const InitTypeRange range = init_range_of(type);
        auto bound = [&](const char* key, double fallback) {
            if (!r.has(key)) return fallback;
            const double v = r.number(key);
            if (v < range.lo || v > range.hi)
                r.fail(key, r.node(key).Scalar() + " does not fit " + to_string(type) + "; allowed: " +
                                range.text + " (" + to_string(type) + ")");
            return v;
        };
        init.min = bound("min", 0.0);
        init.max = bound("max", 1.0);
        r.finish("seed, min, max");
        if (init.max < init.min) r.fail("max", "max is below min");
        if (range.integer && std::ceil(init.min) > std::floor(init.max))
            r.fail("max", "no integer lies in [min, max], and " + to_string(type) +
                              " holds only integers; allowed: a range holding at least one integer");
    } else {
        m.fail("init", "expected iota, {fill: v} or {random: {seed, min, max}}");
    }
    m.finish("fill, random");
    return init;
}

}  // namespace tmasim
