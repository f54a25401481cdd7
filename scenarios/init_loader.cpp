#include "scenarios/init_loader.h"

#include <cmath>
#include <filesystem>
#include <fstream>

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
                            "unknown init \"" + n.Scalar() + "\"; allowed: iota, {fill: v}, {random: {seed, min, max}}, {file: PATH}");
    }
    MapReader m(n, file, path);
    m.only_keys("fill, random, file");
    if (m.has("file")) {
        init.kind = InitSpec::Kind::file;
        init.file = m.string("file");
        init.file_loc = loc_of(m.node("file"), file);
    } else if (m.has("fill")) {
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
        m.fail("init", "expected iota, {fill: v}, {random: {seed, min, max}} or {file: PATH}");
    }
    m.finish("fill, random, file");
    return init;
}

void read_init_file(GlobalTensor& t, const std::string& scenario_file, const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path where = fs::path(scenario_file).parent_path() / t.init.file;
    std::error_code ec;
    if (!fs::is_regular_file(where, ec))
        throw ScenarioError(t.init.file_loc, path + ".file",
                            "no file " + where.string() + "; allowed: a file of the tensor's " +
                                std::to_string(t.size_bytes()) + " bytes, relative to the scenario");
    const uintmax_t size = fs::file_size(where, ec);
    if (ec || size != static_cast<uintmax_t>(t.size_bytes()))
        throw ScenarioError(t.init.file_loc, path + ".file",
                            where.string() + " holds " + std::to_string(size) + " bytes, but " + t.name + " is " +
                                std::to_string(t.size_bytes()) + " bytes; allowed: a file of exactly the tensor's size");
    auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(size));
    std::ifstream in(where, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(bytes->data()), static_cast<std::streamsize>(size)))
        throw ScenarioError(t.init.file_loc, path + ".file", "cannot read " + where.string());
    t.init.file_bytes = std::move(bytes);
}

}  // namespace tmasim
