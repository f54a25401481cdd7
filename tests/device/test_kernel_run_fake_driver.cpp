// Kernel scenarios through `tmasim run --backend device` on a fake libcuda.so.1
// (tests/device/fake_driver/fake_libcuda.cpp): no kernel runs, but every driver call the device
// backend makes for a kernel scenario does, in the CLI's child process: the param buffer the
// launch gets, the launch's dimensions and attributes, the two modules and their launches, the
// timing buffer decoded into the trace, and the hang, fault and refusal outcomes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "kernel_test_support.h"
#include "scenarios/values.h"
#include "traces/trace_reader.h"

using namespace tmasim;

namespace {

const std::string kKernels = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/kernels/";

std::string fake_driver_dir() {
    const std::filesystem::path tmasim(TMASIM_BINARY);  // <build>/cli/tmasim
    return (tmasim.parent_path().parent_path() / "device" / "fake_driver").string();
}

// Why this machine cannot run these tests, or "".
std::string missing() {
    if (!std::filesystem::exists(TMASIM_BINARY)) return std::string("the tmasim binary is not built (") + TMASIM_BINARY + ")";
    if (!std::filesystem::exists(fake_driver_dir() + "/libcuda.so.1")) return "the fake driver is not built in " + fake_driver_dir();
    return "";
}

struct CliRun {
    int code = -1;
    std::string output;
    std::vector<std::string> log;  // the fake driver's lines
};

CliRun tmasim_on_fake_driver(const device::test::ScratchDir& dir, const std::string& args, const std::string& env = "") {
    std::remove(dir.file("driver.log").c_str());
    const std::string cmd = "env LD_LIBRARY_PATH='" + fake_driver_dir() + "' TMASIM_FAKE_CUDA_LOG='" + dir.file("driver.log") + "' " + env +
                            " '" + TMASIM_BINARY + "' " + args + " > '" + dir.file("out.txt") + "' 2>&1";
    CliRun r;
    const int status = std::system(cmd.c_str());
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::stringstream out;
    out << std::ifstream(dir.file("out.txt")).rdbuf();
    r.output = out.str();
    std::ifstream log(dir.file("driver.log"));
    for (std::string line; std::getline(log, line);) r.log.push_back(line);
    return r;
}

std::vector<std::string> lines_starting(const CliRun& r, const std::string& prefix) {
    std::vector<std::string> out;
    for (const std::string& l : r.log)
        if (l.rfind(prefix, 0) == 0) out.push_back(l);
    return out;
}

std::string le_hex(uint64_t v, int bytes) {
    std::string s;
    for (int i = 0; i < bytes; ++i) s += fmt::format("{:02x}", (v >> (8 * i)) & 0xff);
    return s;
}

}  // namespace

TEST_CASE("a kernel scenario on the fake driver: its params, launches and trace", "[device][kernel_run]") {
    if (const std::string why = missing(); !why.empty()) {
        WARN("SKIPPED: " << why);
        return;
    }
    device::test::ScratchDir dir("fake-driver");
    const CliRun r = tmasim_on_fake_driver(dir, "run " + kKernels + "gemm_ws_tma_wgmma.yaml --backend device -o " + dir.file("t.jsonl"));
    INFO(r.output);
    REQUIRE(r.code == 0);
    // A warm launch of each kernel, then the recorded ones: as written, then the rewrite.
    const std::vector<std::string> launches = lines_starting(r, "launch ");
    REQUIRE(launches.size() == 4);
    for (size_t i = 0; i < 4; ++i)
        CHECK(launches[i].rfind(fmt::format("launch timing={} grid 4 1 1 block 384 1 1 cluster 2 1 1 smem 132096 extra 0 params", i % 2), 0) == 0);
    // The dynamic shared memory opt-in (attribute 8) for both modules; no non-portable cluster.
    CHECK(lines_starting(r, "attr ") == std::vector<std::string>{"attr 8 132096", "attr 8 132096"});
    CHECK(lines_starting(r, "load ptx ").size() == 2);
    // Allocations: A, B, C, then the timing buffer (4 CTAs of 384 threads, 64 + 2048 * 16 bytes each).
    const std::vector<std::string> allocs = lines_starting(r, "alloc ");
    REQUIRE(allocs.size() == 4);
    auto address = [&](size_t i) { return std::stoull(allocs[i].substr(6, allocs[i].find(' ', 6) - 6)); };
    CHECK(allocs[3].substr(allocs[3].rfind(' ') + 1) == std::to_string(4 * 384 * (64 + 2048 * 16)));
    // Params at the PTX's offsets: map_a (the fake encodes A's address first), map_b, C, m, n, k.
    const std::string& p = launches[2];
    CHECK(p.find(" 0:" + le_hex(address(0), 8)) != std::string::npos);
    CHECK(p.find(" 128:" + le_hex(address(1), 8)) != std::string::npos);
    CHECK(p.find(" 256:" + le_hex(address(2), 8) + " 264:00010000 268:00010000 272:00020000") != std::string::npos);

    const RunResult t = read_trace(dir.file("t.jsonl"));
    CHECK(t.outcome == Outcome::ok);
    CHECK(t.provenance.gpu == "Fake H200");
    const auto& x = t.provenance.extra;
    CHECK(x.at("kernel_time_ns") == "125000");
    CHECK(x.at("rewritten_kernel_time_ns") == "130000");
    CHECK(x.at("cta_span_ns") == "0-2000 100-2100 200-2200 300-2300");
    CHECK(x.at("kernel_span_ns") == "2300");
    CHECK(x.at("trace_level") == "all");
    CHECK(x.at("timing_records_per_thread") == "2048");
    CHECK(x.at("rewritten_memory") == "equal");
    CHECK(x.at("ptx_rewrite").rfind("entry and 1 exit: %globaltimer and %clock64 per thread", 0) == 0);
    // Thread 0's one record of op 0: 1000 cycles after its CTA's entry, for 200.
    REQUIRE(t.events.size() == 2);
    CHECK((t.events[0].op == 0 && t.events[0].kind == EventKind::issue && t.events[0].t == 1000 && t.events[0].iters == std::vector<int64_t>{0}));
    CHECK((t.events[1].kind == EventKind::complete && t.events[1].t == 1200));
    // The fake computes nothing: each tensor as declared, read back after the launch.
    const Scenario s = load_scenario_file(kKernels + "gemm_ws_tma_wgmma.yaml");
    REQUIRE(t.memory.size() == 3);
    for (size_t i = 0; i < 3; ++i) CHECK((t.memory[i].name == s.globals[i].name && t.memory[i].bytes == initial_bytes(s.globals[i])));
}

