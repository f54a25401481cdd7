#pragma once
// The one rule for what a command writes: no output may be a file the command reads. Every
// command names the files it reads (its inputs, a trace's sidecars, the scenario a trace
// names, the references of --diff-against, a sweep's template) and the files it will write,
// then calls check() before it writes anything. An output is refused when it is an input
// however it is spelt (./x, a symlink to it, a hard link: the same device and inode), when it
// is another output of the same command, when its folder is missing, and when it is a FIFO,
// a device, a socket or a folder (a FIFO would block the write for ever, a device would take
// or lose the bytes): `-` means standard output where the command offers it.
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace tmasim::cli {

class OutputGuard {
public:
    // A file the command reads; `what` says which in a refusal ("the scenario", "a sidecar
    // of the trace"). A missing file is kept too: its path may still not be an output.
    void input(const std::string& path, const std::string& what);
    // A folder the command reads: every regular file under it is an input, and the folder
    // itself may not be an output folder (`run in -o ref --diff-against ref`).
    void input_folder(const std::string& dir, const std::string& what);
    // How an output's path is taken: a file whose folder must exist; the same, or "-" for
    // standard output; a file in a folder the command creates (a batch's DIR/guide/x.jsonl).
    enum class Kind { file, file_or_stdout, file_in_new_folder };
    // A file the command will write, named by `option` in a refusal ("--output"). "-" is
    // refused as a file name where it does not mean standard output.
    void output(const std::string& path, const std::string& option, Kind kind = Kind::file);
    // A folder the command writes files into (each file also given to output()).
    void output_folder(const std::string& dir, const std::string& option);

    // Throws std::invalid_argument (exit 2) for the first output refused, naming its option,
    // the output and, where it is one, the input it would destroy.
    void check() const;

private:
    struct Input {
        std::string path, what;
    };
    struct Output {
        std::string path, option;
        Kind kind = Kind::file;
    };
    std::vector<Input> inputs_, input_folders_;
    std::vector<Output> outputs_, output_folders_;
};

// The files behind a command's arguments, for the guard: what a scenario brings in with it,
// what a trace does, and the files a trace output is.

// The scenario file and, for a kernel scenario that loads, its .cu or .ptx and, for a .cu,
// every header beside it (.cuh, .h: NVRTC includes them from that folder, and their text keys
// the compile cache, ptx/cuda_source.cpp). A scenario that does not load brings only itself:
// the command will fail on it before writing anything.
void add_scenario_inputs(OutputGuard& guard, const std::string& scenario_file, const std::string& what);

// The model arch config a model run reads: `arch` (--arch NAME) in the arch folder, or with no
// --arch every config there (each scenario picks its default, h100-sxm or b200).
void add_arch_inputs(OutputGuard& guard, const std::string& arch);

// A trace that was read: the file, every sidecar its memory lines read, and the scenario its
// header names (relative to the working directory, as report and export read it) with that
// scenario's kernel source.
void add_trace_inputs(OutputGuard& guard, const std::string& trace_path, const TraceFile& trace);

// A trace the command will write, and its sidecar beside it (written or removed).
void add_trace_output(OutputGuard& guard, const std::string& path, const std::string& option,
                      OutputGuard::Kind kind = OutputGuard::Kind::file);

// The output a command writes when it is given none: beside `input`, its name with
// `extension` in place of a ".jsonl" (t.jsonl -> t.html), else with it added. The caller
// still hands it to the guard, which refuses it where it is an input.
std::string output_beside(const std::string& input, const std::string& extension);

// The path a write to `path` lands on: the file a symlink names (so the write replaces that
// file, as writing through the link would, and not the link), else `path` itself.
std::string output_target(const std::string& path);

}  // namespace tmasim::cli
