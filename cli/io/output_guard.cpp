#include "cli/io/output_guard.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "traces/trace_writer.h"

namespace tmasim::cli {
namespace fs = std::filesystem;

// Named, not anonymous: the unity build puts this file beside others with helpers of their own.
namespace output_guard_detail {

// A path as the check compares it: its file's identity where it exists, and its canonical
// spelling (symlinks in its folders resolved, "." and ".." gone) either way.
struct Resolved {
    bool exists = false, is_symlink = false;
    std::pair<dev_t, ino_t> id{};
    mode_t mode = 0;
    std::string canonical;
};

Resolved resolve(const std::string& path) {
    Resolved r;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        r.exists = true;
        r.id = {st.st_dev, st.st_ino};
        r.mode = st.st_mode;
    }
    struct stat lst {};
    r.is_symlink = ::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode);
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(path, ec);
    r.canonical = ec ? fs::path(path).lexically_normal().string() : p.string();
    return r;
}

// Every path of a list, looked up by identity and by spelling: a batch compares hundreds of
// outputs with hundreds of inputs, and each path is resolved once.
class PathIndex {
public:
    void add(const std::string& path, size_t index) {
        const Resolved r = resolve(path);
        if (r.exists) by_id_.emplace(r.id, index);
        by_path_.emplace(r.canonical, index);
    }
    // The first path that `r` is, and how: "" (the same path), a symlink or a hard link.
    const size_t* find(const Resolved& r, std::string& how) const {
        if (r.exists)
            if (auto it = by_id_.find(r.id); it != by_id_.end()) {
                const bool spelt_alike = by_path_.count(r.canonical) != 0;
                how = r.is_symlink ? ", through a symlink" : spelt_alike ? "" : ", through a hard link";
                return &it->second;
            }
        how.clear();
        // A path that does not exist (yet) can only meet another by its spelling.
        const auto it = by_path_.find(r.canonical);
        return it == by_path_.end() ? nullptr : &it->second;
    }

private:
    std::map<std::pair<dev_t, ino_t>, size_t> by_id_;
    std::map<std::string, size_t> by_path_;
};

// What a path that is not a regular file is, for the refusal.
std::string kind_of(mode_t mode) {
    if (S_ISREG(mode)) return "a file";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

void require_folder_of(const std::string& path, const std::string& option) {
    const fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) return;  // the working directory
    std::error_code ec;
    if (fs::is_directory(folder, ec)) return;
    const bool exists = fs::exists(folder, ec);
    throw std::invalid_argument(option + " " + path + ": " + folder.string() +
                                (exists ? " is not a folder" : " does not exist; create it first"));
}

}  // namespace output_guard_detail

using namespace output_guard_detail;

void OutputGuard::input(const std::string& path, const std::string& what) {
    if (!path.empty()) inputs_.push_back({path, what});
}

void OutputGuard::input_folder(const std::string& dir, const std::string& what) {
    if (dir.empty()) return;
    input_folders_.push_back({dir, what});
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec)) inputs_.push_back({it->path().string(), what});
}

void OutputGuard::output(const std::string& path, const std::string& option, Kind kind) {
    if (!path.empty()) outputs_.push_back({path, option, kind});
}

void OutputGuard::output_folder(const std::string& dir, const std::string& option) {
    if (!dir.empty()) output_folders_.push_back({dir, option, Kind::file});
}

