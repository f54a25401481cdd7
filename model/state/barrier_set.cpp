#include "model/state/barrier_set.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/layout.h"

namespace tmasim::model {

void PhaseBytes::set(int64_t phase, int64_t bytes) {
    if (entries_.empty() || entries_.back().first < phase) {
        entries_.emplace_back(phase, bytes);
        return;
    }
    auto it = std::lower_bound(entries_.begin(), entries_.end(), std::make_pair(phase, INT64_MIN));
    if (it != entries_.end() && it->first == phase)
        it->second = bytes;
    else
        entries_.insert(it, {phase, bytes});
}

int64_t PhaseBytes::get(int64_t phase) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), std::make_pair(phase, INT64_MIN));
    return it != entries_.end() && it->first == phase ? it->second : 0;
}

int64_t BarrierSlot::observed_phase(int64_t parity) const {
    int64_t p = state.phase() - 1;  // latest completed
    if (p >= 0 && (p & 1) != (parity & 1)) --p;
    return p;
}

void BarrierSlot::reset_observations() {
    observed_by.assign(observed_by.size(), -1);
    observed_through = -1;
    unobserved_reported = -1;
    phase_bytes.clear();
}

BarrierSet::BarrierSet(const Scenario& s, const SharedLayout& layout) {
    for (const auto& b : s.barriers) {
        Decl d;
        d.first = static_cast<int>(slots_.size());
        d.count = b.count();
        d.array = b.array != 0;
        decls_[b.name] = d;
        for (int64_t i = 0; i < d.count; ++i) {
            auto slot = std::make_unique<BarrierSlot>();
            slot->name = d.array ? fmt::format("{}[{}]", b.name, i) : b.name;
            slot->decl = b.name;
            slot->observed_by.assign(s.launch.block, -1);
            slot->smem_offset = layout.offset_of(b.name, i);
            slots_.push_back(std::move(slot));
        }
    }
}

int BarrierSet::index_of(const std::string& name, int64_t index, bool indexed) const {
    auto it = decls_.find(name);
    if (it == decls_.end()) throw std::out_of_range(fmt::format("unknown barrier '{}'", name));
    const Decl& d = it->second;
    if (!indexed) {
        if (d.array) throw std::out_of_range(fmt::format("barrier array '{}' used without an index", name));
        return d.first;
    }
    if (index < 0 || index >= d.count)
        throw std::out_of_range(fmt::format("barrier index {}[{}] outside 0..{}", name, index, d.count - 1));
    return d.first + static_cast<int>(index);
}

void BarrierSet::notify_all() {
    for (auto& s : slots_) s->changed.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tmasim::model
