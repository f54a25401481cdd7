#include "traces/diff_bytes.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "scenarios/values.h"

namespace tmasim {
namespace {

// "put[3]:stage[1]" -> "stage": a snapshot's label prefix and any array index go.
std::string base_name(const std::string& image_name) {
    std::string name = image_name;
    if (auto colon = name.rfind(':'); colon != std::string::npos) name = name.substr(colon + 1);
    if (auto bracket = name.find('['); bracket != std::string::npos) name = name.substr(0, bracket);
    return name;
}

std::string hex_bytes(const uint8_t* p, size_t n) {
    std::string s = "0x";
    // Little-endian, like the GPU: the most significant byte is the last one.
    for (size_t i = n; i-- > 0;) s += fmt::format("{:02x}", p[i]);
    return s;
}

}  // namespace

ImageCompares image_compares_of(const Scenario& scenario) {
    ImageCompares out;
    for (const GlobalTensor& t : scenario.globals)
        if (t.compare.kind != ImageCompare::Kind::exact) out["global:" + t.name] = t.compare;
    return out;
}

namespace {
// An IEEE value's bits as an integer that orders like the value (sign-magnitude to two's
// complement), so that neighbouring floats are 1 apart.
int64_t ordered(uint32_t bits, int width) {
    const uint32_t sign = uint32_t(1) << (width - 1);
    return (bits & sign) ? -static_cast<int64_t>(bits & (sign - 1)) : static_cast<int64_t>(bits);
}
bool is_nan(uint32_t bits, DType type) {
    if (type == DType::f32) return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu);
    if (type == DType::f16) return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu);
    return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu);  // bf16
}
}  // namespace

int64_t max_ulp_distance(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, DType type) {
    const int size = dtype_size(type), width = size * 8;
    int64_t worst = 0;
    for (size_t at = 0; at + static_cast<size_t>(size) <= a.size() && at + static_cast<size_t>(size) <= b.size(); at += size) {
        uint32_t x = 0, y = 0;
        std::memcpy(&x, &a[at], static_cast<size_t>(size));
        std::memcpy(&y, &b[at], static_cast<size_t>(size));
        if (x == y) continue;
        if (is_nan(x, type) || is_nan(y, type)) return INT64_MAX;
        const int64_t d = ordered(x, width) - ordered(y, width);
        worst = std::max(worst, d < 0 ? -d : d);
    }
    return worst;
}

ElementTypes element_types_of(const Scenario& scenario) {
    ElementTypes types;
    for (const GlobalTensor& g : scenario.globals) types["global:" + g.name] = g.type;
    for (const SharedBuffer& s : scenario.shared) types["shared:" + s.name] = s.type;
    return types;
}

std::optional<DType> element_type_of(const ElementTypes& types, const std::string& space,
                                     const std::string& image_name) {
    const std::string key = (space == "global" ? "global:" : "shared:") + base_name(image_name);
    auto it = types.find(key);
    if (it == types.end()) return std::nullopt;
    return it->second;
}

std::string element_text(const uint8_t* base, DType type, int64_t element) {
    if (dtype_is_float(type)) return fmt::format("{}", load_element_float(base, type, element));
    return std::to_string(load_element_int(base, type, element));
}

ByteDifferences differing_elements(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                   std::optional<DType> type, size_t limit) {
    ByteDifferences d;
    d.type = type ? to_string(*type) : "bytes";
    const size_t n = std::min(a.size(), b.size());
    const size_t size = type ? static_cast<size_t>(dtype_size(*type)) : 1;
    for (size_t offset = 0; offset < n; offset += size) {
        const size_t width = std::min(size, n - offset);
        if (std::memcmp(a.data() + offset, b.data() + offset, width) == 0) continue;
        ++d.elements_differing;
        if (d.first.size() >= limit) continue;
        ElementDifference e;
        e.offset = static_cast<int64_t>(offset);
        e.element = static_cast<int64_t>(offset / size);
        e.size = static_cast<int>(width);
        if (type && width == size) {
            e.a = element_text(a.data(), *type, e.element);
            e.b = element_text(b.data(), *type, e.element);
        } else {
            e.a = hex_bytes(a.data() + offset, width);
            e.b = hex_bytes(b.data() + offset, width);
        }
        d.first.push_back(std::move(e));
    }
    return d;
}

}  // namespace tmasim
