// The kernel catalog (scenarios/catalog/kernels/) on the model's PTX front end: every scenario
// meets its `expect`; each correct kernel leaves in global memory what its host reference
// computes (tests/model/kernel_references.cpp), byte for byte or within the ulps a wgmma
// output is allowed (the bound printed); each broken twin's diagnostic names its rule, the PTX
// line of an instruction of the kernel and, through .loc, a line of the kernel's .cu file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "kernel_references.h"
#include "model/run/run_model.h"
#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {

std::vector<fs::path> kernel_scenarios() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(fs::path(TMASIM_SOURCE_DIR) / "scenarios/catalog/kernels"))
        if (e.path().extension() == ".yaml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

const MemoryImage* image(const RunResult& r, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == "global" && m.name == name) return &m;
    return nullptr;
}

bool is_twin(const Scenario& s) { return s.expect.outcome != Outcome::ok; }

std::string cu_file(const Scenario& s) { return fs::path(s.kernel->cuda).filename().string(); }

}  // namespace

TEST_CASE("kernel catalog: the catalog holds at least 12 kernels and 10 broken twins", "[model][kernel][catalog]") {
    int kernels = 0, twins = 0;
    for (const fs::path& p : kernel_scenarios()) {
        const Scenario s = load_scenario_file(p.string());
        REQUIRE(s.is_kernel());
        if (s.arch != "sm_90") continue;  // sm_100 kernels compile here; the model runs Hopper ones
        (is_twin(s) ? twins : kernels)++;
    }
    CHECK(kernels >= 12);
    CHECK(twins >= 10);
}

TEST_CASE("kernel catalog: every kernel meets its expect, and correct kernels equal their host references",
          "[model][kernel][catalog]") {
    for (const fs::path& p : kernel_scenarios()) {
        Scenario s = load_scenario_file(p.string());
        if (s.arch != "sm_90") continue;
        INFO(p.filename().string());
        ptx::bind_kernel(s);
        const RunResult r = run_model(s);
        std::string first;
        if (!r.diagnostics.empty()) first = r.diagnostics.front().rule + ": " + r.diagnostics.front().message;
        INFO("first diagnostic: " << first);
        REQUIRE(r.outcome == s.expect.outcome);
        if (is_twin(s)) {
            // The diagnostic with the expected outcome carries the rule, and names an instruction of
            // the kernel: its PTX line and, through .loc, its line in the kernel's .cu file.
            const auto d = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                                        [&](const Diagnostic& x) { return x.outcome == s.expect.outcome; });
            REQUIRE(d != r.diagnostics.end());
            CHECK(d->rule == s.expect.rule);
            const Op* op = s.find_op(d->op);
            REQUIRE(op);
            CHECK(op->loc.line > 0);
            CHECK(op->loc.file == s.kernel->ptx_file);
            CHECK(op->source.rfind(cu_file(s) + ":", 0) == 0);
            CHECK(d->message.find(op->label) != std::string::npos);
            continue;
        }
        const auto expected = kernel_reference(s);
        const auto bounds = kernel_reference_ulp_bounds(s);
        for (const auto& [name, bytes] : expected) {
            INFO("tensor " << name);
            const MemoryImage* m = image(r, name);
            REQUIRE(m);
            REQUIRE(m->bytes.size() == bytes.size());
            const auto bound = bounds.find(name);
            if (bound == bounds.end()) {
                CHECK(m->bytes == bytes);
                continue;
            }
            int64_t worst = 0;
            for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
                float got, want;
                std::memcpy(&got, m->bytes.data() + i, 4);
                std::memcpy(&want, bytes.data() + i, 4);
                worst = std::max(worst, f32_ulp_distance(got, want));
            }
            WARN(p.filename().string() << ": " << name << " within " << worst << " ulps of the reference (bound "
                                       << bound->second << ")");
            CHECK(worst <= bound->second);
        }
    }
}

