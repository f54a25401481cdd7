// tmasim capture -o DIR [--kernel NAME] [--limit N] -- PROGRAM ARGS...: runs a real program with
// the capture library injected and writes each kernel launch as a scenario that replays on both
// backends, with the GPU's output as its reference (capture/capture_session.h, docs/capture.md).
// tmasim capture --from DIR: writes them again from DIR/raw (a capture made on another host).
#include <filesystem>
#include <iostream>
#include <memory>

#include "capture/capture_session.h"
#include "cli/commands.h"
#include "cli/io/printable.h"
#include "cli/scenario_load.h"
#include "scenarios/source_loc.h"

namespace tmasim::cli {

namespace fs = std::filesystem;

namespace {

struct CaptureArgs {
    capture::CaptureOptions options;
    std::string from;
};

std::string self_exe() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? "" : p.string();
}

int write_and_check(const std::string& dir, const std::string& cuobjdump) {
    capture::CaptureSummary s = capture::write_replays(dir, cuobjdump);
    size_t written = 0;
    for (capture::CapturedRow& row : s.rows) {
        if (row.refused.empty()) {
            // The params are checked against the PTX as `run` will check them.
            try {
                load_bound_scenario((fs::path(dir) / (row.name + ".yaml")).string());
            } catch (const std::exception& e) {
                row.refused = printable_line(e.what());
                fs::rename(fs::path(dir) / (row.name + ".yaml"), fs::path(dir) / (row.name + ".yaml.refused"));
                fs::remove(fs::path(dir) / "reference" / (row.name + ".jsonl"));
            }
        }
        if (row.refused.empty()) {
            ++written;
            std::cout << row.name << ".yaml: " << printable_line(row.entry) << "\n";
        } else {
            std::cout << row.name << ": not replayable: " << printable_line(row.refused) << "\n";
        }
    }
    for (const std::string& m : s.missed)
        std::cerr << "tmasim capture: warning: a runtime launch (" << printable_line(m)
                  << ") reached no driver launch the library saw; it was not captured\n";
    std::cout << "tmasim capture: " << s.rows.size() << " launch" << (s.rows.size() == 1 ? "" : "es") << " captured, "
              << written << " replayable; replay: tmasim run " << dir << " --diff-against " << dir << "/reference\n";
    if (s.rows.empty()) return kBadInput;  // nothing to replay: the capture itself failed
    return s.rows.size() == written ? kOk : kMismatch;
}

}  // namespace

void add_capture_command(CLI::App& app, Action& action) {
    auto a = std::make_shared<CaptureArgs>();
    CLI::App* sub = app.add_subcommand("capture", "Run a CUDA program and record each kernel launch as a replayable kernel scenario");
    sub->add_option("-o,--output", a->options.dir, "Folder for the capture (must not hold one already)");
    sub->add_option("--kernel", a->options.kernel, "Capture only launches whose PTX entry name contains this");
    sub->add_option("--limit", a->options.limit, "Capture at most this many launches")->check(CLI::Range(0L, 1000000L));
    sub->add_option("--library", a->options.library, "The injection library (default: beside tmasim)");
    sub->add_option("--cuobjdump", a->options.cuobjdump, "cuobjdump, to extract PTX from fatbins (default: CUDA_ROOT/bin, PATH)");
    sub->add_option("--from", a->from, "Write the scenarios again from DIR/raw, without running anything");
    sub->add_option("program", a->options.program, "-- PROGRAM ARGS...: the command to capture");
    sub->footer("Needs a GPU host with CUPTI for the run; --from runs anywhere.\n"
                "Exit codes: 0 every launch is replayable; 1 some are not (each says why); 2 bad input, or nothing captured.");
    sub->callback([a, &action] {
        action = [a]() -> int {
            if (!a->from.empty()) {
                if (!a->options.program.empty()) throw std::invalid_argument("--from takes no program");
                return write_and_check(a->from, a->options.cuobjdump);
            }
            capture::CaptureOptions& o = a->options;
            if (o.dir.empty()) throw std::invalid_argument("-o DIR is required: where the capture goes");
            if (fs::exists(fs::path(o.dir) / "raw"))
                throw std::invalid_argument("-o " + o.dir + ": holds a capture already (" + o.dir + "/raw); "
                                            "allowed: a new or empty folder (a capture is never overwritten)");
            if (o.program.empty()) throw std::invalid_argument("no program: tmasim capture -o DIR -- PROGRAM ARGS...");
            o.library = capture::find_capture_library(o.library, self_exe());
            if (o.library.empty())
                throw std::invalid_argument("no capture library (libtmasim_capture.so) beside tmasim, nor TMASIM_CAPTURE_LIB: "
                                            "it is built where the CUDA toolkit has CUPTI");
            const int status = capture::run_captured_program(o);
            if (status != 0) std::cerr << "tmasim capture: the program exited with status " << status << "\n";
            if (!fs::exists(fs::path(o.dir) / "raw" / "launches.jsonl"))
                throw std::runtime_error("the program ran no CUDA context the library saw (no " + o.dir + "/raw/launches.jsonl)");
            return write_and_check(o.dir, o.cuobjdump);
        };
    });
}

}  // namespace tmasim::cli
