#include "capture/ptx_locator.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace tmasim::capture {

namespace fs = std::filesystem;

namespace {

std::string ptx_file_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string find_cuobjdump(const std::string& given) {
    if (!given.empty()) return given;
    const char* root = std::getenv("CUDA_ROOT");
    const fs::path in_root = fs::path(root ? root : "/usr/local/cuda") / "bin" / "cuobjdump";
    if (fs::exists(in_root)) return in_root.string();
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string d; std::getline(dirs, d, ':');)
            if (!d.empty() && fs::exists(fs::path(d) / "cuobjdump")) return (fs::path(d) / "cuobjdump").string();
    }
    return "";
}

// Runs `argv` in `cwd` with its output discarded; its exit status.
int run_in(const std::vector<std::string>& argv, const fs::path& cwd) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const fs::path here = fs::current_path();
    fs::current_path(cwd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    fs::current_path(here);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool ptx_declares_entry(const std::string& ptx, const std::string& entry) {
    const std::string key = ".entry " + entry;
    for (size_t at = ptx.find(key); at != std::string::npos; at = ptx.find(key, at + 1)) {
        const size_t end = at + key.size();
        if (end < ptx.size() && (ptx[end] == '(' || ptx[end] == '\n' || ptx[end] == ' ' || ptx[end] == '\r')) return true;
    }
    return false;
}

PtxLocator::PtxLocator(std::string raw, std::string cuobjdump) : raw_(std::move(raw)), cuobjdump_(std::move(cuobjdump)) {}

void PtxLocator::extract(const std::string& file) {
    if (std::find(extracted_from_.begin(), extracted_from_.end(), file) != extracted_from_.end()) return;
    extracted_from_.push_back(file);
    const std::string tool = find_cuobjdump(cuobjdump_);
    if (tool.empty())
        throw std::runtime_error("the kernel's PTX is inside a fatbin, and no cuobjdump was found to extract it "
                                 "(CUDA_ROOT/bin or the PATH; it comes with the CUDA toolkit)");
    const fs::path out = fs::path(raw_) / "extracted" / std::to_string(extractions_++);
    fs::create_directories(out);
    run_in({tool, "-xptx", "all", fs::absolute(file).string()}, out);
}

std::string PtxLocator::find(const std::string& entry) {
    std::vector<fs::path> found;
    auto search = [&](const fs::path& dir) {
        if (!fs::is_directory(dir)) return;
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".ptx" && ptx_declares_entry(ptx_file_text(e.path()), entry))
                found.push_back(e.path());
    };
    auto pick = [&]() -> std::string {
        std::sort(found.begin(), found.end());
        for (const auto& p : found) {
            const std::string text = ptx_file_text(p);
            if (text.find(".target sm_90a") != std::string::npos || text.find(".target sm_100a") != std::string::npos)
                return p.string();
        }
        return found.empty() ? "" : found.front().string();
    };
    search(fs::path(raw_) / "ptx");
    search(fs::path(raw_) / "extracted");
    if (!found.empty()) return pick();
    // Fatbins the program loaded, then the mapped files that hold the entry's name.
    std::vector<std::string> places;
    if (fs::is_directory(fs::path(raw_) / "fatbin"))
        for (const auto& e : fs::directory_iterator(fs::path(raw_) / "fatbin")) places.push_back(e.path().string());
    std::sort(places.begin(), places.end());
    std::ifstream images(fs::path(raw_) / "images.txt");
    for (std::string line; std::getline(images, line);)
        if (fs::is_regular_file(line) && ptx_file_text(line).find(entry) != std::string::npos) places.push_back(line);
    for (const auto& p : places) {
        extract(p);
        search(fs::path(raw_) / "extracted");
        if (!found.empty()) return pick();
    }
    throw std::runtime_error("no PTX declares .entry " + entry + ": looked in " + raw_ + "/ptx (JIT-loaded PTX), " +
                             std::to_string(places.size()) + " fatbin(s) and mapped files holding its name (cuobjdump -xptx); "
                             "a kernel built without PTX (-gencode ...,code=sm_90a only, or a cubin) cannot be replayed");
}

}  // namespace tmasim::capture
