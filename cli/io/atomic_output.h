#pragma once
// How the CLI writes a file: into a temporary file beside it, renamed onto the path only
// when every byte was written. A write that fails half-way (a full disk) or a command that
// fails after opening its output leaves the old file as it was, never a truncated one, and
// a reader never sees half a file. "-" is standard output. A failed write is an error
// (exit 2), never a silent exit 0.
#include <fstream>
#include <ostream>
#include <string>

#include "traces/trace_writer.h"

namespace tmasim::cli {

class AtomicOutput {
public:
    // Creates the temporary file (or takes standard output for "-"). The caller has run
    // OutputGuard::check() on `path`. Throws std::runtime_error when it cannot be created.
    explicit AtomicOutput(const std::string& path);
    ~AtomicOutput();  // removes the temporary file unless commit() ran
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    std::ostream& stream();
    // Flushes, checks that every write succeeded and renames the file into place. Throws
    // std::runtime_error naming the path (and the system's reason) when a write failed.
    void commit();

private:
    std::string path_;    // as given, for messages
    std::string target_;  // where the file lands (a symlink's target)
    std::string temp_;
    std::ofstream file_;
    bool to_stdout_ = false, committed_ = false;
};

// `text` to `path` through an AtomicOutput.
void write_text_output(const std::string& path, const std::string& text);

// A trace and, where its images need one, its sidecar (traces/trace_writer.h), each written
// atomically; the sidecar first, so a trace in place never names a sidecar that is not. A
// stale sidecar of an earlier trace at the same path is removed.
void write_trace_output(const RunResult& result, const std::string& path, const OpNames& names = {},
                        const TraceWriteOptions& options = {});

// Flushes standard output and throws std::runtime_error when anything written to it was
// lost (`> /dev/full`, a closed pipe): main() turns that into exit 2.
void check_stdout();

}  // namespace tmasim::cli
