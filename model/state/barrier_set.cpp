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

void ObservedPhases::reset(int threads) {
    per_thread_.assign(static_cast<size_t>(std::max(threads, 0)), -1);
    const size_t warps = (per_thread_.size() + 31) / 32;
    warp_value_.assign(warps, -1);
    uniform_.assign(warps, 1);
}

int64_t ObservedPhases::at(int thread) const {
    const auto t = static_cast<size_t>(thread);
    if (thread < 0 || t >= per_thread_.size()) return per_thread_.at(t);  // throws
    return uniform_[t / 32] ? warp_value_[t / 32] : per_thread_[t];
}

bool ObservedPhases::whole_warp(const int* threads, size_t count) const {
    // Ascending threads of one warp, as many as it has: all of them.
    if (count == 0 || threads[0] < 0 || threads[0] % 32 != 0) return false;
    const auto first = static_cast<size_t>(threads[0]);
    if (first >= per_thread_.size() || count != std::min<size_t>(32, per_thread_.size() - first)) return false;
    for (size_t i = 1; i < count; ++i)
        if (threads[i] != threads[i - 1] + 1) return false;
    return true;
}

void ObservedPhases::spell_out(size_t warp) {
    if (!uniform_[warp]) return;
    const size_t first = warp * 32, end = std::min(per_thread_.size(), first + 32);
    std::fill(per_thread_.begin() + static_cast<std::ptrdiff_t>(first),
              per_thread_.begin() + static_cast<std::ptrdiff_t>(end), warp_value_[warp]);
    uniform_[warp] = 0;
}

void ObservedPhases::raise(const int* threads, size_t count, int64_t phase) {
    if (whole_warp(threads, count)) {
        const auto warp = static_cast<size_t>(threads[0]) / 32;
        if (uniform_[warp]) {
            warp_value_[warp] = std::max(warp_value_[warp], phase);
            return;
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const auto t = static_cast<size_t>(threads[i]);
        if (threads[i] < 0 || t >= per_thread_.size()) per_thread_.at(t);  // throws
        spell_out(t / 32);
        per_thread_[t] = std::max(per_thread_[t], phase);
    }
}

int64_t BarrierSlot::observed_phase(int64_t parity) const {
    int64_t p = state.phase() - 1;  // latest completed
    if (p >= 0 && (p & 1) != (parity & 1)) --p;
    return p;
}

void BarrierSlot::reset_observations() {
    observed_by.reset();
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
            slot->observed_by.reset(s.launch.block);
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

BarrierSlot& BarrierSet::kernel_slot(int index, int64_t offset, const std::string& name, int threads) {
    while (static_cast<int>(slots_.size()) <= index) {
        auto slot = std::make_unique<BarrierSlot>();
        slot->observed_by.reset(threads);
        slot->smem_offset = -1;
        slots_.push_back(std::move(slot));
    }
    BarrierSlot& s = *slots_.at(static_cast<size_t>(index));
    if (s.smem_offset < 0) {
        s.smem_offset = offset;
        s.name = name;
        s.decl = name;
    }
    return s;
}

void BarrierSet::set_live(int i, bool live) {
    const std::pair<int64_t, int> entry{slots_.at(static_cast<size_t>(i))->smem_offset, i};
    auto it = std::lower_bound(live_.begin(), live_.end(), entry);
    const bool present = it != live_.end() && *it == entry;
    if (live && !present) live_.insert(it, entry);
    if (!live && present) live_.erase(it);
}

int BarrierSet::live_in_slow(int64_t first, int64_t last) const {
    // Barriers are 8-byte words at 8-aligned offsets: the one at o overlaps [first, last]
    // when first - 7 <= o <= last.
    auto it = std::lower_bound(live_.begin(), live_.end(), std::make_pair(first - 7, INT32_MIN));
    return it != live_.end() && it->first <= last ? it->second : -1;
}

void BarrierSet::notify_all() {
    for (auto& s : slots_) s->changed.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tmasim::model
