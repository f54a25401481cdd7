// No output destroys an input (issue 40; cli/io/output_guard.h): each command that writes
// refuses, before writing anything, an output that is a file it reads (the trace, its
// sidecar, the scenario the trace names, a batch's references, a sweep's file and template),
// however spelt; FIFOs and devices are refused unless `-` means standard output; outputs land
// by a rename; a write that fails is exit 2. Each refusal: exit 2, one line naming the option,
// the output and the input, and the folder byte-identical after.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "cli_runner.h"

using tmasim_test::CliResult;
using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cli_outputs {

namespace {

namespace fs = std::filesystem;

const char* kSmall = R"(scenario: small
launch: {grid: [1], block: 32}
global:
  A: {type: f32, shape: [64, 64], init: iota}
tensormaps:
  mapA: {tensor: A, box: [32, 32]}
shared:
  tile: {type: f32, shape: [32, 32]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 32], dst: tile, barrier: full, by: thread0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
)";

std::string tmasim_test_with(std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

// 4 MiB of global memory: with --memory-bytes all its trace has a sidecar.
std::string big_scenario() { return tmasim_test_with(kSmall, "shape: [64, 64]", "shape: [1024, 1024]"); }

// Every file under `dir` (symlinks as their target's text) by its relative path: what
// "nothing written, every input byte-identical" compares.
std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string rel = e.path().lexically_relative(dir).string();
        if (e.is_symlink()) files[rel] = "-> " + fs::read_symlink(e.path()).string();
        else if (e.is_regular_file()) files[rel] = read_file(e.path().string());
        else files[rel] = e.is_directory() ? "<dir>" : "<special>";
    }
    return files;
}

// `line` through the shell from the repository root, for redirections run_cli cannot make.
CliResult run_shell(const std::string& line) {
    const std::string err = scratch("shell_stderr.txt"), out = scratch("shell_stdout.txt");
    const std::string cmd = std::string("cd '") + TMASIM_SOURCE_DIR + "' && (" + line + ") 2>'" + err + "'" +
                            (line.find(" >") == std::string::npos ? " >'" + out + "'" : "");
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = read_file(err);
    r.out = fs::exists(out) ? read_file(out) : "";
    fs::remove(out);
    return r;
}

const std::string kBin = std::string("'") + TMASIM_BINARY + "'";

void refused(const std::string& cmd, const std::string& message, const std::string& dir) {
    INFO(cmd);
    const auto before = snapshot(dir);
    const CliResult r = run_cli(cmd);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: " + message));
    CHECK(snapshot(dir) == before);
}

// A folder with a scenario s.yaml, its trace t.jsonl, a large scenario's trace bt.jsonl with
// its sidecar, a symlink and a hard link to s.yaml, and x.mem (a scenario with a sidecar's name).
std::string inputs_folder(const std::string& name) {
    const std::string d = scratch(name);
    fs::create_directories(d);
    write_file(d + "/s.yaml", kSmall);
    write_file(d + "/big.yaml", big_scenario());
    write_file(d + "/x.mem", big_scenario());
    fs::create_symlink("s.yaml", d + "/link.yaml");
    fs::create_hard_link(d + "/s.yaml", d + "/hard.yaml");
    REQUIRE(run_cli("run '" + d + "/s.yaml' -b model -q -o '" + d + "/t.jsonl'").code == 0);
    REQUIRE(run_cli("run '" + d + "/big.yaml' -b model -q --memory-bytes all -o '" + d + "/bt.jsonl'").code == 0);
    REQUIRE(fs::exists(d + "/bt.jsonl.mem"));
    return d;
}

}  // namespace

