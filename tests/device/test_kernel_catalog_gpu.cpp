// Kernel scenarios on the device: which GPUs a kernel's PTX target runs on and the host
// references of the catalog (no GPU needed), and, where a Hopper is present ([gpu]), every
// catalog kernel: each correct one leaves the bytes of its host reference (the GEMM's C within
// its ulp bound), its timing rewrite the same bytes and events keyed to its ops; each broken
// twin, run through the CLI's child process, ends with a verdict, and those the model sees
// hang hang.
//
// The host references (tests/model/kernel_references.cpp) are compiled into this program too:
// they stay where the model's tests keep them, and both programs compile the same file.
#include "../model/kernel_references.cpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "device/launch/cuda_driver.h"
#include "device/launch/gpu_session.h"
#include "device/run/run_device.h"
#include "kernel_test_support.h"
#include "traces/trace_reader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// Why no GPU test can run here, or "" when a GPU is present.
std::string no_gpu_reason() {
    try {
        GpuSession gpu(CudaDriver::get());
        require_architecture("sm_90", gpu.info());
        return "";
    } catch (const DeviceUnavailable& e) {
        return e.what();
    } catch (const CudaError& e) {
        return e.what();
    }
}

void check_against_reference(const Scenario& s, const RunResult& r) {
    const auto bounds = kernel_reference_ulp_bounds(s);
    for (const auto& [name, want] : kernel_reference(s)) {
        INFO("tensor " << name);
        const auto m = std::find_if(r.memory.begin(), r.memory.end(), [&](const MemoryImage& i) { return i.name == name; });
        REQUIRE(m != r.memory.end());
        REQUIRE(m->bytes.size() == want.size());
        const auto bound = bounds.find(name);
        if (bound == bounds.end()) {
            CHECK(m->bytes == want);
            continue;
        }
        int64_t worst = 0;
        for (size_t i = 0; i + 4 <= want.size(); i += 4) {
            float got, ref;
            std::memcpy(&got, m->bytes.data() + i, 4);
            std::memcpy(&ref, want.data() + i, 4);
            worst = std::max(worst, f32_ulp_distance(got, ref));
        }
        INFO("worst " << worst << " ulps");
        CHECK(worst <= bound->second);
    }
}

}  // namespace

TEST_CASE("a kernel's PTX target decides which GPUs run it", "[device][kernel_run]") {
    CHECK_NOTHROW(require_ptx_targets({"sm_90a"}, 9, 0, "NVIDIA H200"));
    CHECK_THROWS_WITH(require_ptx_targets({"sm_90a"}, 10, 0, "NVIDIA B200"),
                      "the kernel's PTX targets sm_90a, which runs on compute capability 9.0 only; this GPU is NVIDIA B200 (sm_100)");
    CHECK_THROWS_WITH(require_ptx_targets({"sm_100a"}, 9, 0, "NVIDIA H200"), Catch::Contains("compute capability 10.0 only"));
    CHECK_NOTHROW(require_ptx_targets({"sm_80"}, 9, 0, "NVIDIA H200"));
    CHECK_THROWS_WITH(require_ptx_targets({"sm_100"}, 9, 0, "NVIDIA H200"), Catch::Contains("needs compute capability 10.0 or newer"));
    CHECK_NOTHROW(require_ptx_targets({"sm_100f"}, 10, 3, "NVIDIA B300"));
}

TEST_CASE("the host references cover every correct kernel of the catalog, by tensor", "[device][kernel_catalog]") {
    int covered = 0;
    for (const Scenario& s : test::loadable_kernels()) {
        if (s.expect.outcome != Outcome::ok) continue;
        INFO(s.name);
        const auto ref = kernel_reference(s);
        CHECK(!ref.empty());
        for (const auto& [name, bytes] : ref) {
            const GlobalTensor* g = s.find_global(name);
            REQUIRE(g);
            CHECK(static_cast<int64_t>(bytes.size()) == g->size_bytes());
        }
        ++covered;
    }
    CHECK(covered == 17);
}

TEST_CASE("every correct catalog kernel on the GPU leaves its host reference's bytes", "[device][gpu][kernel_catalog]") {
    const std::string why = no_gpu_reason();
    if (!why.empty()) {
        WARN("SKIPPED [gpu] test: " << why);
        return;
    }
    int ran = 0;
    for (const Scenario& s : test::loadable_kernels()) {
        if (s.expect.outcome != Outcome::ok) continue;
        INFO(s.name);
        RunResult r;
        try {
            r = run_device(s, DeviceOptions{});
        } catch (const DeviceUnavailable& e) {
            WARN("not on this GPU: " << s.name << ": " << e.what());  // tma_gather4_rows (sm_100a) on a Hopper
            continue;
        }
        INFO((r.diagnostics.empty() ? std::string() : r.diagnostics.front().message));
        REQUIRE(r.outcome == Outcome::ok);
        check_against_reference(s, r);
        const auto& x = r.provenance.extra;
        CHECK(x.at("rewritten_memory") == "equal");
        CHECK(std::stoll(x.at("kernel_time_ns")) > 0);
        CHECK(std::stoll(x.at("kernel_span_ns")) > 0);
        CHECK(x.count("timing_records_dropped") == 0);
        REQUIRE(!r.events.empty());
        for (const TraceEvent& e : r.events) {
            CHECK((e.op >= 0 && e.op < static_cast<int>(s.program.size())));
            CHECK((e.cta >= 0 && e.cta < s.launch.num_ctas() && e.iters.size() == 1));
        }
        ++ran;
    }
    CHECK(ran >= 15);
}

TEST_CASE("every broken catalog twin on the GPU ends with a verdict, and the model's hangs hang", "[device][gpu][kernel_catalog]") {
    const std::string why = no_gpu_reason();
    if (!why.empty()) {
        WARN("SKIPPED [gpu] test: " << why);
        return;
    }
    test::ScratchDir dir("twins");
    for (const Scenario& s : test::loadable_kernels()) {
        if (s.expect.outcome == Outcome::ok) continue;
        const std::string& file = s.file;
        INFO(s.name);
        // The CLI's child process: a hung kernel ends with it, not with this test program.
        const std::string trace = dir.file(s.name + ".jsonl");
        // TMASIM_BINARY in the environment: the binary carried to a GPU host (its build path is
        // this machine's; device/scripts/kernel_session.sh sets it).
        const char* carried = std::getenv("TMASIM_BINARY");
        const std::string cmd = std::string("'") + (carried ? carried : TMASIM_BINARY) + "' run '" + file + "' --backend device -q -o '" + trace + "' > '" +
                                dir.file(s.name + ".log") + "' 2>&1";
        const int status = std::system(cmd.c_str());
        INFO("log: " << std::ifstream(dir.file(s.name + ".log")).rdbuf());
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) <= 1);  // 0: expect met as the device sees it; 1: it was not; 2 would be no run
        const RunResult r = read_trace(trace);
        CHECK((r.outcome == Outcome::ok || r.outcome == Outcome::hang));  // the device sees no hazards
        if (s.expect.outcome == Outcome::hang) CHECK(r.outcome == Outcome::hang);
    }
}
