// A kernel's tensor map operand: its 128 bytes found by address and decoded.
#include <array>

#include <fmt/format.h>

#include "model/kernel/tensormap_bytes.h"
#include "model/kernel/unit_families.h"
#include "model/sm/cta_module.h"

namespace tmasim::model::kernel {




void check_device_map_use(UnitCall& c, int lane, uint64_t addr);  // unit_tensormap.cpp

std::shared_ptr<const MapFields> UnitCall::map_at(int lane, uint64_t addr, std::string& key) const {
    (void)lane;
    const KernelLayout& l = kw.layout();
    const uint8_t* bytes = nullptr;
    std::array<uint8_t, 128> copy{};
    if (addr >= kParamWindow && addr < kParamWindow + kWindowBytes) addr -= kParamWindow;
    if (addr + 128 <= l.params.size()) {
        bytes = l.params.data() + addr;
        key = fmt::format("param+{}", addr);
    } else {
        const auto g = l.global_at(addr);
        if (!g || g->offset + 128 > g->size) throw std::out_of_range(fmt::format("tensor map address {:#x} holds no 128-byte map", addr));
        key = fmt::format("{}+{}", g->name, g->offset);
        // A map in global memory: rule B15 for its latest write (the host's copy included).
        check_device_map_use(const_cast<UnitCall&>(*this), lane, addr);
        if (g->kind == GlobalPlace::Kind::tensor) {
            kw.cta().run().global.read_range(g->name, g->offset, 128, copy.data());
            bytes = copy.data();
        } else {
            bytes = kw.image().module_globals.at(static_cast<size_t>(g->index)).data() + g->offset;
        }
    }
    uint64_t address = 0;
    std::string why;
    auto f = decode_tensormap(bytes, address, why);
    if (!f) throw std::out_of_range(fmt::format("the tensor map at {}: {}", key, why));
    const auto place = l.global_at(address);
    if (!place || place->kind != GlobalPlace::Kind::tensor)
        throw std::out_of_range(fmt::format("the tensor map at {} points at {:#x}, in no tensor of the scenario", key, address));
    f->tensor = place->name;
    f->base_offset = place->offset;
    f->map = key;
    return std::make_shared<const MapFields>(std::move(*f));
}

}  // namespace tmasim::model::kernel
