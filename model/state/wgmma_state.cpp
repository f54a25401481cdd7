#include "model/state/wgmma_state.h"

#include <algorithm>
#include <stdexcept>

namespace tmasim::model {

WgmmaState::WgmmaState(const std::vector<AccumulatorDecl>& accumulators) : warps_(kWarps) {
    for (const AccumulatorDecl& a : accumulators) {
        n_of_[a.name] = a.n;
        // Registers never written read as 0 in the model; on the GPU they hold garbage.
        for (Warp& w : warps_) w.registers[a.name].assign(static_cast<size_t>(kRowsPerWarp) * a.n, 0.0f);
    }
}

int WgmmaState::accumulator_n(const std::string& acc) const {
    auto it = n_of_.find(acc);
    if (it == n_of_.end()) throw std::out_of_range("model: unknown accumulator '" + acc + "'");
    return it->second;
}

void WgmmaState::fence(int warp) {
    Warp& w = warps_.at(warp);
    w.fenced = true;
    w.access_since_fence.clear();
}

std::optional<WgmmaFenceGap> WgmmaState::fence_gap(int warp, const std::string& acc) const {
    const Warp& w = warps_.at(warp);
    if (!w.fenced) return WgmmaFenceGap{true, -1};
    auto it = w.access_since_fence.find(acc);
    if (it == w.access_since_fence.end()) return std::nullopt;
    return WgmmaFenceGap{false, it->second};
}

void WgmmaState::register_access(int warp, const std::string& acc, int op) {
    accumulator_n(acc);
    warps_.at(warp).access_since_fence[acc] = op;
}

const std::vector<float>& WgmmaState::newest_result(const Warp& w, const std::string& acc) const {
    for (auto it = w.open.rbegin(); it != w.open.rend(); ++it)
        if (it->acc == acc) return it->result;
    for (auto g = w.groups.rbegin(); g != w.groups.rend(); ++g)
        for (auto it = g->rbegin(); it != g->rend(); ++it)
            if (it->acc == acc) return it->result;
    return w.registers.at(acc);
}

const std::vector<float>& WgmmaState::chain_value(int warp, const std::string& acc) const {
    accumulator_n(acc);
    return newest_result(warps_.at(warp), acc);
}

int64_t WgmmaState::issue(int warp, WgmmaMma mma) {
    const size_t want = static_cast<size_t>(kRowsPerWarp) * accumulator_n(mma.acc);
    if (mma.result.size() != want) throw std::logic_error("model: wgmma result of the wrong size");
    Warp& w = warps_.at(warp);
    mma.seq = w.issued++;
    w.open.push_back(std::move(mma));
    return w.open.back().seq;
}

void WgmmaState::commit(int warp) {
    Warp& w = warps_.at(warp);
    // An empty group is legal (PTX 9.7.15.7.2) and completes at once.
    w.groups.push_back(std::move(w.open));
    w.open.clear();
}

int64_t WgmmaState::wait(int warp, int n, int64_t now) {
    Warp& w = warps_.at(warp);
    int64_t done = now;
    while (w.groups.size() > static_cast<size_t>(std::max(n, 0))) {
        for (WgmmaMma& m : w.groups.front()) {
            done = std::max(done, m.complete_at);
            w.retired_end = std::max(w.retired_end, m.seq + 1);
            w.registers.at(m.acc) = std::move(m.result);
        }
        w.groups.pop_front();
    }
    return done;
}

const WgmmaMma* WgmmaState::pending_writer(int warp, const std::string& acc) const {
    const Warp& w = warps_.at(warp);
    for (const auto& g : w.groups)
        for (const WgmmaMma& m : g)
            if (m.acc == acc) return &m;
    for (const WgmmaMma& m : w.open)
        if (m.acc == acc) return &m;
    return nullptr;
}

std::vector<float>& WgmmaState::registers(int warp, const std::string& acc) {
    accumulator_n(acc);
    return warps_.at(warp).registers.at(acc);
}

}  // namespace tmasim::model
