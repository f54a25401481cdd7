// KernelSpec and KernelParam (scenarios/ir.h): what a kernel scenario's params occupy and
// how their values are encoded, shared by the loader, the binding and both backends.
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/ir.h"
#include "scenarios/values.h"

namespace tmasim {

const std::vector<std::string>& kernel_scalar_types() {
    static const std::vector<std::string> types = {"u8",  "u16",  "u32", "u64", "i8",  "i16",
                                                   "i32", "i64",  "f16", "bf16", "f32", "f64"};
    return types;
}

int64_t kernel_scalar_bytes(const std::string& type) {
    if (type == "u8" || type == "i8") return 1;
    if (type == "u16" || type == "i16" || type == "f16" || type == "bf16") return 2;
    if (type == "u32" || type == "i32" || type == "f32") return 4;
    if (type == "u64" || type == "i64" || type == "f64") return 8;
    return 0;
}

int64_t KernelParam::size_bytes() const {
    switch (kind) {
        case Kind::global: return 8;
        case Kind::tensormap: return 128;
        case Kind::scalar: return kernel_scalar_bytes(type);
        case Kind::bytes: return static_cast<int64_t>(bytes.size());
        case Kind::blob: return size;
    }
    return 0;
}

std::string KernelParam::text() const {
    switch (kind) {
        case Kind::global: return offset ? fmt::format("global {} + {} bytes", name, offset) : "global " + name;
        case Kind::tensormap: return "tensormap " + name;
        case Kind::scalar:
            return type[0] == 'f' || type == "bf16" ? fmt::format("{} {}", type, number) : fmt::format("{} {}", type, integer);
        case Kind::bytes: return fmt::format("{} raw bytes", bytes.size());
        case Kind::blob: return fmt::format("blob of {} bytes", size);
    }
    return "";
}

std::vector<uint8_t> KernelParam::value_bytes() const {
    if (kind == Kind::bytes) return bytes;
    if (kind != Kind::scalar) throw std::logic_error("KernelParam::value_bytes: not a scalar or bytes param");
    std::vector<uint8_t> out(static_cast<size_t>(kernel_scalar_bytes(type)), 0);
    uint64_t bits = static_cast<uint64_t>(integer);
    if (type == "f32") {
        const float f = static_cast<float>(number);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
    } else if (type == "f64") {
        std::memcpy(&bits, &number, 8);
    } else if (type == "f16") {
        bits = float_to_f16_bits(static_cast<float>(number));
    } else if (type == "bf16") {
        bits = float_to_bf16_bits(static_cast<float>(number));
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(bits >> (8 * i));
    return out;
}

std::string KernelSpec::resolved_source(const std::string& scenario_file) const {
    const std::string& f = cuda.empty() ? ptx : cuda;
    if (f.empty() || f[0] == '/') return f;
    const size_t slash = scenario_file.rfind('/');
    return slash == std::string::npos ? f : scenario_file.substr(0, slash + 1) + f;
}

}  // namespace tmasim
