#pragma once
// Checks on an output path made before any work, so a run's or an export's result is never
// lost and never replaces what the command read.
#include <string>
#include <vector>

namespace tmasim::cli {

// Throws std::invalid_argument ("--output x/y.jsonl: folder x does not exist; create it
// first") when the file's folder is missing or is not a folder.
void require_output_folder(const std::string& path, const std::string& option = "--output");

// Throws std::invalid_argument when `output` names the same file as any of `inputs`,
// however it is spelt (./S.yaml, a symlink, a hard link: same device and inode).
void refuse_overwriting_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& option);

}  // namespace tmasim::cli