TEST_CASE("kernel catalog: an unsupported instruction exits 2 naming it and its PTX line", "[model][kernel]") {
    const fs::path dir = fs::temp_directory_path() / "tmasim_kernel_unsupported";
    fs::create_directories(dir);
    std::ofstream(dir / "k.ptx") << ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                    ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
                                    "\tmov.u32 %r1, 7;\n"
                                    "\tbrev.b32 %r2, %r1;\n"
                                    "\tpmevent.mask 1;\n"
                                    "\tmultimem.ld_reduce.relaxed.sys.global.add.u32 %r2, [%r1];\n"
                                    "\tret;\n}\n";
    std::ofstream(dir / "k.yaml") << "scenario: unsupported\nlaunch: {grid: [1], block: 32}\n"
                                     "kernel: {ptx: k.ptx, entry: k}\n";
    Scenario s = load_scenario_file((dir / "k.yaml").string());
    ptx::bind_kernel(s);
    try {
        run_model(s);
        FAIL("the run did not refuse the kernel");
    } catch (const ScenarioError& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("k.ptx:10:") != std::string::npos);
        CHECK(what.find("multimem") != std::string::npos);
        CHECK(what.find("unsupported instruction") != std::string::npos);
    }
}

TEST_CASE("kernel catalog: a param that disagrees with the PTX names both sides", "[model][kernel]") {
    const fs::path dir = fs::temp_directory_path() / "tmasim_kernel_params";
    fs::create_directories(dir);
    std::ofstream(dir / "k.ptx") << ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{\n\tret;\n}\n";
    auto scenario = [&](const std::string& params) {
        std::ofstream(dir / "k.yaml") << "scenario: params\nlaunch: {grid: [1], block: 32}\nglobal:\n"
                                         "  A: {type: f32, shape: [16]}\nkernel: {ptx: k.ptx, entry: k, params: " << params << "}\n";
        Scenario s = load_scenario_file((dir / "k.yaml").string());
        std::string what;
        try {
            ptx::bind_kernel(s);
        } catch (const ScenarioError& e) {
            what = e.what();
        }
        return what;
    };
    const std::string count = scenario("[{global: A}]");
    INFO(count);
    CHECK(count.find("k.yaml:5:") != std::string::npos);
    CHECK(count.find("gives 1 params") != std::string::npos);
    CHECK(count.find("takes 2") != std::string::npos);
    const std::string size = scenario("[{global: A}, {u64: 3}]");
    INFO(size);
    CHECK(size.find("kernel.params[1]") != std::string::npos);
    CHECK(size.find("k_param_1") != std::string::npos);
    CHECK(size.find("k.ptx:6:") != std::string::npos);
    CHECK(size.find("u64 is 8 bytes") != std::string::npos);
    CHECK(scenario("[{global: A}, {u32: 3}]").empty());
}

TEST_CASE("kernel catalog: the model says which unit ops a single thread ran (tma_multicast's thread 0)",
          "[model][kernel][catalog]") {
    Scenario s = load_scenario_file((fs::path(TMASIM_SOURCE_DIR) / "scenarios/catalog/kernels/tma_multicast.yaml").string());
    ptx::bind_kernel(s);
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::ok);
    int inits = 0, expects = 0, loads = 0;
    for (const Op& op : s.program) {
        const auto it = r.single_thread_ops.find(op.id);
        INFO("op #" << op.id << " " << op.label << " " << op.source);
        if (op.kind == OpKind::mbarrier_init) {
            // `if (threadIdx.x == 0)` in every CTA
            REQUIRE(it != r.single_thread_ops.end());
            CHECK(it->second == 0);
            ++inits;
        } else if (op.kind == OpKind::mbarrier_arrive_expect_tx) {
            REQUIRE(it != r.single_thread_ops.end());
            CHECK(it->second == 0);
            ++expects;
        } else if (op.kind == OpKind::shared_load) {
            CHECK(it == r.single_thread_ops.end());  // every thread reads its tile elements
            ++loads;
        }
    }
    CHECK(inits == 1);
    CHECK(expects == 1);
    CHECK(loads > 0);
}
