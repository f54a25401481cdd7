#pragma once
// "Did you mean": the allowed names nearest a misspelt one, for messages that refuse an
// unknown op, key or rule id. Shared by the loader and the cli (tmasim explain may call it).
#include <string>
#include <vector>

namespace tmasim {

// Edit distance (insertions, deletions, substitutions, and two neighbours swapped), ASCII
// case ignored.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidates nearest `word`, at most `limit` of them, all at the least distance found,
// among those within a distance that grows with the word (1 up to 4 characters, then a third
// of its length, at most 4); when none is that near, those whose part after the last '.' is
// near the word's ("tma.wait" -> mbarrier.wait). Empty when nothing is near: better no guess
// than a wrong one.
std::vector<std::string> nearest_names(const std::string& word, const std::vector<std::string>& candidates,
                                       size_t limit = 3);

// "did you mean tma.store?" or "did you mean tma.store or tma.load?"; empty without a guess.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace tmasim
