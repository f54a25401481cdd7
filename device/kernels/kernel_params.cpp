#include "device/kernels/kernel_params.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tmasim::device {

namespace {

void put_u64(std::vector<uint8_t>& out, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// Writes `p` (a global, tensormap, scalar or bytes value) at `at` of `out`; a blob's fields
// come here one by one. `key` names it in errors: "kernel.params[2]", "kernel.params[1].fields[3]".
void put_value(const Scenario& s, const KernelParam& p, const ParamSources& src, std::vector<uint8_t>& out, size_t at,
               const std::string& key) {
    const int64_t size = p.size_bytes();
    if (size <= 0 || at + static_cast<size_t>(size) > out.size())
        throw ScenarioError(p.loc, key, fmt::format("{} ({} bytes) at byte {} does not fit the {} bytes it is written into",
                                                    p.text(), size, at, out.size()));
    switch (p.kind) {
        case KernelParam::Kind::global: {
            const GlobalTensor* g = s.find_global(p.name);
            const auto addr = src.global_address.find(p.name);
            if (!g || addr == src.global_address.end())
                throw ScenarioError(p.loc, key, fmt::format("no global tensor named '{}'", p.name));
            // An address one past the end is a pointer a kernel may hold (an end bound); beyond it is not.
            if (p.offset < 0 || p.offset > g->size_bytes())
                throw ScenarioError(p.loc, key, fmt::format("offset {} lies outside tensor {} ({} bytes)", p.offset, p.name,
                                                            g->size_bytes()));
            put_u64(out, at, addr->second + static_cast<uint64_t>(p.offset));
            return;
        }
        case KernelParam::Kind::tensormap: {
            const auto map = src.tensor_map.find(p.name);
            if (map == src.tensor_map.end())
                throw ScenarioError(p.loc, key, fmt::format("no tensor map named '{}'", p.name));
            // The driver reads a CUtensorMap with 64-byte aligned loads (cp.async.bulk.tensor).
            if (at % 64 != 0)
                throw ScenarioError(p.loc, key, fmt::format("tensormap {} at byte {} of the param buffer: a CUtensorMap must "
                                                            "be 64-byte aligned", p.name, at));
            std::memcpy(out.data() + at, map->second.data(), map->second.size());
            return;
        }
        case KernelParam::Kind::scalar:
        case KernelParam::Kind::bytes: {
            const std::vector<uint8_t> v = p.value_bytes();
            std::memcpy(out.data() + at, v.data(), v.size());
            return;
        }
        case KernelParam::Kind::blob: {
            for (size_t f = 0; f < p.fields.size(); ++f) {
                const auto& [field_at, value] = p.fields[f];
                const std::string fkey = fmt::format("{}.fields[{}]", key, f);
                if (value.kind == KernelParam::Kind::blob)
                    throw ScenarioError(value.loc, fkey, "a blob inside a blob; allowed: global, tensormap, bytes or a scalar");
                if (field_at < 0 || field_at + value.size_bytes() > p.size)
                    throw ScenarioError(value.loc, fkey, fmt::format("{} at byte {} leaves the blob's {} bytes", value.text(),
                                                                     field_at, p.size));
                put_value(s, value, src, out, at + static_cast<size_t>(field_at), fkey);
            }
            return;
        }
    }
}

}  // namespace

ParamBuffer build_param_buffer(const Scenario& s, const ptx::Function& entry, const ParamSources& src) {
    if (!s.kernel) throw std::logic_error("build_param_buffer: not a kernel scenario");
    const KernelSpec& k = *s.kernel;
    if (k.params.size() != entry.params.size())
        throw ScenarioError(k.loc, "kernel.params", fmt::format("the scenario gives {} params; the kernel {} takes {}",
                                                                k.params.size(), entry.name, entry.params.size()));
    ParamBuffer b;
    b.bytes.assign(static_cast<size_t>(std::max<int64_t>(0, entry.param_bytes())), 0);
    for (size_t i = 0; i < entry.params.size(); ++i) {
        const ptx::Param& p = entry.params[i];
        const KernelParam& sp = k.params[i];
        const std::string key = fmt::format("kernel.params[{}]", i);
        if (sp.size_bytes() != p.size_bytes)
            throw ScenarioError(sp.loc, key, fmt::format("{} is {} bytes; the PTX's param {} `{}` ({}) is {}", sp.text(),
                                                         sp.size_bytes(), i, p.name, p.type, p.size_bytes));
        if (p.align > 0 && p.offset % p.align != 0)
            throw ScenarioError(sp.loc, key, fmt::format("the PTX's param {} `{}` sits at byte {}, not a multiple of its "
                                                         "alignment {}", i, p.name, p.offset, p.align));
        b.offsets.push_back(static_cast<size_t>(p.offset));
        put_value(s, sp, src, b.bytes, static_cast<size_t>(p.offset), key);
    }
    return b;
}

LaunchDims launch_dims(const Launch& l) {
    auto fill = [&](const std::vector<int>& v, unsigned out[3], const char* key) {
        if (v.empty() || v.size() > 3)
            throw ScenarioError(l.loc, key, fmt::format("{} entries; allowed: 1 to 3 (outermost first)", v.size()));
        for (size_t i = 0; i < v.size(); ++i) {
            if (v[i] < 1) throw ScenarioError(l.loc, key, fmt::format("extent {} is not positive", v[i]));
            out[v.size() - 1 - i] = static_cast<unsigned>(v[i]);  // the last entry is x
        }
    };
    LaunchDims d;
    fill(l.grid, d.grid, "launch.grid");
    fill(l.cluster, d.cluster, "launch.cluster");
    if (l.block < 1 || l.block > 1024)
        throw ScenarioError(l.loc, "launch.block", fmt::format("{} threads; allowed: 1 to 1024", l.block));
    d.block[0] = static_cast<unsigned>(l.block);
    static const char axis[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; ++a)
        if (d.grid[a] % d.cluster[a] != 0)
            throw ScenarioError(l.loc, "launch.cluster",
                                fmt::format("the cluster's {} extent {} does not divide the grid's {}; the driver refuses a "
                                            "cluster launch whose clusters do not tile the grid", axis[a], d.cluster[a],
                                            d.grid[a]));
    return d;
}

std::string launch_text(const Launch& l) {
    std::string t = fmt::format("grid [{}]", fmt::join(l.grid, ", "));
    if (l.cluster_size() > 1) t += fmt::format(" cluster [{}]", fmt::join(l.cluster, ", "));
    t += fmt::format(" block {}", l.block);
    if (l.dynamic_shared > 0) t += fmt::format(", {} bytes of dynamic shared memory", l.dynamic_shared);
    return t;
}

}  // namespace tmasim::device
