// The PTX that Triton 3.6 emitted for the project's own Triton and Gluon kernels
// (scenarios/catalog/kernels/triton/: the .py sources, compile_ptx.py, the PTX and what the
// H200 run recorded in each .json) runs on the model and leaves what the GPU left: the byte-exact
// outputs hash as the H200's did; the wgmma matmul, whose tensor cores sum in their own order,
// equals an f32 reference that adds the products in k order (the model's documented order).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "model/kernel/alu.h"
#include "model/run/run_model.h"
#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
namespace fs = std::filesystem;

namespace test_triton_fixtures {
namespace {

const fs::path kDir = fs::path(TMASIM_SOURCE_DIR) / "scenarios/catalog/kernels/triton";

std::vector<fs::path> fixtures() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(kDir))
        if (e.path().extension() == ".yaml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

RunResult run(const fs::path& yaml, Scenario& s) {
    s = load_scenario_file(yaml.string());
    ptx::bind_kernel(s);
    return run_model(s);
}

const MemoryImage& global_image(const RunResult& r, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == "global" && m.name == name) return m;
    throw std::runtime_error("no global image " + name);
}

}  // namespace

TEST_CASE("triton fixtures: each runs on the model and its exact outputs hash as on the H200", "[model][kernel][triton]") {
    const auto all = fixtures();
    REQUIRE(all.size() >= 4);
    int compared = 0;
    for (const fs::path& yaml : all) {
        INFO(yaml.filename().string());
        Scenario s;
        const RunResult r = run(yaml, s);
        REQUIRE(r.outcome == s.expect.outcome);  // tma_desc_scale races (below); the run goes on
        const nlohmann::json gpu = nlohmann::json::parse(std::ifstream(fs::path(yaml).replace_extension(".json")));
        for (const auto& [name, t] : gpu.at("tensors").items()) {
            // Outputs the GPU computed exactly (max error 0 against torch): copies, scales, layouts.
            if (t.at("role") != "output" || gpu.at("errors").at(name).at("max_abs_err").get<double>() != 0) continue;
            INFO("tensor " << name);
            CHECK(image_hash(global_image(r, name)).hex == t.at("final_fnv1a64").get<std::string>());
            ++compared;
        }
    }
    CHECK(compared >= 3);
}

TEST_CASE("triton fixtures: tma_desc_scale's lane 0 replaces a staged map the warp copies with no bar.warp.sync",
          "[model][kernel][triton][race]") {
    // Triton 3.6's tl.make_tensor_descriptor: warp 0 zero-fills the 128-byte staging copy and
    // syncs (bar.warp.sync), thread 0 sets its fields with tensormap.replace, and the warp's
    // tensormap.cp_fenceproxy (.sync.aligned, which orders no memory) copies it: every other
    // lane reads bytes lane 0 wrote with nothing between (semantics.md C22). The H200's
    // racecheck reported it too (traces/recorded/NVIDIA-H200/sanitizer/racecheck.txt).
    Scenario s;
    const RunResult r = run(kDir / "tma_desc_scale.yaml", s);
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE_FALSE(r.diagnostics.empty());
    std::set<std::string> lines;
    for (const Diagnostic& d : r.diagnostics) {
        INFO(d.message);
        CHECK(d.rule == "race.shared_raw");
        const Op* op = s.find_op(d.op);
        REQUIRE(op);
        CHECK(op->kind == OpKind::tensormap_cp_fenceproxy);
        CHECK(s.find_op(std::stoi(d.detail.at("other_op")))->kind == OpKind::tensormap_replace);
        CHECK(d.detail.at("other_thread") == "0");
        CHECK(d.detail.at("thread") == "1");
        CHECK(d.message.find("a lane of the same warp") != std::string::npos);
        CHECK(d.message.find("bar.warp.sync (__syncwarp)") != std::string::npos);
        lines.insert(op->label + " " + op->source);
    }
    // Both descriptors (x's and y's), each CTA's: the two copies, at their PTX and Python lines.
    CHECK(lines == std::set<std::string>{"tma_desc_scale.ptx:113 tma_desc_scale.py:26:36",
                                         "tma_desc_scale.ptx:169 tma_desc_scale.py:27:36"});
    CHECK(r.diagnostics.size() == 8);  // 2 copies x 4 CTAs
}

TEST_CASE("triton fixtures: the wgmma matmul equals the k-order f32 sum of its products", "[model][kernel][triton]") {
    Scenario s;
    const RunResult r = run(kDir / "tma_wgmma_matmul.yaml", s);
    REQUIRE(r.outcome == Outcome::ok);
    const std::vector<uint8_t> a = initial_bytes(*s.find_global("A")), b = initial_bytes(*s.find_global("B"));
    const std::vector<uint8_t>& c = global_image(r, "C").bytes;
    const int M = 128, N = 128, K = 256;  // C = A [M, K] * B [N, K]^T (tma_wgmma_matmul.py)
    REQUIRE(c.size() == size_t(M) * N * 4);
    auto f16 = [](const std::vector<uint8_t>& v, size_t e) {
        uint16_t h;
        std::memcpy(&h, &v[e * 2], 2);
        return model::kernel::ty_to_float(h, model::kernel::Ty::f16);
    };
    int equal = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = 0;
            for (int k = 0; k < K; ++k) {
                const float prod = f16(a, size_t(i) * K + k) * f16(b, size_t(j) * K + k);
                acc = acc + prod;
            }
            float got;
            std::memcpy(&got, &c[(size_t(i) * N + j) * 4], 4);
            equal += got == acc;
        }
    CHECK(equal == M * N);
}

}  // namespace test_triton_fixtures
