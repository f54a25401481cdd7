#include "scenarios/suggest.h"

#include <algorithm>
#include <cctype>

namespace tmasim {

size_t edit_distance(const std::string& a, const std::string& b) {
    const auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    const size_t n = a.size(), m = b.size();
    // Three rows: the swap of two neighbours looks two rows back (optimal string alignment).
    std::vector<size_t> before(m + 1), prev(m + 1), cur(m + 1);
    for (size_t j = 0; j <= m; ++j) prev[j] = j;
    for (size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= m; ++j) {
            const bool same = lower(a[i - 1]) == lower(b[j - 1]);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        before.swap(prev);
        prev.swap(cur);
    }
    return prev[m];
}

std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& candidates,
                                       size_t limit) {
    if (word.empty() || limit == 0) return {};
    const size_t allowed = word.size() <= 4 ? 1 : std::min<size_t>(4, word.size() / 3);
    std::vector<std::pair<size_t, std::string>> near;
    for (const std::string& c : candidates) {
        const size_t d = edit_distance(word, c);
        if (d <= allowed && d > 0) near.emplace_back(d, c);
    }
    if (near.empty()) {
        // The right word in the wrong family: "tma.wait" is far from "mbarrier.wait", its
        // "wait" is not.
        const size_t dot = word.rfind('.');
        const std::string tail = dot == std::string::npos ? word : word.substr(dot + 1);
        for (const std::string& c : candidates) {
            const size_t cdot = c.rfind('.');
            const std::string ctail = cdot == std::string::npos ? c : c.substr(cdot + 1);
            const size_t d = edit_distance(tail, ctail);
            if (tail.size() >= 3 && d <= (tail.size() <= 4 ? 1 : 2)) near.emplace_back(1 + d, c);
        }
    }
    std::stable_sort(near.begin(), near.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    // The nearest only: a guess one edit away is not diluted by those two away.
    std::vector<std::string> out;
    for (const auto& [d, c] : near) {
        if (out.size() == limit || d > near.front().first) break;
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    }
    return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
    const std::vector<std::string> near = nearest_names(word, candidates);
    if (near.empty()) return "";
    std::string s = "did you mean ";
    for (size_t i = 0; i < near.size(); ++i)
        s += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i];
    return s + "?";
}

}  // namespace tmasim
