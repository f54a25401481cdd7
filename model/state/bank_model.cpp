#include "model/state/bank_model.h"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

namespace tmasim::model {

int BankModel::lanes_per_phase(int width) {
    if (width <= 4) return 32;
    if (width == 8) return 16;
    if (width == 16) return 8;
    throw std::invalid_argument("BankModel: access width must be 1, 2, 4, 8 or 16 bytes");
}

BankCost BankModel::cost(const std::vector<LaneAccess>& lanes, int width) {
    const int per_phase = lanes_per_phase(width);
    const int phases = 32 / per_phase;
    BankCost total;
    for (int phase = 0; phase < phases; ++phase) {
        // Distinct words each bank must deliver in this phase.
        std::array<std::set<int64_t>, kBanks> words;
        bool active = false;
        for (const LaneAccess& a : lanes) {
            if (a.lane / per_phase != phase) continue;
            active = true;
            // A wide access covers consecutive words (an aligned 8/16-byte access never
            // straddles a wavefront); a narrow one sits inside one word.
            const int64_t first = a.address / kBankBytes;
            const int64_t last = (a.address + width - 1) / kBankBytes;
            for (int64_t w = first; w <= last; ++w) words[w % kBanks].insert(w);
        }
        if (!active) continue;
        int64_t ways = 1;
        for (const auto& bank : words) ways = std::max<int64_t>(ways, bank.size());
        total.wavefronts += ways;
        total.ideal_wavefronts += 1;
        total.conflict_ways = std::max(total.conflict_ways, ways);
    }
    return total;
}

}  // namespace tmasim::model
