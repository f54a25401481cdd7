#include "cli/doc_paths.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

namespace tmasim::cli {
namespace fs = std::filesystem;

std::string installed_doc_dir() {
    // As model/run/arch_locate.cpp finds the arch configs: relative to the binary itself.
    static const std::string dir = [] {
        std::error_code ec;
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        if (ec) return std::string();
        const fs::path docs = exe.parent_path().parent_path() / "share" / "doc" / "tmasim";
        return fs::is_directory(docs, ec) ? docs.string() : std::string();
    }();
    return dir;
}

namespace doc_paths_detail {

// The installed documents by file name, for a citation that gives the name alone
// ("semantics.md A3", as the rule table's references do); a name two documents share
// (FORMAT.md) is left out: it says no more than the citation did.
const std::map<std::string, std::string>& installed_by_name(const std::string& docs) {
    static const std::map<std::string, std::string> names = [&docs] {
        std::map<std::string, std::string> found;
        std::set<std::string> shared;
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(docs, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec)) {
            if (!it->is_regular_file(ec) || it->path().extension() != ".md") continue;
            const std::string name = it->path().filename().string();
            if (!found.emplace(name, it->path().string()).second) shared.insert(name);
        }
        for (const std::string& name : shared) found.erase(name);
        return found;
    }();
    return names;
}

}  // namespace doc_paths_detail

std::string cite_docs(const std::string& text) {
    const std::string docs = installed_doc_dir();
    if (docs.empty()) return text;
    // Scanned by hand, not with std::regex: its recursion per character overflows the stack
    // on long user text (tests/cli/test_citations.cpp says the same of its own scan).
    auto path_char = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/';
    };
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::string out;
    size_t copied = 0;
    for (size_t dot = text.find(".md"); dot != std::string::npos; dot = text.find(".md", dot + 1)) {
        const size_t end = dot + 3;
        if (end < text.size() && word(text[end])) continue;
        size_t begin = dot;
        while (begin > copied && path_char(text[begin - 1])) --begin;
        const std::string path = text.substr(begin, end - begin);
        // Repository paths ("docs/kernels.md") and bare names of one document ("semantics.md"); not
        // an absolute path or a URL's tail.
        if (path.empty() || path[0] == '/' || path[0] == '.') continue;
        std::string installed;
        if (path.find('/') == std::string::npos) {
            const auto& names = doc_paths_detail::installed_by_name(docs);
            const auto it = names.find(path);
            if (it == names.end()) continue;
            installed = it->second;
        } else {
            std::error_code ec;
            installed = (fs::path(docs) / path).string();
            if (!fs::is_regular_file(installed, ec)) continue;
        }
        out += text.substr(copied, begin - copied) + installed;
        copied = end;
    }
    return out + text.substr(copied);
}

std::optional<std::string> read_doc(const std::string& repo_path, std::string& where) {
    const std::string docs = installed_doc_dir();
    where = (fs::path(docs.empty() ? TMASIM_DOC_SOURCE_DIR : docs) / repo_path).string();
    std::ifstream in(where, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace tmasim::cli
