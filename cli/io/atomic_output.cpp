#include "cli/io/atomic_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/io/output_guard.h"

namespace tmasim::cli {
namespace fs = std::filesystem;

namespace atomic_output_detail {

std::string reason(int error) { return error != 0 ? std::string(": ") + std::strerror(error) : std::string(); }

// ".<name>.tmp-<pid>-<n>" beside the target: hidden, in the same folder (so the rename is
// one step on one file system), and never another process's (batch workers write at once).
std::string temp_name(const fs::path& target, unsigned n) {
    std::string base = target.filename().string();
    if (base.size() > 200) base.resize(200);  // the suffix must still fit a file name (255 bytes)
    const std::string name = "." + base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    return (target.parent_path() / name).string();
}

}  // namespace atomic_output_detail

using namespace atomic_output_detail;

AtomicOutput::AtomicOutput(const std::string& path) : path_(path) {
    if (path == "-") {
        to_stdout_ = true;
        return;
    }
    target_ = output_target(path);
    // A rename would replace a file the user may not write (chmod a-w to keep it), which
    // writing it in place refused.
    if (::access(target_.c_str(), F_OK) == 0 && ::access(target_.c_str(), W_OK) != 0)
        throw std::runtime_error("cannot write " + path + reason(errno));
    static unsigned counter = 0;
    for (int attempt = 0; attempt < 100 && temp_.empty(); ++attempt) {
        const std::string name = temp_name(target_, counter++);
        const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            throw std::runtime_error("cannot write " + path + ": cannot create a file beside it" + reason(errno));
        }
        // A file written again keeps its permissions, as writing it in place would.
        struct stat st {};
        if (::stat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)::fchmod(fd, st.st_mode & 07777);
        ::close(fd);
        temp_ = name;
    }
    if (temp_.empty()) throw std::runtime_error("cannot write " + path + ": no free temporary name beside it");
    file_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!file_) {
        const int error = errno;
        ::unlink(temp_.c_str());
        throw std::runtime_error("cannot write " + path + reason(error));
    }
}

AtomicOutput::~AtomicOutput() {
    if (to_stdout_ || committed_ || temp_.empty()) return;
    file_.close();
    ::unlink(temp_.c_str());
}

std::ostream& AtomicOutput::stream() { return to_stdout_ ? std::cout : file_; }

void AtomicOutput::commit() {
    if (to_stdout_) {
        check_stdout();
        committed_ = true;
        return;
    }
    errno = 0;
    file_.flush();
    file_.close();
    if (file_.fail()) throw std::runtime_error("cannot write " + path_ + reason(errno));
    if (::rename(temp_.c_str(), target_.c_str()) != 0)
        throw std::runtime_error("cannot write " + path_ + ": cannot move it into place" + reason(errno));
    committed_ = true;
}

void write_text_output(const std::string& path, const std::string& text) {
    AtomicOutput out(path);
    out.stream() << text;
    out.commit();
}

void write_trace_output(const RunResult& result, const std::string& path, const OpNames& names,
                        const TraceWriteOptions& options) {
    const std::string sidecar_path = sidecar_path_of(path);
    AtomicOutput trace(path);
    if (trace_wants_sidecar(result, options)) {
        AtomicOutput sidecar(sidecar_path);
        write_trace_with_sidecar(result, trace.stream(), &sidecar.stream(), fs::path(sidecar_path).filename().string(),
                                 names, options);
        sidecar.commit();
        trace.commit();
        return;
    }
    write_trace_with_sidecar(result, trace.stream(), nullptr, "", names, options);
    trace.commit();
    // A sidecar of an earlier trace at this path would mislead a reader.
    std::error_code ignored;
    fs::remove(sidecar_path, ignored);
}

void check_stdout() {
    errno = 0;
    std::cout.flush();
    const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (lost) throw std::runtime_error("cannot write standard output" + reason(errno));
}

}  // namespace tmasim::cli
