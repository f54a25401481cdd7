#include "scenarios/kernel_loader.h"

#include <fmt/format.h>

#include "scenarios/validator_util.h"

namespace tmasim {
namespace {

constexpr int64_t kMaxParamBytes = 32764;  // CUDA 12.1+: 32764 bytes of kernel params (PG 7.2.3)
constexpr size_t kMaxParams = 512;

std::string scalar_key(MapReader& m) {
    for (const std::string& t : kernel_scalar_types())
        if (m.has(t)) return t;
    return "";
}

std::vector<uint8_t> read_hex(MapReader& m, const std::string& key) {
    const std::string hex = m.string(key);
    auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (hex.empty() || hex.size() % 2 != 0)
        m.fail(key, "\"" + hex.substr(0, 40) + "\" is not an even number of hex digits; allowed: bytes as hex, e.g. \"00ff10\"");
    std::vector<uint8_t> out;
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
        if (hi < 0 || lo < 0) m.fail(key, fmt::format("'{}' at character {} is not a hex digit", hex[hi < 0 ? i : i + 1], i + (hi < 0 ? 0 : 1)));
        out.push_back(static_cast<uint8_t>(hi * 16 + lo));
    }
    return out;
}

const char* kParamKeys = "global, offset, tensormap, bytes, blob, align, fields, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64";

KernelParam read_param(const YAML::Node& n, const std::string& file, const std::string& path, const Scenario& sc,
                       bool in_blob) {
    if (!n.IsMap())
        throw ScenarioError(loc_of(n, file), path,
                            "expected a param mapping ({global: A}, {tensormap: m}, {u32: 7}, {bytes: \"00ff\"}, "
                            "{blob: N, fields: [...]}), got " + node_kind(n));
    MapReader m(n, file, path);
    const std::string keys = in_blob ? std::string("at, ") + kParamKeys : kParamKeys;
    m.only_keys(keys);
    KernelParam p;
    p.loc = m.loc();
    int kinds = 0;
    const std::string scalar = scalar_key(m);
    for (const char* k : {"global", "tensormap", "bytes", "blob"}) kinds += m.has(k) ? 1 : 0;
    kinds += scalar.empty() ? 0 : 1;
    if (kinds != 1)
        m.fail("param", fmt::format("{} kinds of value given; allowed: exactly one of global, tensormap, bytes, blob "
                                    "or a scalar type ({})", kinds, join_names(kernel_scalar_types())));
    if (m.has("global")) {
        p.kind = KernelParam::Kind::global;
        p.name = m.string("global");
        if (!sc.find_global(p.name))
            m.fail("global", "no global tensor named '" + p.name + "'; declared: " + join_names(names_of(sc.globals)));
        p.offset = m.integer_or("offset", 0, 0, int64_t(1) << 40);
    } else if (m.has("tensormap")) {
        p.kind = KernelParam::Kind::tensormap;
        p.name = m.string("tensormap");
        if (!sc.find_map(p.name))
            m.fail("tensormap", "no tensor map named '" + p.name + "'; declared: " + join_names(names_of(sc.tensormaps)));
    } else if (m.has("bytes")) {
        p.kind = KernelParam::Kind::bytes;
        p.bytes = read_hex(m, "bytes");
    } else if (m.has("blob")) {
        p.kind = KernelParam::Kind::blob;
        p.size = m.integer("blob", 1, kMaxParamBytes);
        p.align = m.integer_or("align", 0, 1, 128);
        if (p.align != 0 && (p.align & (p.align - 1)) != 0) m.fail("align", fmt::format("{} is not a power of two; allowed: 1, 2, 4, ..., 128", p.align));
        YAML::Node fields = m.optional("fields");
        if (fields.IsDefined() && !fields.IsNull()) {
            if (!fields.IsSequence()) m.fail("fields", "expected a list of {at: OFFSET, <value>}, got " + node_kind(fields));
            for (size_t i = 0; i < fields.size(); ++i) {
                const std::string fpath = fmt::format("{}.fields[{}]", path, i);
                if (!fields[i].IsMap()) throw ScenarioError(loc_of(fields[i], file), fpath, "expected {at: OFFSET, <value>}, got " + node_kind(fields[i]));
                MapReader f(fields[i], file, fpath);
                const int64_t at = f.integer("at", 0, p.size - 1);
                KernelParam v = read_param(fields[i], file, fpath, sc, true);
                if (v.kind == KernelParam::Kind::blob) f.fail("blob", "a blob inside a blob; allowed: global, tensormap, bytes or a scalar");
                if (at + v.size_bytes() > p.size)
                    f.fail("at", fmt::format("{} ({} bytes) at byte {} ends at {}, past the blob's {} bytes", v.text(), v.size_bytes(), at, at + v.size_bytes(), p.size));
                const int64_t natural = v.kind == KernelParam::Kind::tensormap ? 64 : std::min<int64_t>(8, v.size_bytes());
                if (v.kind != KernelParam::Kind::bytes && at % natural != 0)
                    f.fail("at", fmt::format("{} at byte {} is not {}-byte aligned; allowed: a multiple of {}", v.text(), at, natural, natural));
                for (const auto& [other_at, other] : p.fields)
                    if (at < other_at + other.size_bytes() && other_at < at + v.size_bytes())
                        f.fail("at", fmt::format("{} at bytes {}..{} overlaps {} at bytes {}..{}", v.text(), at, at + v.size_bytes() - 1,
                                                 other.text(), other_at, other_at + other.size_bytes() - 1));
                p.fields.emplace_back(at, std::move(v));
            }
        }
    } else {
        p.kind = KernelParam::Kind::scalar;
        p.type = scalar;
        if (scalar[0] == 'f' || scalar == "bf16") {
            p.number = m.number(scalar);
        } else {
            const int64_t bits = 8 * kernel_scalar_bytes(scalar);
            const bool is_signed = scalar[0] == 'i';
            // 2^63 does not fit int64: i64's lower bound is INT64_MIN itself, not a negated shift.
            const int64_t lo = !is_signed ? 0 : bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
            const int64_t hi = bits == 64 ? INT64_MAX : is_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
            p.integer = m.integer(scalar, lo, hi);
        }
    }
    if (in_blob) m.integer("at", 0, INT64_MAX);  // read by the caller; consumed here for finish()
    m.finish(keys);
    return p;
}

}  // namespace

