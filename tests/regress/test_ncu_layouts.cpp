// The model's per-instruction counts of the layout scenarios against Nsight Compute's
// counters of the same kernels, read on a GPU and committed
// (traces/recorded/<gpu>/ncu/layouts.json, recorded with `tmasim run FILE --backend device
// --trace none --ncu`; the lead's note says how).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/run/run_model.h"
#include "scenarios/loader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {

// Sums of the layout ops' counters over every warp instance (their complete events).
std::map<std::string, int64_t> model_totals(const Scenario& sc) {
    std::map<std::string, int64_t> t;
    for (const TraceEvent& e : run_model(sc, ModelOptions{}).events) {
        const Op* op = sc.find_op(e.op);
        if (!op || op_family(op->kind) != OpFamily::layout || e.kind != EventKind::complete) continue;
        for (const char* k : {"gld_requests", "gld_sectors", "gst_requests", "gst_sectors", "ld_wavefronts",
                              "ld_bank_conflicts", "st_wavefronts", "st_bank_conflicts"})
            if (e.detail.count(k)) t[k] += std::stoll(e.detail.at(k));
    }
    return t;
}

// What the executor's epilogue adds when the scenario has shared buffers, for a recording
// without a measured baseline (device/emit/kernel_writer.cpp, emit_epilogue): every thread reads
// the hang flag (one request and one sector per warp), then the CTA copies each buffer out
// in 16-byte vectors: one 512-byte warp instruction per 32 vectors, 4 shared wavefronts and
// 16 global sectors each. record_layout_ncu.py measures it instead (`baseline`: the same
// declarations with the program one `sync`).
std::map<std::string, int64_t> executor_extras(const Scenario& sc) {
    std::map<std::string, int64_t> x;
    if (sc.shared.empty()) return x;
    const int64_t ctas = sc.launch.num_ctas(), warps = sc.launch.num_warps();
    x["gld_requests"] = x["gld_sectors"] = ctas * warps;
    for (const SharedBuffer& b : sc.shared) {
        const int64_t vectors = b.count() * b.size_bytes() / 16;
        x["gst_requests"] += ctas * ((vectors + 31) / 32);
        x["gst_sectors"] += ctas * (vectors * 16 + 31) / 32;
        x["ld_wavefronts"] += ctas * (vectors * 16 + 127) / 128;
    }
    return x;
}

const std::map<std::string, std::string> kCounterOf = {
    {"gld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
    {"gld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
    {"gst_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
    {"gst_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
    {"ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
    {"ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
    {"st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
    {"st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
};

}  // namespace

TEST_CASE("layout scenarios: model sectors and wavefronts equal Nsight Compute's", "[regress][layouts]") {
    const fs::path root = fs::path(TMASIM_SOURCE_DIR) / "traces" / "recorded";
    int files = 0;
    for (const auto& gpu : fs::directory_iterator(root)) {
        const fs::path file = gpu.path() / "ncu" / "layouts.json";
        if (!fs::exists(file)) continue;
        ++files;
        const nlohmann::json doc = nlohmann::json::parse(std::ifstream(file));
        for (const auto& [rel, counters] : doc.at("counters").items()) {
            INFO(file.string() << ": " << rel);
            const Scenario sc = load_scenario_file((fs::path(TMASIM_SOURCE_DIR) / "scenarios" / "catalog" / rel).string());
            std::map<std::string, int64_t> want = model_totals(sc);
            const bool measured = doc.contains("baseline") && doc.at("baseline").contains(rel);
            if (!measured)
                for (const auto& [k, v] : executor_extras(sc)) want[k] += v;
            for (const auto& [key, counter] : kCounterOf) {
                if (!counters.contains(counter)) continue;  // a counter the recording did not ask for
                INFO(counter);
                const int64_t base = measured ? doc.at("baseline").at(rel).value(counter, int64_t{0}) : 0;
                // A difference the recording documents (known_deviation: counter -> hardware minus
                // model, with why) must stay exactly that: a model gap on record, not a tolerance.
                int64_t known = 0;
                if (doc.contains("known_deviation") && doc.at("known_deviation").contains(rel))
                    known = doc.at("known_deviation").at(rel).value(counter, int64_t{0});
                CHECK(want[key] + known == counters.at(counter).get<int64_t>() - base);
            }
        }
    }
    if (files == 0) WARN("no traces/recorded/*/ncu/layouts.json yet: nothing to compare (record it on a GPU)");
}

TEST_CASE("layout scenarios: the model's counts the recording will be compared with", "[regress][layouts]") {
    // The numbers a GPU recording must reproduce, from the tutorial's discussion: R=8 and
    // R=16 touch every sector twice as often as R=4 (half of each 32-byte sector per
    // instruction), and the transposed view 8 times the fixed one's.
    auto sectors = [](const std::string& rel) {
        return model_totals(load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/layouts/" + rel))["gld_sectors"];
    };
    CHECK(sectors("memcpy_1d_r8.yaml") == 2 * sectors("memcpy_1d_r4.yaml"));
    CHECK(sectors("memcpy_1d_r1.yaml") == sectors("memcpy_1d_r4.yaml"));
    CHECK(sectors("memcpy_2d_transposed.yaml") == 8 * sectors("memcpy_2d_transposed_fixed.yaml"));
}
