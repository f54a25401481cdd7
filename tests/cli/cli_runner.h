#pragma once
// Runs the real tmasim binary (TMASIM_BINARY) from the repository root and captures its exit
// code, stdout and stderr, so the CLI tests check exactly what a user sees.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace tmasim_test {

struct CliResult {
    int code = -1;
    std::string out, err;
};

// A per-process scratch directory, so parallel ctest runs do not share files; removed
// when the test process exits.
inline const std::string& scratch_dir() {
    struct Dir {
        std::string path;
        Dir() {
            std::string tmpl = "/tmp/tmasim-cli-test-XXXXXX";
            if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
            path = tmpl;
        }
        ~Dir() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    };
    static const Dir dir;
    return dir.path;
}

inline std::string scratch(const std::string& name) { return scratch_dir() + "/" + name; }

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// `args` is passed to the shell as is; callers quote what needs quoting.
inline CliResult run_cli(const std::string& args) {
    std::string out = scratch("stdout.txt"), err = scratch("stderr.txt");
    std::string cmd = std::string("cd '") + TMASIM_SOURCE_DIR + "' && '" + TMASIM_BINARY + "' " + args + " >'" +
                      out + "' 2>'" + err + "'";
    int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

inline std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace tmasim_test
