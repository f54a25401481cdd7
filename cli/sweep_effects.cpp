#include "cli/sweep_effects.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace tmasim::cli {
namespace {

struct Effect {
    size_t param = 0;
    double ratio = 1.0;
    size_t low = 0, high = 0;  // rows of the fewest and the most cycles
    bool found = false;
};

// The other parameters' values of a point, as one key.
std::string others_of(const SweepPoint& p, size_t except) {
    std::string key;
    for (size_t i = 0; i < p.values.size(); ++i)
        if (i != except) key += p.values[i] + '\x1f';
    return key;
}

std::string others_text(const Sweep& sweep, const SweepPoint& p, size_t except) {
    std::string s;
    for (size_t i = 0; i < sweep.params.size(); ++i)
        if (i != except && sweep.params[i].values.size() > 1)
            s += (s.empty() ? "" : " ") + sweep.params[i].name + "=" + p.values[i];
    return s;
}

Effect effect_of(const Sweep& sweep, const std::vector<BatchRow>& rows, size_t param) {
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].kernel_cycles > 0) groups[others_of(sweep.points[r], param)].push_back(r);
    Effect best;
    best.param = param;
    for (const auto& [key, members] : groups) {
        if (members.size() < 2) continue;
        const auto [lo, hi] = std::minmax_element(members.begin(), members.end(), [&](size_t a, size_t b) {
            return rows[a].kernel_cycles < rows[b].kernel_cycles;
        });
        const double ratio = static_cast<double>(rows[*hi].kernel_cycles) / static_cast<double>(rows[*lo].kernel_cycles);
        if (!best.found || ratio > best.ratio) best = {param, ratio, *lo, *hi, true};
    }
    return best;
}

}  // namespace

std::string sweep_time_effects(const Sweep& sweep, const std::vector<BatchRow>& rows) {
    if (rows.size() != sweep.points.size()) return "";
    std::vector<Effect> effects;
    for (size_t p = 0; p < sweep.params.size(); ++p)
        if (sweep.params[p].values.size() > 1) {
            const Effect e = effect_of(sweep, rows, p);
            if (e.found) effects.push_back(e);
        }
    if (effects.empty()) return "";
    std::stable_sort(effects.begin(), effects.end(), [](const Effect& a, const Effect& b) { return a.ratio > b.ratio; });
    size_t width = 0;
    for (const Effect& e : effects) width = std::max(width, sweep.params[e.param].name.size());
    std::string out = "what moved the time (kernel cycles between points that differ in one parameter):\n";
    for (const Effect& e : effects) {
        const std::string& name = sweep.params[e.param].name;
        const SweepPoint &lo = sweep.points[e.low], &hi = sweep.points[e.high];
        if (rows[e.high].kernel_cycles == rows[e.low].kernel_cycles) {
            out += fmt::format("  {:<{}}  x1.00  no change\n", name, width);
            continue;
        }
        const std::string at = others_text(sweep, lo, e.param);
        out += fmt::format("  {:<{}}  x{:.2f}  {} cycles at {}={} to {} at {}={}{}\n", name, width, e.ratio,
                           rows[e.low].kernel_cycles, name, lo.values[e.param], rows[e.high].kernel_cycles, name,
                           hi.values[e.param], at.empty() ? "" : " (" + at + ")");
    }
    return out;
}

}  // namespace tmasim::cli
