#include "cli/output_path.h"

#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>

namespace tmasim::cli {

namespace {

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    // An output that does not exist yet is no existing input; compare the spelt paths
    // anyway, so a missing input cannot be confused with it either.
    std::error_code ea, eb;
    const auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
    return !ea && !eb && ca == cb;
}

}  // namespace

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

void refuse_overwriting_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& option) {
    for (const std::string& input : inputs)
        if (same_file(output, input))
            throw std::invalid_argument(option + " " + output + " is the input " + input +
                                        "; allowed: an output file that is not one of the command's inputs");
}

}  // namespace tmasim::cli