TEST_CASE("report, export, run and codegen refuse an output that is a file they read", "[cli][outputs]") {
    const std::string d = inputs_folder("destroy");
    const std::string is = " is the input ";
    const std::string wd = "; writing it would destroy that input; allowed: an output that is none of the files the "
                           "command reads";
    const std::string tr = d + "/t.jsonl", bt = d + "/bt.jsonl", s = d + "/s.yaml", sc = "the scenario the trace ";
    refused("report '" + tr + "' -o '" + tr + "'", "--output " + tr + is + tr + " (the trace)" + wd, d);
    refused("report '" + tr + "' -o '" + s + "'", "--output " + s + is + s + " (" + sc + tr + " names)" + wd, d);
    refused("report '" + bt + "' -o '" + bt + ".mem'",
            "--output " + bt + ".mem" + is + bt + ".mem (a sidecar of the trace " + bt + ")" + wd, d);
    refused("export '" + tr + "' -o '" + s + "'", "--output " + s + is + s + " (" + sc + tr + " names)" + wd, d);
    refused("export '" + bt + "' -o '" + bt + ".mem'",
            "--output " + bt + ".mem" + is + bt + ".mem (a sidecar of the trace " + bt + ")" + wd, d);
    refused("export '" + tr + "' -o '" + d + "/link.yaml'",
            "--output " + d + "/link.yaml" + is + s + " (" + sc + tr + " names), through a symlink" + wd, d);
    refused("report '" + tr + "' -o '" + d + "/hard.yaml'",
            "--output " + d + "/hard.yaml" + is + s + " (" + sc + tr + " names), through a hard link" + wd, d);
    // The trace's sidecar would be written over the scenario.
    refused("run '" + d + "/x.mem' -b model --memory-bytes all -o '" + d + "/x'",
            "--output (its sidecar) " + d + "/x.mem" + is + d + "/x.mem (the scenario)" + wd, d);
    refused("codegen '" + s + "' -o '" + d + "/link.yaml'",
            "--output " + d + "/link.yaml" + is + s + " (the scenario), through a symlink" + wd, d);
}

TEST_CASE("run in -o ref --diff-against ref is refused and leaves the references as they were", "[cli][outputs]") {
    const std::string d = scratch("refs");
    fs::create_directories(d + "/in");
    write_file(d + "/in/a.yaml", kSmall);
    write_file(d + "/in/b.yaml", tmasim_test_with(kSmall, "scenario: small", "scenario: small_b"));
    REQUIRE(run_cli("run '" + d + "/in' -b model -q -o '" + d + "/ref'").code == 0);
    for (const std::string& out : {d + "/ref", d + "/ref/.", d + "/in/../ref"})
        refused("run '" + d + "/in' -b model -q -o '" + out + "' --diff-against '" + d + "/ref'",
                "--output " + out + " is the folder " + d + "/ref (the --diff-against references); writing into it "
                "would replace what the command reads; allowed: another folder", d);
    const CliResult other = run_cli("run '" + d + "/in' -b model -q -o '" + d + "/new' --diff-against '" + d + "/ref'");
    CHECK(other.code == 0);
    CHECK(other.out.find("2 scenarios: 2 agree") != std::string::npos);
}

TEST_CASE("a sweep never writes over its sweep file, its template or its own points", "[cli][outputs]") {
    const std::string w = scratch("sweep_w");
    fs::create_directories(w + "/points");
    write_file(w + "/sw.yaml", "sweep: small\ntemplate: t.yaml\nparams: {n: [1, 2]}\n");
    write_file(w + "/t.yaml", tmasim_test_with(kSmall, "grid: [1]", "grid: [${n}]"));
    const std::string sw = w + "/sw.yaml";
    const std::string wd = "; writing it would destroy that input; allowed: an output that is none of the files the "
                           "command reads";
    refused("sweep '" + sw + "' -q --csv '" + sw + "'", "--csv " + sw + " is the input " + sw + " (the sweep file)" + wd, w);
    refused("sweep '" + sw + "' -q --csv '" + w + "/t.yaml'",
            "--csv " + w + "/t.yaml is the input " + w + "/t.yaml (the sweep's template)" + wd, w);
    refused("sweep '" + sw + "' -q -o '" + w + "' --csv '" + w + "/points/0001.yaml'",
            "--csv " + w + "/points/0001.yaml is also the output " + w + "/points/0001.yaml (--output (a point)); "
            "allowed: a file of its own for each output", w);
    // A template where -o DIR puts the points.
    write_file(w + "/points/0000.yaml", read_file(w + "/t.yaml"));
    write_file(w + "/sw2.yaml", "sweep: small\ntemplate: points/0000.yaml\nparams: {n: [1, 2]}\n");
    refused("sweep '" + w + "/sw2.yaml' -q -o '" + w + "'",
            "--output (a point) " + w + "/points/0000.yaml is the input " + w + "/points/0000.yaml (the sweep's "
            "template)" + wd, w);
}

