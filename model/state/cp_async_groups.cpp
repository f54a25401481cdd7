#include "model/state/cp_async_groups.h"

#include <algorithm>

namespace tmasim::model {

CpAsyncGroups::CpAsyncGroups(int num_threads) : lists_(num_threads) {}

int CpAsyncGroups::add_copy(int thread) {
    copies_.push_back(Copy{thread, 0});
    const int token = static_cast<int>(copies_.size()) - 1;
    lists_.add(thread, token);
    return token;
}

void CpAsyncGroups::commit(int thread) { lists_.commit(thread); }

void CpAsyncGroups::mark_landed(int token, uint32_t agent_time) { copies_.at(token).landed = agent_time; }

bool CpAsyncGroups::group_landed(const std::vector<int>& g) const {
    for (int token : g)
        if (copies_[token].landed == 0) return false;
    return true;
}

bool CpAsyncGroups::wait_satisfied(int thread, int64_t n) const {
    const auto& gs = lists_.groups(thread);
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    for (int64_t i = 0; i < older; ++i)
        if (!group_landed(gs[i])) return false;
    return true;
}

uint32_t CpAsyncGroups::covered_time(int thread, int64_t n) const {
    const auto& gs = lists_.groups(thread);
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    uint32_t latest = 0;
    for (int64_t i = 0; i < older; ++i)
        for (int token : gs[i]) latest = std::max(latest, copies_[token].landed);
    return latest;
}

std::vector<int> CpAsyncGroups::covered_tokens(int thread, int64_t n) const {
    const auto& gs = lists_.groups(thread);
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    std::vector<int> out;
    for (int64_t i = 0; i < older; ++i) out.insert(out.end(), gs[i].begin(), gs[i].end());
    return out;
}

std::vector<int> CpAsyncGroups::outstanding(int thread) const {
    std::vector<int> out;
    for (int token : lists_.uncommitted(thread))
        if (copies_[token].landed == 0) out.push_back(token);
    for (const auto& g : lists_.groups(thread))
        for (int token : g)
            if (copies_[token].landed == 0) out.push_back(token);
    std::sort(out.begin(), out.end());
    return out;
}

int CpAsyncGroups::pending_groups(int thread) const {
    int n = 0;
    for (const auto& g : lists_.groups(thread))
        if (!group_landed(g)) ++n;
    return n;
}

}  // namespace tmasim::model
