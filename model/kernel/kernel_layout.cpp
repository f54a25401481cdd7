#include "model/kernel/kernel_layout.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "model/kernel/tensormap_bytes.h"
#include "model/state/tensormap_state_fields.h"

namespace tmasim::model::kernel {
namespace {

int64_t align_up(int64_t v, int64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

void place_shared(KernelLayout& l, const ptx::Variable& v, std::vector<const ptx::Variable*>& dynamic) {
    if (v.space != ptx::Space::shared) return;
    if (v.is_extern) {
        dynamic.push_back(&v);
        return;
    }
    const int64_t at = align_up(l.static_shared, std::max<int64_t>(1, v.alignment()));
    l.shared.push_back({v.name, at, v.size_bytes()});
    l.shared_offsets[v.name] = at;
    l.static_shared = at + v.size_bytes();
}

// Param `i`'s bytes at `at` in the buffer: pointers, maps, scalars, raw bytes, blobs.
void write_param(const Scenario& s, KernelLayout& l, const KernelParam& p, int64_t at) {
    auto put = [&](const std::vector<uint8_t>& bytes) {
        std::copy(bytes.begin(), bytes.end(), l.params.begin() + at);
    };
    switch (p.kind) {
        case KernelParam::Kind::global: {
            const uint64_t a = l.tensor_address.at(p.name) + static_cast<uint64_t>(p.offset);
            std::vector<uint8_t> b(8);
            std::memcpy(b.data(), &a, 8);
            put(b);
            break;
        }
        case KernelParam::Kind::tensormap: {
            const TensorMap& m = *s.find_map(p.name);
            const MapFields f = MapFields::encode(m, *s.find_global(m.tensor));
            const TensorMapBytes b = encode_tensormap(f, l.tensor_address.at(m.tensor));
            std::copy(b.begin(), b.end(), l.params.begin() + at);
            break;
        }
        case KernelParam::Kind::scalar:
        case KernelParam::Kind::bytes: put(p.value_bytes()); break;
        case KernelParam::Kind::blob:
            for (const auto& [field_at, f] : p.fields) write_param(s, l, f, at + field_at);
            break;
    }
}

}  // namespace

std::string demangled(const std::string& name) {
    if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') return name;
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !d) return name;
    std::string out = d;
    std::free(d);
    return out;
}

const SharedSymbol* KernelLayout::shared_symbol_at(int64_t offset) const {
    const SharedSymbol* best = nullptr;
    for (const SharedSymbol& s : shared)
        if (s.offset <= offset && (s.size == 0 ? offset < shared_bytes : offset < s.offset + s.size)) best = &s;
    return best;
}

std::string KernelLayout::shared_name(int64_t offset) const {
    const SharedSymbol* s = shared_symbol_at(offset);
    if (!s) return fmt::format("shared+{}", offset);
    const std::string n = demangled(s->name);
    return offset == s->offset ? n : fmt::format("{}+{}", n, offset - s->offset);
}

std::optional<GlobalPlace> KernelLayout::global_at(uint64_t addr) const {
    // Tensors and module globals are few (a scenario declares a handful): a scan.
    for (const auto& [name, base] : tensor_address) {
        const int64_t size = tensor_bytes.at(name);
        if (addr >= base && addr < base + static_cast<uint64_t>(size))
            return GlobalPlace{GlobalPlace::Kind::tensor, name, -1, static_cast<int64_t>(addr - base), size};
    }
    for (size_t i = 0; i < module_globals.size(); ++i) {
        const ModuleGlobal& g = module_globals[i];
        if (addr >= g.address && addr < g.address + g.init.size())
            return GlobalPlace{GlobalPlace::Kind::module_global, g.name, static_cast<int>(i),
                               static_cast<int64_t>(addr - g.address), static_cast<int64_t>(g.init.size())};
    }
    return std::nullopt;
}

KernelLayout layout_kernel(const Scenario& s, const ptx::BoundKernel& k) {
    KernelLayout l;
    std::vector<const ptx::Variable*> dynamic;
    for (const ptx::Variable& v : k.module.variables) place_shared(l, v, dynamic);
    for (const ptx::Function* f : k.functions)
        for (const ptx::Variable& v : f->variables) place_shared(l, v, dynamic);
    // The dynamic array starts past the static variables at the largest alignment any
    // `.extern .shared` declaration asks (CUDA aligns it to at least 16 bytes); every extern
    // array names the same bytes.
    int64_t align = 16;
    for (const ptx::Variable* v : dynamic) align = std::max(align, v->alignment());
    l.dynamic_offset = align_up(l.static_shared, align);
    for (const ptx::Variable* v : dynamic) {
        l.shared.push_back({v->name, l.dynamic_offset, 0});
        l.shared_offsets[v->name] = l.dynamic_offset;
    }
    l.shared_bytes = s.launch.dynamic_shared > 0 || !dynamic.empty() ? l.dynamic_offset + s.launch.dynamic_shared
                                                                     : l.static_shared;
    std::stable_sort(l.shared.begin(), l.shared.end(),
                     [](const SharedSymbol& a, const SharedSymbol& b) { return a.offset < b.offset; });
    // Global tensors at 64 KiB-aligned device addresses with a gap after each, so an access just
    // past one faults instead of landing in the next.
    uint64_t next = kGlobalBase;
    for (const GlobalTensor& t : s.globals) {
        l.tensor_address[t.name] = next;
        l.tensor_bytes[t.name] = t.size_bytes();
        next += (static_cast<uint64_t>(t.size_bytes()) + (1u << 16) + 0xffff) & ~uint64_t(0xffff);
    }
    uint64_t mg = kModuleGlobalBase;
    for (const ptx::Variable& v : k.module.variables) {
        if (v.space != ptx::Space::global) continue;
        mg = static_cast<uint64_t>(align_up(static_cast<int64_t>(mg), std::max<int64_t>(16, v.alignment())));
        ModuleGlobal g{v.name, mg, std::vector<uint8_t>(static_cast<size_t>(v.size_bytes()), 0)};
        std::copy_n(v.init.begin(), std::min(v.init.size(), g.init.size()), g.init.begin());
        mg += static_cast<uint64_t>(v.size_bytes()) + 16;
        l.module_globals.push_back(std::move(g));
    }
    const ptx::Function& e = *k.entry;
    l.params.assign(static_cast<size_t>(e.param_bytes()), 0);
    for (size_t i = 0; i < e.params.size() && i < s.kernel->params.size(); ++i) {
        l.param_offsets[e.params[i].name] = e.params[i].offset;
        write_param(s, l, s.kernel->params[i], e.params[i].offset);
    }
    return l;
}

}  // namespace tmasim::model::kernel
