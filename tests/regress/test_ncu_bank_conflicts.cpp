// The model's shared-memory bank conflicts against Nsight Compute's counters, read on a
// GPU and committed (traces/recorded/<gpu>/ncu/bank_conflicts.json).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/run/run_model.h"
#include "scenarios/layout.h"
#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {

struct BankTotals {
    int64_t wavefronts = 0, conflicts = 0;
};

// Sums the bank detail of every shared.load warp access (one complete event per warp).
BankTotals model_bank_totals(const Scenario& sc) {
    BankTotals t;
    for (const TraceEvent& e : run_model(sc, ModelOptions{}).events) {
        const Op* op = sc.find_op(e.op);
        if (!op || op->kind != OpKind::shared_load || e.kind != EventKind::complete) continue;
        t.wavefronts += std::stoll(e.detail.at("wavefronts"));
        t.conflicts += std::stoll(e.detail.at("bank_conflicts"));
    }
    return t;
}

// The device executor copies every shared buffer out at the end with 1-byte loads; at
// block 32 each warp load covers 32 consecutive bytes: one wavefront.
int64_t dump_wavefronts(const Scenario& sc) {
    int64_t n = 0;
    for (const SharedBuffer& b : sc.shared) n += b.count() * ((b.size_bytes() + 31) / 32);
    return n;
}

}  // namespace

TEST_CASE("model bank conflicts equal Nsight Compute's counters recorded on the GPU", "[regress][bank]") {
    const fs::path root = fs::path(TMASIM_SOURCE_DIR) / "traces" / "recorded";
    int files = 0;
    for (const auto& gpu : fs::directory_iterator(root)) {
        const fs::path file = gpu.path() / "ncu" / "bank_conflicts.json";
        if (!fs::exists(file)) continue;
        ++files;
        const nlohmann::json doc = nlohmann::json::parse(std::ifstream(file));
        for (const auto& [rel, counters] : doc.at("counters").items()) {
            INFO(file.string() << ": " << rel);
            const Scenario sc = load_scenario_file((fs::path(TMASIM_SOURCE_DIR) / "scenarios" / "catalog" / rel).string());
            REQUIRE(sc.launch.block == 32);  // dump_wavefronts() assumes it
            const BankTotals t = model_bank_totals(sc);
            CHECK(t.conflicts == counters.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum").get<int64_t>());
            CHECK(t.wavefronts + dump_wavefronts(sc) ==
                  counters.at("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum").get<int64_t>());
        }
    }
    REQUIRE(files >= 1);
}
