// tmasim codegen FILE: the CUDA C++ (inline PTX) the device backend would run, and
// optionally an NVRTC compile of it for a target. Needs no GPU: a kernel engineer can read
// exactly what runs, and CI compiles every catalog kernel this way. --cubin keeps the compiled
// kernel, for a disassembler (cuobjdump -sass) where the toolkit has one.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "device/emit/codegen.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/run/run_device.h"
#include "scenarios/loader.h"

namespace tmasim::cli {

namespace {

struct CodegenArgs {
    std::string file;
    std::string output;
    std::string target;
    std::string cubin;
    std::string trace = "all";
    std::string trace_words = "global";
    std::string shared_dump = "auto";
    bool quiet = false;
};

int run_codegen(const CodegenArgs& a) {
    OutputGuard guard;
    add_scenario_inputs(guard, a.file, "the scenario");
    guard.output(a.output, "--output", OutputGuard::Kind::file_or_stdout);
    guard.output(a.cubin, "--cubin");
    guard.check();
    Scenario s = load_scenario_file(a.file);
    const device::TraceWordsIn words_in =
        a.trace_words == "shared" ? device::TraceWordsIn::shared : device::TraceWordsIn::global;
    const TraceLevel level = *parse_trace_level(a.trace);
    const std::string source = device::generate_kernel_source(
        s, level, words_in, shared_dump_for(a.shared_dump, level) ? device::SharedDump::copy_out : device::SharedDump::skip);
    if (!a.output.empty()) {
        write_text_output(a.output, source);
    } else if (!a.quiet) {
        std::cout << source;
    }
    if (a.target.empty()) return kOk;
    const device::CompileResult r = device::compile_cuda(source, a.target, "-");
    if (!r.ok) {
        std::cerr << a.file << ": NVRTC failed for " << a.target << ":\n" << r.log << '\n';
        return kMismatch;
    }
    std::cerr << a.file << ": compiled for " << a.target << " (" << r.cubin.size() << " bytes of cubin, NVRTC "
              << device::nvrtc_version() << ")\n";
    if (!a.cubin.empty()) write_text_output(a.cubin, std::string(r.cubin.begin(), r.cubin.end()));
    return kOk;
}

}  // namespace

void add_codegen_command(CLI::App& app, Action& action) {
    auto args = std::make_shared<CodegenArgs>();
    CLI::App* sub = app.add_subcommand("codegen", "Print the CUDA kernel the device backend generates for a scenario");
    sub->add_option("file", args->file, "Scenario YAML file")->required()->check(CLI::ExistingFile);
    sub->add_option("-o,--output", args->output, "Write the source to this file instead of standard output (-: standard output)");
    sub->add_option("--compile", args->target, "Also compile it with NVRTC for this target (no GPU needed)")
        ->check(CLI::IsMember({"sm_90a", "sm_100a"}));
    sub->add_option("--cubin", args->cubin, "With --compile: write the compiled kernel (a cubin) to this file")
        ->needs("--compile");
    sub->add_option("--trace", args->trace, "The trace level the kernel is generated for (see `tmasim run --trace`)")
        ->check(CLI::IsMember({"all", "waits", "none"}))
        ->capture_default_str();
    sub->add_option("--trace-words", args->trace_words,
                    "Where the timed ops keep their clock words: global, or shared (what a device run uses where "
                    "they fit after the scenario's buffers)")
        ->check(CLI::IsMember({"global", "shared"}))
        ->capture_default_str();
    sub->add_option("--shared-dump", args->shared_dump,
                    "Whether the kernel copies its final shared buffers out (see `tmasim run --shared-dump`)")
        ->check(CLI::IsMember({"auto", "on", "off"}))
        ->capture_default_str();
    sub->add_flag("-q,--quiet", args->quiet, "Do not print the source");
    sub->footer("Exit codes: 0 ok; 1 NVRTC rejected the kernel; 2 bad input.");
    sub->callback([args, &action] { action = [args] { return run_codegen(*args); }; });
}

}  // namespace tmasim::cli