void OutputGuard::check() const {
    std::string how;
    PathIndex folders;
    for (size_t i = 0; i < input_folders_.size(); ++i) folders.add(input_folders_[i].path, i);
    for (const Output& d : output_folders_) {
        const Resolved r = resolve(d.path);
        if (r.exists && !S_ISDIR(r.mode))
            throw std::invalid_argument(d.option + " " + d.path + " is " + kind_of(r.mode) +
                                        "; allowed: a folder (or a path to create one at)");
        if (const size_t* i = folders.find(r, how)) {
            const Input& in = input_folders_[*i];
            throw std::invalid_argument(d.option + " " + d.path + " is the folder " + in.path + " (" + in.what + ")" +
                                        how + "; writing into it would replace what the command reads; allowed: "
                                        "another folder");
        }
    }
    PathIndex inputs, earlier;
    for (size_t i = 0; i < inputs_.size(); ++i) inputs.add(inputs_[i].path, i);
    for (size_t i = 0; i < outputs_.size(); ++i) {
        const Output& o = outputs_[i];
        const bool stdout_ok = o.kind == Kind::file_or_stdout;
        if (o.path == "-") {
            if (stdout_ok) continue;
            throw std::invalid_argument(o.option + " -: this option does not write to standard output; allowed: "
                                                   "a file name");
        }
        if (o.kind != Kind::file_in_new_folder) require_folder_of(o.path, o.option);
        const Resolved r = resolve(o.path);
        if (r.exists && !S_ISREG(r.mode))
            throw std::invalid_argument(o.option + " " + o.path + " is " + kind_of(r.mode) +
                                        "; allowed: a regular file" +
                                        (stdout_ok ? std::string(", or - for standard output") : ""));
        if (const size_t* k = inputs.find(r, how)) {
            const Input& in = inputs_[*k];
            throw std::invalid_argument(o.option + " " + o.path + " is the input " + in.path + " (" + in.what + ")" +
                                        how + "; writing it would destroy that input; allowed: an output that is "
                                        "none of the files the command reads");
        }
        if (const size_t* k = earlier.find(r, how)) {
            const Output& other = outputs_[*k];
            throw std::invalid_argument(o.option + " " + o.path + " is also the output " + other.path + " (" +
                                        other.option + ")" + how + "; allowed: a file of its own for each output");
        }
        earlier.add(o.path, i);
    }
}

void add_scenario_inputs(OutputGuard& guard, const std::string& scenario_file, const std::string& what) {
    guard.input(scenario_file, what);
    // Only a file that can be a kernel scenario is loaded here: a batch names hundreds of
    // scenarios, and each is loaded again when it runs. A file too large to load is the
    // command's error to report.
    struct stat st {};
    if (::stat(scenario_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_size) > kMaxScenarioBytes)
        return;
    std::ifstream in(scenario_file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("kernel") == std::string::npos) return;
    try {
        const Scenario s = load_scenario_file(scenario_file);
        if (!s.is_kernel()) return;
        const std::string source = s.kernel->resolved_source(scenario_file);
        guard.input(source, "the kernel source of " + scenario_file);
        if (fs::path(source).extension() != ".cu") return;
        std::error_code ec;
        const fs::path folder = fs::path(source).parent_path().empty() ? fs::path(".") : fs::path(source).parent_path();
        for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            const std::string ext = it->path().extension().string();
            if ((ext == ".cuh" || ext == ".h") && it->is_regular_file(ec))
                guard.input(it->path().string(), "a header beside the kernel source " + source);
        }
    } catch (const std::exception&) {
        // Not loading is the command's own error to report, with its file:line:col.
    }
}

void add_arch_inputs(OutputGuard& guard, const std::string& arch) {
    const std::string dir = model::default_arch_dir();
    if (!arch.empty()) {
        guard.input((fs::path(dir) / (arch + ".yaml")).string(), "the --arch config " + arch);
        return;
    }
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".yaml" && it->is_regular_file(ec))
            guard.input(it->path().string(), "a model arch config");
}

void add_trace_inputs(OutputGuard& guard, const std::string& trace_path, const TraceFile& trace) {
    guard.input(trace_path, "the trace");
    for (const std::string& sidecar : trace.sidecars) guard.input(sidecar, "a sidecar of the trace " + trace_path);
    const std::string& scenario = trace.result.provenance.scenario_file;
    if (!scenario.empty()) add_scenario_inputs(guard, scenario, "the scenario the trace " + trace_path + " names");
}

void add_trace_output(OutputGuard& guard, const std::string& path, const std::string& option,
                      OutputGuard::Kind kind) {
    guard.output(path, option, kind);
    guard.output(sidecar_path_of(path), option + " (its sidecar)", kind);
}

std::string output_beside(const std::string& input, const std::string& extension) {
    fs::path p(input);
    if (p.extension() == ".jsonl") return p.replace_extension(extension).string();
    return input + extension;
}

std::string output_target(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const fs::path target = fs::canonical(path, ec);
    return ec ? path : target.string();
}

}  // namespace tmasim::cli