TEST_CASE("a kernel scenario at --trace none on the fake driver: spans, no events", "[device][kernel_run]") {
    if (const std::string why = missing(); !why.empty()) {
        WARN("SKIPPED: " << why);
        return;
    }
    device::test::ScratchDir dir("fake-driver");
    const CliRun r = tmasim_on_fake_driver(dir, "run " + kKernels + "ldgsts_pipeline.yaml --backend device --trace none -o " + dir.file("t.jsonl"));
    INFO(r.output);
    REQUIRE(r.code == 0);
    const RunResult t = read_trace(dir.file("t.jsonl"));
    CHECK(t.events.empty());
    CHECK(t.provenance.extra.at("cta_span_ns") == "0-2000 100-2100");
    CHECK(t.provenance.extra.count("timing_records_per_thread") == 0);
    CHECK(lines_starting(r, "alloc ").back().substr(lines_starting(r, "alloc ").back().rfind(' ') + 1) == std::to_string(2 * 128 * 64));
}

TEST_CASE("hang, fault and a refused launch on the fake driver", "[device][kernel_run]") {
    if (const std::string why = missing(); !why.empty()) {
        WARN("SKIPPED: " << why);
        return;
    }
    device::test::ScratchDir dir("fake-driver");
    const std::string run = "run " + kKernels + "gemm_ws_tma_wgmma.yaml --backend device -o " + dir.file("t.jsonl");
    {
        const CliRun r = tmasim_on_fake_driver(dir, run + " --watchdog 0.2", "TMASIM_FAKE_CUDA_HANG=all");
        INFO(r.output);
        CHECK(r.code == 1);  // the scenario expects ok
        const RunResult t = read_trace(dir.file("t.jsonl"));
        CHECK(t.outcome == Outcome::hang);
        REQUIRE(t.diagnostics.size() == 1);
        CHECK(t.diagnostics[0].rule == "device.kernel_timeout");
        CHECK(t.diagnostics[0].message.find("did not finish within the watchdog (0.2 s)") != std::string::npos);
        CHECK(t.memory.empty());  // the kernel would still run: nothing is read back
        CHECK(lines_starting(r, "launch ").size() == 1);
    }
    {
        const CliRun r = tmasim_on_fake_driver(dir, run, "TMASIM_FAKE_CUDA_FAULT=1");
        const RunResult t = read_trace(dir.file("t.jsonl"));
        CHECK(t.outcome == Outcome::fault);
        REQUIRE(t.diagnostics.size() == 1);
        CHECK(t.diagnostics[0].message == "kernel fault: CUDA_ERROR_ILLEGAL_ADDRESS: fake driver error (reported by cuEventQuery)");
    }
    {
        const CliRun r = tmasim_on_fake_driver(dir, run, "TMASIM_FAKE_CUDA_REFUSE=1");
        const RunResult t = read_trace(dir.file("t.jsonl"));
        CHECK(t.outcome == Outcome::fault);
        REQUIRE(t.diagnostics.size() == 1);
        CHECK(t.diagnostics[0].message.find("the device refused to launch the kernel as written (grid [4] cluster [2] block 384, "
                                            "132096 bytes of dynamic shared memory at ") == 0);
        CHECK(t.diagnostics[0].message.find("launch): cuLaunchKernelEx: CUDA_ERROR_INVALID_CLUSTER_SIZE") != std::string::npos);
        CHECK(t.diagnostics[0].detail.at("key") == "launch");
    }
    {
        // A rewrite that hangs where the kernel as written did not: no verdict, an error.
        const CliRun r = tmasim_on_fake_driver(dir, run + " --watchdog 0.2", "TMASIM_FAKE_CUDA_HANG=rewritten");
        CHECK(r.code == 2);
        CHECK(r.output.find("the kernel rewritten for timing hung where the kernel as written finished") != std::string::npos);
    }
}
