// The output rule counts every file a command reads (issue 40; cli/io/output_guard.h), not
// only those on its command line: the model's arch config (--arch NAME, or every config when
// each scenario picks its default) and the headers beside a kernel scenario's .cu, which NVRTC
// includes. `-o` onto one is refused before anything is written: exit 2, one line naming the
// option and the input, every file byte-identical after. And a detail map of 200k keys is
// refused at once (it made export quadratic: 27 s), not read.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_runner.h"

namespace test_cli_outputs_read_files {
namespace {

namespace fs = std::filesystem;
using tmasim_test::CliResult;
using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;

std::map<std::string, std::string> snapshot(const std::string& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) files[e.path().lexically_relative(dir).string()] = read_file(e.path().string());
    return files;
}

const std::string kWd = "; writing it would destroy that input; allowed: an output that is none of the files the "
                        "command reads\n";

void refused(const std::string& cmd, const std::string& err, const std::string& dir) {
    INFO(cmd);
    const auto before = snapshot(dir);
    const CliResult r = run_cli(cmd);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "tmasim: error: " + err + kWd);
    CHECK(snapshot(dir) == before);
}

}  // namespace

TEST_CASE("run and sweep refuse -o onto the model arch config they read", "[cli][outputs]") {
    // A copy of the arch folder, named by TMASIM_ARCH_DIR: a refusal that failed would only
    // overwrite the copy.
    const std::string d = scratch("arch_inputs");
    fs::create_directories(d + "/arch");
    for (const auto& e : fs::directory_iterator(std::string(TMASIM_SOURCE_DIR) + "/model/arch"))
        fs::copy_file(e.path(), d + "/arch/" + e.path().filename().string());
    fs::copy_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/stencil_batching.yaml", d + "/s.yaml");
    const std::string env = "TMASIM_ARCH_DIR='" + d + "/arch' ";
    const std::string bin = std::string("'") + TMASIM_BINARY + "' ";
    const auto in_env = [&](const std::string& args) {
        // run_cli runs the binary itself; the environment goes through the shell.
        return CliResult(run_cli("--version >/dev/null && " + env + bin + args));
    };
    const auto refused_in_env = [&](const std::string& args, const std::string& err) {
        INFO(args);
        const auto before = snapshot(d);
        const CliResult r = in_env(args);
        CHECK(r.code == 2);
        CHECK(r.err == "tmasim: error: " + err + kWd);
        CHECK(snapshot(d) == before);
    };
    const std::string h100 = d + "/arch/h100-sxm.yaml", h200 = d + "/arch/h200.yaml";
    refused_in_env("run '" + d + "/s.yaml' -b model -q -o '" + h100 + "'",
                   "--output " + h100 + " is the input " + h100 + " (a model arch config)");
    refused_in_env("run '" + d + "/s.yaml' -b model -q --arch h200 -o '" + h200 + "'",
                   "--output " + h200 + " is the input " + h200 + " (the --arch config h200)");
    // A sweep's points run on the model too: its CSV may not be the config either.
    std::string tmpl = read_file(d + "/s.yaml");
    tmpl.replace(tmpl.find("grid: [1]"), 9, "grid: [${n}]");
    std::ofstream(d + "/t.yaml", std::ios::binary) << tmpl;
    std::ofstream(d + "/sw.yaml", std::ios::binary) << "sweep: s\ntemplate: t.yaml\nparams: {n: [1, 2]}\n";
    refused_in_env("sweep '" + d + "/sw.yaml' -q --arch h200 --csv '" + h200 + "'",
                   "--csv " + h200 + " is the input " + h200 + " (the --arch config h200)");
    // Another output is written as before.
    const CliResult ok = in_env("run '" + d + "/s.yaml' -b model -q --arch h200 -o '" + d + "/t.jsonl'");
    CHECK(ok.code == 0);
    CHECK(fs::exists(d + "/t.jsonl"));
}

TEST_CASE("run, codegen, report and export refuse -o onto a header beside a kernel scenario's .cu", "[cli][outputs]") {
    const std::string d = scratch("kernel_headers");
    fs::create_directories(d);
    const std::string kernels = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/kernels/";
    for (const char* f : {"tma_multicast.yaml", "tma_multicast.cu", "kernel_common.cuh"})
        fs::copy_file(kernels + f, d + "/" + f);
    const std::string header = d + "/kernel_common.cuh";
    const std::string what = " (a header beside the kernel source " + d + "/tma_multicast.cu)";
    refused("run '" + d + "/tma_multicast.yaml' -b model -q -o '" + header + "'",
            "--output " + header + " is the input " + header + what, d);
    refused("codegen '" + d + "/tma_multicast.yaml' -o '" + header + "'",
            "--output " + header + " is the input " + header + what, d);
    // A trace that names the kernel scenario: report and export read the scenario and so its
    // headers (a model trace of another scenario, its header pointed at the copy).
    const std::string t = d + "/t.jsonl";
    REQUIRE(run_cli("run scenarios/catalog/guide/stencil_batching.yaml -b model -q -o '" + t + "'").code == 0);
    std::string text = read_file(t);
    const std::string from = R"("scenario_file":"scenarios/catalog/guide/stencil_batching.yaml")";
    text.replace(text.find(from), from.size(), R"("scenario_file":")" + d + R"(/tma_multicast.yaml")");
    std::ofstream(t, std::ios::binary) << text;
    refused("report '" + t + "' -o '" + header + "'", "--output " + header + " is the input " + header + what, d);
    refused("export '" + t + "' -o '" + header + "'", "--output " + header + " is the input " + header + what, d);
}

TEST_CASE("export refuses a 200k-key detail map at its line without reading it through", "[cli][outputs]") {
    const std::string t = scratch("many_keys.jsonl");
    {
        std::ofstream out(t, std::ios::binary);
        out << R"({"type":"header","format":"tmasim-trace","version":4,"backend":"model","tool_version":"test",)"
               R"("scenario":"many_keys","scenario_file":"","scenario_hash":"","gpu":"","sm_clock_mhz":1755,)"
               R"("driver":"","cuda":"","model_config":"","model_config_hash":"","seed":0,"extra":{}})"
            << '\n';
        out << R"({"type":"event","op":0,"name":"cp.async","iters":[],"cta":0,"warp":0,"lane":0,"kind":"issue",)"
               R"("t":1,"detail":{)";
        for (int k = 0; k < 200000; ++k) out << (k ? "," : "") << "\"k" << 1000000 + k << "\":\"v\"";
        out << "}}\n" << R"({"type":"outcome","outcome":"ok"})" << '\n';
    }
    const auto start = std::chrono::steady_clock::now();
    const CliResult r = run_cli("export '" + t + "' -o '" + scratch("many_keys.json") + "'");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("tmasim: error: " + t + ":2: event: 'detail' has 200000 keys; allowed: at "
                                        "most 256"));
    CHECK(seconds < 10);
    CHECK_FALSE(fs::exists(scratch("many_keys.json")));
}

}  // namespace test_cli_outputs_read_files
