#pragma once
// `-o` must never replace one of the command's own inputs (a scenario overwritten by its
// trace, a trace by its export): the data would be lost without a word.
#include <string>
#include <vector>

namespace tmasim::cli {

// Throws std::invalid_argument when `output` names the same file as any of `inputs`,
// however it is spelt (./S.yaml, a symlink, a hard link: same device and inode).
void refuse_overwriting_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& option);

}  // namespace tmasim::cli
