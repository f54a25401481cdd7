#include "capture/replay_scenario.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tmasim::capture {

namespace {

struct Refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// CUtensorMapDataType values (cuda.h) of the element types a scenario tensor can have.
const char* map_dtype(int dtype) {
    switch (dtype) {
    case 0: return "u8";     // CU_TENSOR_MAP_DATA_TYPE_UINT8
    case 3: return "i32";    // INT32 (UINT16 1, UINT32 2 have no scenario type)
    case 6: return "f16";    // FLOAT16
    case 7: return "f32";    // FLOAT32
    case 9: return "bf16";   // BFLOAT16
    default: return nullptr;
    }
}
int64_t dtype_bytes(const std::string& t) { return t == "u8" ? 1 : t == "f16" || t == "bf16" ? 2 : 4; }

const char* swizzle_name(int s) {
    static const char* names[] = {"none", "32B", "64B", "128B"};  // CU_TENSOR_MAP_SWIZZLE_NONE..128B
    return s >= 0 && s < 4 ? names[s] : nullptr;
}
const char* interleave_name(int i) {
    static const char* names[] = {"none", "16B", "32B"};  // CU_TENSOR_MAP_INTERLEAVE_NONE..32B
    return i >= 0 && i < 3 ? names[i] : nullptr;
}

std::string hex(const uint8_t* b, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", b[i]);
    return s;
}

// Outermost first, leading 1s dropped: the scenario's `grid: [y, x]` for (x, y, 1).
std::string dims_text(const unsigned (&d)[3]) {
    std::vector<unsigned> v{d[2], d[1], d[0]};
    while (v.size() > 1 && v.front() == 1) v.erase(v.begin());
    return fmt::format("[{}]", fmt::join(v, ", "));
}

struct Tensor {
    std::string name, type = "u8";
    std::vector<uint64_t> shape;  // outermost first
    const CapturedRegion* region = nullptr;
};

class Builder {
public:
    Builder(const CapturedLaunch& l, const ReplayContext& c) : l_(l), c_(c) {}

    ReplayScenario build() {
        ReplayScenario out;
        out.name = fmt::format("capture_{:03d}_{}", l_.index, short_kernel_name(l_.entry));
        if (!l_.refused.empty()) throw Refusal(l_.refused);
        if (l_.sync_before != 0) throw Refusal(fmt::format("the work before the launch failed (CUresult {})", l_.sync_before));
        if (l_.block[1] != 1 || l_.block[2] != 1)
            throw Refusal(fmt::format("block ({}, {}, {}): kernel scenarios launch 1-D blocks", l_.block[0], l_.block[1], l_.block[2]));
        for (size_t i = 0; i < l_.regions.size(); ++i) {
            tensors_.push_back({fmt::format("g{}", i), "u8", {l_.regions[i].size}, &l_.regions[i]});
            if (l_.regions[i].before.empty()) throw Refusal(fmt::format("allocation {:#x} could not be read", l_.regions[i].base));
        }
        type_tensors_by_maps();
        std::string params;
        for (size_t p = 0; p < l_.params.size(); ++p) params += "    - " + param_text(p) + "\n";
        std::string yaml = fmt::format("scenario: {}\nsummary: >\n  Launch {} of `{}`, captured by tmasim capture on {}: {}.\n",
                                       out.name, l_.index, c_.program, c_.gpu, l_.entry);
        yaml += "source: \"tmasim capture (docs/capture.md)\"\n";
        yaml += fmt::format("arch: {}\n", c_.ptx_target.rfind("sm_100", 0) == 0 ? "sm_100" : "sm_90");
        yaml += fmt::format("launch: {{grid: {}, cluster: {}, block: {}, dynamic_shared: {}}}\n", dims_text(l_.grid),
                            dims_text(l_.cluster), l_.block[0], l_.dynamic_shared);
        yaml += "global:\n";
        for (const Tensor& t : tensors_) {
            yaml += fmt::format("  {}: {{type: {}, shape: [{}], init: {{file: {}/{}.bin}}}}\n", t.name, t.type,
                                fmt::join(t.shape, ", "), c_.data_dir, t.region->before);
            if (l_.sync_after == 0) out.outputs.emplace_back(t.name, t.region->after);
        }
        if (!maps_text_.empty()) yaml += "tensormaps:\n" + maps_text_;
        yaml += fmt::format("kernel:\n  ptx: {}\n  entry: {}\n  params:\n{}", c_.ptx_file, l_.entry, params);
        yaml += fmt::format("expect: {{outcome: {}}}\n", l_.sync_after == 0 ? "ok" : "fault");
        out.yaml = yaml;
        return out;
    }

private:
    const Tensor* tensor_at(uint64_t address, uint64_t* offset) const {
        for (const Tensor& t : tensors_)
            if (address >= t.region->base && address < t.region->base + t.region->size) {
                *offset = address - t.region->base;
                return &t;
            }
        return nullptr;
    }

