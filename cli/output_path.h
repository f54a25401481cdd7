#pragma once
// Checked before any work: an output file whose folder does not exist would otherwise fail
// only after a run (or an export) had been done, and its result would be lost.
#include <string>

namespace tmasim::cli {

// Throws std::invalid_argument ("--output x/y.jsonl: folder x does not exist; create it
// first") when the file's folder is missing or is not a folder.
void require_output_folder(const std::string& path, const std::string& option = "--output");

}  // namespace tmasim::cli
