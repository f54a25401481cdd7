#include "cli/output_path.h"

#include <filesystem>
#include <stdexcept>

namespace tmasim::cli {

void require_output_folder(const std::string& path, const std::string& option) {
    if (path.empty()) return;
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    if (folder.empty()) return;  // the working directory
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) return;
    const bool exists = std::filesystem::exists(folder, ec);
    throw std::invalid_argument(option + " " + path + ": " + folder.string() +
                                (exists ? " is not a folder" : " does not exist; create it first"));
}

}  // namespace tmasim::cli