    // A map over the start of an allocation, dense, is that tensor with the map's element type
    // and dims. Any other view (a map into the middle, padded rows, two maps that disagree)
    // is refused: a scenario's maps cover their whole tensor.
    void type_tensors_by_maps() {
        std::map<std::string, size_t> typed;  // tensor -> the map that typed it
        for (size_t i = 0; i < l_.maps.size(); ++i) {
            const CapturedMap& m = l_.maps[i];
            uint64_t offset = 0;
            const Tensor* found = tensor_at(m.global_address, &offset);
            if (!found) throw Refusal(fmt::format("tensor map at param {} points at {:#x}, outside every allocation read", m.param, m.global_address));
            Tensor& t = const_cast<Tensor&>(*found);
            const char* type = map_dtype(m.dtype);
            if (!type) throw Refusal(fmt::format("tensor map at param {}: element type {} (CUtensorMapDataType) has no scenario type; allowed: u8, i32, f16, f32, bf16", m.param, m.dtype));
            uint64_t extent = dtype_bytes(type), dense = extent;
            for (size_t d = 0; d < m.dims.size(); ++d) {
                if (d > 0 && m.strides[d - 1] != dense)
                    throw Refusal(fmt::format("tensor map at param {}: stride of dimension {} is {} bytes, not the dense {}", m.param, d, m.strides[d - 1], dense));
                dense *= m.dims[d];
            }
            extent = dense;
            if (offset != 0 || extent > t.region->size)
                throw Refusal(fmt::format("tensor map at param {} covers bytes {}..{} of a {}-byte allocation; allowed: a dense map from its first byte",
                                          m.param, offset, offset + extent - 1, t.region->size));
            std::vector<uint64_t> shape(m.dims.rbegin(), m.dims.rend());
            if (auto it = typed.find(t.name); it != typed.end()) {
                if (t.type != type || t.shape != shape)
                    throw Refusal(fmt::format("two tensor maps view allocation {} as different tensors", t.name));
            } else {
                t.type = type;
                t.shape = shape;
                typed[t.name] = i;
            }
            const char* swizzle = swizzle_name(m.swizzle);
            const char* interleave = interleave_name(m.interleave);
            if (!swizzle || !interleave) throw Refusal(fmt::format("tensor map at param {}: swizzle {} / interleave {} has no scenario spelling", m.param, m.swizzle, m.interleave));
            const std::vector<uint32_t> box(m.box.rbegin(), m.box.rend()), es(m.element_strides.rbegin(), m.element_strides.rend());
            const bool unit = std::all_of(es.begin(), es.end(), [](uint32_t v) { return v == 1; });
            maps_text_ += fmt::format("  m{}: {{tensor: {}, box: [{}]{}, swizzle: {}, interleave: {}, oob_fill: {}}}\n", i, t.name,
                                      fmt::join(box, ", "), unit ? "" : fmt::format(", element_strides: [{}]", fmt::join(es, ", ")),
                                      swizzle, interleave, m.oob_fill == 0 ? "zero" : "nan");
        }
    }

    // One field or param value at `at` of param p's bytes, or "" when nothing is there.
    std::string value_at(size_t p, size_t at, size_t* size) const {
        for (size_t i = 0; i < l_.maps.size(); ++i)
            if (l_.maps[i].param == p && l_.maps[i].at == at) {
                *size = 128;
                return fmt::format("tensormap: m{}", i);
            }
        const std::vector<uint8_t>& b = l_.params[p].bytes;
        if (at % 8 == 0 && at + 8 <= b.size()) {
            uint64_t v = 0, offset = 0;
            std::memcpy(&v, b.data() + at, 8);
            if (const Tensor* t = tensor_at(v, &offset)) {
                *size = 8;
                return offset ? fmt::format("global: {}, offset: {}", t->name, offset) : fmt::format("global: {}", t->name);
            }
        }
        return "";
    }

    std::string param_text(size_t p) {
        const std::vector<uint8_t>& b = l_.params[p].bytes;
        size_t size = 0;
        const std::string whole = value_at(p, 0, &size);
        if (!whole.empty() && size == b.size()) return "{" + whole + "}";
        if (b.size() <= 8 && whole.empty()) return fmt::format("{{bytes: \"{}\"}}", hex(b.data(), b.size()));
        // A params struct: maps and pointers where they lie, the other non-zero bytes as bytes.
        std::vector<std::string> fields;
        size_t run = 0;
        bool in_run = false;
        auto close_run = [&](size_t end) {
            if (in_run) fields.push_back(fmt::format("{{at: {}, bytes: \"{}\"}}", run, hex(b.data() + run, end - run)));
            in_run = false;
        };
        for (size_t at = 0; at < b.size();) {
            const std::string v = value_at(p, at, &size);
            if (!v.empty()) {
                close_run(at);
                fields.push_back(fmt::format("{{at: {}, {}}}", at, v));
                at += size;
                continue;
            }
            if (b[at] != 0 && !in_run) run = at, in_run = true;
            if (b[at] == 0 && in_run) close_run(at);
            ++at;
        }
        close_run(b.size());
        return fmt::format("{{blob: {}, fields: [{}]}}", b.size(), fmt::join(fields, ", "));
    }

    const CapturedLaunch& l_;
    const ReplayContext& c_;
    std::vector<Tensor> tensors_;
    std::string maps_text_;
};

}  // namespace

std::string short_kernel_name(const std::string& entry) {
    std::string name = entry;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(entry.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && demangled) {
        // "void gemm_device<...>(...)" -> "gemm_device"; namespaces dropped.
        std::string d = demangled.get();
        const size_t open = d.find_first_of("<(");
        d = d.substr(0, open);
        const size_t space = d.rfind(' ');
        if (space != std::string::npos) d = d.substr(space + 1);
        const size_t colon = d.rfind("::");
        if (colon != std::string::npos) d = d.substr(colon + 2);
        if (!d.empty()) name = d;
    }
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    return out.substr(0, 48);
}

ReplayScenario replay_scenario(const CapturedLaunch& launch, const ReplayContext& context) {
    try {
        return Builder(launch, context).build();
    } catch (const Refusal& r) {
        ReplayScenario out;
        out.name = fmt::format("capture_{:03d}_{}", launch.index, short_kernel_name(launch.entry));
        out.refused = r.what();
        return out;
    }
}

}  // namespace tmasim::capture