KernelSpec read_kernel_spec(MapReader& m, const Scenario& sc) {
    const char* keys = "cuda, ptx, entry, defines, params";
    m.only_keys(keys);
    KernelSpec k;
    k.loc = m.loc();
    if (m.has("cuda") == m.has("ptx"))
        m.fail("cuda", "give exactly one of cuda: FILE.cu and ptx: FILE.ptx");
    if (m.has("cuda")) {
        k.source_loc = m.loc("cuda");
        k.cuda = m.string("cuda");
    } else {
        k.source_loc = m.loc("ptx");
        k.ptx = m.string("ptx");
    }
    k.entry = m.string("entry");
    YAML::Node defines = m.optional("defines");
    if (defines.IsDefined() && !defines.IsNull()) {
        if (!k.ptx.empty()) m.fail("defines", "defines apply to a cuda: source only; a .ptx file is read as is");
        if (!defines.IsSequence()) m.fail("defines", "expected a list of NAME or NAME=VALUE, got " + node_kind(defines));
        for (size_t i = 0; i < defines.size(); ++i) {
            const std::string path = fmt::format("kernel.defines[{}]", i);
            if (!defines[i].IsScalar()) throw ScenarioError(loc_of(defines[i], m.file()), path, "expected NAME or NAME=VALUE, got " + node_kind(defines[i]));
            const std::string d = defines[i].Scalar();
            bool ok = !d.empty() && !(d[0] >= '0' && d[0] <= '9');
            for (size_t c = 0; c < d.size() && d[c] != '='; ++c)
                ok = ok && (std::isalnum(static_cast<unsigned char>(d[c])) || d[c] == '_');
            if (!ok || d.size() > 256) throw ScenarioError(loc_of(defines[i], m.file()), path, "\"" + d.substr(0, 60) + "\" is not NAME or NAME=VALUE (NAME: letters, digits and _)");
            k.defines.push_back(d);
        }
    }
    YAML::Node params = m.optional("params");
    if (params.IsDefined() && !params.IsNull()) {
        if (!params.IsSequence()) m.fail("params", "expected a list of params in the PTX's .param order, got " + node_kind(params));
        if (params.size() > kMaxParams) m.fail("params", fmt::format("{} params; allowed: at most {}", params.size(), kMaxParams));
        int64_t total = 0;
        for (size_t i = 0; i < params.size(); ++i) {
            k.params.push_back(read_param(params[i], m.file(), fmt::format("kernel.params[{}]", i), sc, false));
            total += k.params.back().size_bytes();
        }
        if (total > kMaxParamBytes) m.fail("params", fmt::format("the params take {} bytes; allowed: at most {} (CUDA's kernel parameter limit)", total, kMaxParamBytes));
    }
    m.finish(keys);
    return k;
}

}  // namespace tmasim
