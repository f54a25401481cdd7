// Every citation resolves inside the repository: a document named in code, configs or
// scenarios exists in the tree, and each "semantics.md <section>" names a section of the
// project's own rule reference.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

namespace fs = std::filesystem;

namespace {
const fs::path kRoot = TMASIM_SOURCE_DIR;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool cites_scanned(const fs::path& p) {
    static const std::set<std::string> kinds = {".cpp", ".h", ".cu", ".cuh", ".yaml", ".py", ".sh", ".md"};
    return kinds.count(p.extension().string()) > 0;
}

// The repository's own files, outside build trees and recorded hardware traces (data).
std::vector<fs::path> repo_files() {
    std::vector<fs::path> files;
    for (const char* top : {"model", "device", "scenarios", "traces", "cli", "tests", "docs"}) {
        if (!fs::exists(kRoot / top)) continue;
        for (auto it = fs::recursive_directory_iterator(kRoot / top); it != fs::recursive_directory_iterator(); ++it) {
            if (it->is_directory() && it->path().filename() == "recorded") {
                it.disable_recursion_pending();
                continue;
            }
            if (it->is_regular_file() && cites_scanned(it->path())) files.push_back(it->path());
        }
    }
    files.push_back(kRoot / "README.md");
    return files;
}

std::set<std::string> markdown_names() {
    std::set<std::string> names;
    for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().filename().string();
        if (it->is_directory() && (name == ".git" || name.rfind("build", 0) == 0)) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file() && it->path().extension() == ".md") names.insert(name);
    }
    return names;
}

// Each markdown file name "<name>.md" cited in `text` (the name: letters, digits, '_' and
// '-'; no word character after). Scanned by hand: std::regex recurses once per character,
// and the malformed-input corpus's runs of tens of thousands overflowed the stack of the
// sanitizer build.
std::vector<std::string> cited_markdown(const std::string& text) {
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    std::vector<std::string> names;
    for (size_t dot = text.find(".md"); dot != std::string::npos; dot = text.find(".md", dot + 1)) {
        const size_t end = dot + 3;
        if (end < text.size() && word(text[end])) continue;
        size_t begin = dot;
        while (begin > 0 && (word(text[begin - 1]) || text[begin - 1] == '-')) --begin;
        if (begin < dot) names.push_back(text.substr(begin, end - begin));
    }
    return names;
}
}  // namespace

TEST_CASE("the citation scan finds each cited document, however long its name", "[docs]") {
    using names = std::vector<std::string>;
    CHECK(cited_markdown("see scenarios/FORMAT.md, then docs/semantics.md.") == names{"FORMAT.md", "semantics.md"});
    CHECK(cited_markdown("x.mdx .md a-b_c" ".md") == names{"a-b_c" ".md"});  // split: this file is scanned
    CHECK(cited_markdown(std::string(200000, 'a') + ".md") == names{std::string(200000, 'a') + ".md"});
}

TEST_CASE("every markdown document the repository cites is in the repository", "[docs]") {
    const std::set<std::string> present = markdown_names();
    std::set<std::string> missing;
    for (const fs::path& f : repo_files())
        for (const std::string& name : cited_markdown(slurp(f)))
            if (!present.count(name)) missing.insert(name + " in " + f.string());
    INFO([&] {
        std::string all;
        for (const auto& m : missing) all += m + "\n";
        return all;
    }());
    CHECK(missing.empty());
}

TEST_CASE("every semantics.md section cited exists in docs/semantics.md", "[docs]") {
    const std::string doc = slurp(kRoot / "docs/semantics.md");
    REQUIRE(!doc.empty());
    const std::regex cite(R"(semantics\.md ((?:[A-H][0-9]+(?:, )?)+))");
    const std::regex section(R"([A-H][0-9]+)");
    std::set<std::string> missing;
    size_t citations = 0;
    for (const fs::path& f : repo_files()) {
        const std::string text = slurp(f);
        for (std::sregex_iterator m(text.begin(), text.end(), cite), end; m != end; ++m) {
            const std::string ids = (*m)[1].str();
            for (std::sregex_iterator s(ids.begin(), ids.end(), section), e2; s != e2; ++s) {
                ++citations;
                if (doc.find("**" + s->str() + ". ") == std::string::npos) missing.insert(s->str() + " in " + f.string());
            }
        }
    }
    INFO(citations << " citations");
    CHECK(citations > 50);
    CHECK(missing.empty());
}

// A document's relative links ([text](path)) resolve from the document's folder: the README's
// measurements moved to docs/ pages it links, and a link that points nowhere is the first thing
// a newcomer clicks (issue 39). Fenced code blocks are skipped; URLs and #anchors are not paths.
TEST_CASE("every relative link in the repository's markdown resolves", "[docs]") {
    std::set<std::string> broken;
    size_t links = 0;
    for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator(); ++it) {
        const std::string name = it->path().filename().string();
        if (it->is_directory() && (name == ".git" || name.rfind("build", 0) == 0)) {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file() || it->path().extension() != ".md") continue;
        std::istringstream lines(slurp(it->path()));
        bool fenced = false;
        for (std::string line; std::getline(lines, line);) {
            if (line.rfind("```", 0) == 0) fenced = !fenced;
            if (fenced) continue;
            for (size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
                const size_t end = line.find(')', at + 2);
                if (end == std::string::npos) break;
                std::string target = line.substr(at + 2, end - at - 2);
                if (target.empty() || target[0] == '#' || target.find("://") != std::string::npos ||
                    target.find(' ') != std::string::npos)
                    continue;
                target = target.substr(0, target.find('#'));
                ++links;
                if (!fs::exists(it->path().parent_path() / target))
                    broken.insert(target + " in " + it->path().lexically_relative(kRoot).string());
            }
        }
    }
    INFO([&] {
        std::string all;
        for (const auto& b : broken) all += b + "\n";
        return all;
    }());
    CHECK(links > 20);
    CHECK(broken.empty());
}