TEST_CASE("FIFOs and devices are refused as outputs, and - is standard output where offered", "[cli][outputs]") {
    const std::string d = inputs_folder("special");
    const std::string fifo = d + "/o.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    // Opened for writing, a FIFO nobody reads blocked the run for ever.
    const CliResult f = run_shell("timeout 60 " + kBin + " run '" + d + "/s.yaml' -b model -q -o '" + fifo + "'");
    CHECK(f.code == 2);
    CHECK(f.err == "tmasim: error: --output " + fifo + " is a FIFO; allowed: a regular file\n");
    refused("export '" + d + "/t.jsonl' -o /dev/full",
            "--output /dev/full is a character device; allowed: a regular file, or - for standard output", d);
    refused("run '" + d + "/s.yaml' -b model -o -",
            "--output -: this option does not write to standard output; allowed: a file name", d);
    const CliResult json = run_cli("export '" + d + "/t.jsonl' -o -");
    CHECK(json.code == 0);
    CHECK(json.out.rfind("{\"traceEvents\":[", 0) == 0);
    CHECK_THAT(json.err, Catch::StartsWith("-: ") && Catch::EndsWith(" events; open it in https://ui.perfetto.dev\n"));
    const CliResult html = run_cli("report '" + d + "/t.jsonl' -o -");
    CHECK(html.code == 0);
    CHECK(html.out.rfind("<!DOCTYPE html>", 0) == 0);
}

TEST_CASE("a write that fails is exit 2, and the file it replaces stays whole", "[cli][outputs]") {
    const std::string d = inputs_folder("failing");
    if (fs::exists("/dev/full")) {
        for (const std::string& cmd : {"codegen '" + d + "/s.yaml'", "run '" + d + "/s.yaml' -b model",
                                       "diff '" + d + "/t.jsonl' '" + d + "/t.jsonl'", std::string("schema")}) {
            INFO(cmd);
            const CliResult r = run_shell(kBin + " " + cmd + " >/dev/full");
            CHECK(r.code == 2);
            CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: cannot write standard output"));
        }
    }
    // A file-size limit of 1 KiB fails the export's write part-way (EFBIG; SIGXFSZ ignored):
    // the old file stays as it was and no temporary file is left beside it.
    const std::string out = d + "/out.json";
    write_file(out, "old\n");
    const auto before = snapshot(d);
    const CliResult r = run_shell("bash -c \"trap '' XFSZ; ulimit -f 1; exec " + kBin + " export '" + d +
                                  "/bt.jsonl' -o '" + out + "'\"");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: cannot write " + out));
    CHECK(snapshot(d) == before);
    // Written again, a file keeps its permissions; written through a symlink, the link stays.
    REQUIRE(::chmod(out.c_str(), 0640) == 0);
    fs::create_symlink("out.json", d + "/via.json");
    REQUIRE(run_cli("export '" + d + "/t.jsonl' -o '" + d + "/via.json'").code == 0);
    struct stat st {};
    REQUIRE(::stat(out.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    CHECK(fs::is_symlink(d + "/via.json"));
    CHECK(read_file(out).rfind("{\"traceEvents\":[", 0) == 0);
}

}  // namespace test_cli_outputs
