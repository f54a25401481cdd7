#include "model/core/arch_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "scenarios/values.h"

namespace tmasim::model {

namespace {

struct ParamEntry {
    const char* key;
    double TimingParams::*field;
};

// The one table of parameter names: the YAML keys and the struct fields agree by it.
const std::vector<ParamEntry>& param_table() {
    static const std::vector<ParamEntry> table = {
        {"sm_clock_mhz", &TimingParams::sm_clock_mhz},
        {"sm_count", &TimingParams::sm_count},
        {"kernel_prologue_cycles", &TimingParams::kernel_prologue_cycles},
        {"trace_global_words_prologue_cycles", &TimingParams::trace_global_words_prologue_cycles},
        {"trace_probe_cycles", &TimingParams::trace_probe_cycles},
        {"trace_in_branch_probe_cycles", &TimingParams::trace_in_branch_probe_cycles},
        {"trace_prologue_warp_cycles", &TimingParams::trace_prologue_warp_cycles},
        {"trace_predicate_skip_cycles", &TimingParams::trace_predicate_skip_cycles},
        {"issue_cycles", &TimingParams::issue_cycles},
        {"elected_tma_load_pass_cycles", &TimingParams::elected_tma_load_pass_cycles},
        {"elected_tma_map_first_pass_cycles", &TimingParams::elected_tma_map_first_pass_cycles},
        {"predicate_select_cycles", &TimingParams::predicate_select_cycles},
        {"predicate_division_cycles", &TimingParams::predicate_division_cycles},
        {"branched_global_load_cycles", &TimingParams::branched_global_load_cycles},
        {"mbarrier_init_cycles", &TimingParams::mbarrier_init_cycles},
        {"mbarrier_arrive_cycles", &TimingParams::mbarrier_arrive_cycles},
        {"mbarrier_expect_tx_cycles", &TimingParams::mbarrier_expect_tx_cycles},
        {"mbarrier_arrive_expect_tx_cycles", &TimingParams::mbarrier_arrive_expect_tx_cycles},
        {"mbarrier_wait_resume_cycles", &TimingParams::mbarrier_wait_resume_cycles},
        {"mbarrier_lane_wait_resume_cycles", &TimingParams::mbarrier_lane_wait_resume_cycles},
        {"mbarrier_lane_wait_min_cycles", &TimingParams::mbarrier_lane_wait_min_cycles},
        {"mbarrier_wait_ready_cycles", &TimingParams::mbarrier_wait_ready_cycles},
        {"bar_arrive_cycles", &TimingParams::bar_arrive_cycles},
        {"sync_cycles", &TimingParams::sync_cycles},
        {"trace_sync_hold_cycles", &TimingParams::trace_sync_hold_cycles},
        {"fence_proxy_async_cycles", &TimingParams::fence_proxy_async_cycles},
        {"fence_mbarrier_init_cycles", &TimingParams::fence_mbarrier_init_cycles},
        {"bulk_load_issue_cycles", &TimingParams::bulk_load_issue_cycles},
        {"tensor_load_issue_cycles", &TimingParams::tensor_load_issue_cycles},
        {"store_issue_cycles", &TimingParams::store_issue_cycles},
        {"bulk_reduce_issue_cycles", &TimingParams::bulk_reduce_issue_cycles},
        {"tensor_reduce_issue_cycles", &TimingParams::tensor_reduce_issue_cycles},
        {"tensormap_fetch_cycles", &TimingParams::tensormap_fetch_cycles},
        {"shared_store_cycles", &TimingParams::shared_store_cycles},
        {"tma_latency_l2_cycles", &TimingParams::tma_latency_l2_cycles},
        {"tma_store_latency_cycles", &TimingParams::tma_store_latency_cycles},
        {"tma_store_read_cycles", &TimingParams::tma_store_read_cycles},
        {"tma_store_bytes_per_cycle", &TimingParams::tma_store_bytes_per_cycle},
        {"tma_latency_hbm_cycles", &TimingParams::tma_latency_hbm_cycles},
        {"tma_bytes_per_cycle", &TimingParams::tma_bytes_per_cycle},
        {"hbm_bytes_per_cycle", &TimingParams::hbm_bytes_per_cycle},
        {"hbm_sm_bytes_per_cycle", &TimingParams::hbm_sm_bytes_per_cycle},
        {"hbm_sm_burst_bytes", &TimingParams::hbm_sm_burst_bytes},
        {"hbm_sm_load_slowdown", &TimingParams::hbm_sm_load_slowdown},
        {"l2_bytes", &TimingParams::l2_bytes},
        {"l2_sectors_per_cycle", &TimingParams::l2_sectors_per_cycle},
        {"l2_request_overhead_sectors", &TimingParams::l2_request_overhead_sectors},
        {"tma_complete_tx_chunk_bytes", &TimingParams::tma_complete_tx_chunk_bytes},
        {"smem_port_bytes_per_cycle", &TimingParams::smem_port_bytes_per_cycle},
        {"compute_base_cycles", &TimingParams::compute_base_cycles},
        {"compute_cycles_per_element", &TimingParams::compute_cycles_per_element},
        {"bulk_commit_cycles", &TimingParams::bulk_commit_cycles},
        {"bulk_wait_resume_cycles", &TimingParams::bulk_wait_resume_cycles},
        {"shared_access_cycles", &TimingParams::shared_access_cycles},
        {"shared_wavefront_cycles", &TimingParams::shared_wavefront_cycles},
        {"snapshot_vector_cycles", &TimingParams::snapshot_vector_cycles},
        {"global_load_l2_cycles", &TimingParams::global_load_l2_cycles},
        {"global_load_hbm_cycles", &TimingParams::global_load_hbm_cycles},
        {"global_load_first_line_cycles", &TimingParams::global_load_first_line_cycles},
        {"global_load_first_access_cycles", &TimingParams::global_load_first_access_cycles},
        {"global_store_cycles", &TimingParams::global_store_cycles},
        {"cp_async_issue_cycles", &TimingParams::cp_async_issue_cycles},
        {"cp_async_arrive_cycles", &TimingParams::cp_async_arrive_cycles},
        {"cp_async_latency_l2_cycles", &TimingParams::cp_async_latency_l2_cycles},
        {"cp_async_latency_hbm_cycles", &TimingParams::cp_async_latency_hbm_cycles},
        {"cp_async_wait_resume_cycles", &TimingParams::cp_async_wait_resume_cycles},
        {"prefetch_issue_cycles", &TimingParams::prefetch_issue_cycles},
        {"dsmem_load_cycles", &TimingParams::dsmem_load_cycles},
        {"dsmem_load_wavefront_cycles", &TimingParams::dsmem_load_wavefront_cycles},
        {"dsmem_store_cycles", &TimingParams::dsmem_store_cycles},
        {"dsmem_latency_cycles", &TimingParams::dsmem_latency_cycles},
        {"cluster_arrive_cycles", &TimingParams::cluster_arrive_cycles},
        {"cluster_barrier_cycles", &TimingParams::cluster_barrier_cycles},
        {"cluster_release_cycles", &TimingParams::cluster_release_cycles},
        {"wgmma_issue_cycles", &TimingParams::wgmma_issue_cycles},
        {"wgmma_flops_per_cycle", &TimingParams::wgmma_flops_per_cycle},
        {"wgmma_latency_cycles", &TimingParams::wgmma_latency_cycles},
        {"wgmma_wait_resume_cycles", &TimingParams::wgmma_wait_resume_cycles},
        {"wgmma_commit_cycles", &TimingParams::wgmma_commit_cycles},
        {"wgmma_store_base_cycles", &TimingParams::wgmma_store_base_cycles},
        {"wgmma_store_register_cycles", &TimingParams::wgmma_store_register_cycles},
        {"wgmma_store_queue_wavefronts", &TimingParams::wgmma_store_queue_wavefronts},
        {"tensormap_stage_cycles", &TimingParams::tensormap_stage_cycles},
        {"tensormap_replace_cycles", &TimingParams::tensormap_replace_cycles},
        {"tensormap_cp_fenceproxy_cycles", &TimingParams::tensormap_cp_fenceproxy_cycles},
        {"fence_proxy_tensormap_release_cycles", &TimingParams::fence_proxy_tensormap_release_cycles},
        {"fence_proxy_tensormap_acquire_cycles", &TimingParams::fence_proxy_tensormap_acquire_cycles},
    };
    return table;
}

std::string allowed_params() {
    std::string out;
    for (const auto& e : param_table()) out += (out.empty() ? "" : ", ") + std::string(e.key);
    return out;
}

[[noreturn]] void fail(const std::string& path, const YAML::Node& at, const std::string& key,
                       const std::string& what) {
    const auto m = at.Mark();
    throw std::runtime_error(fmt::format("{}:{}:{}: error: model arch config: {}: {}", path,
                                         m.line + 1, m.column + 1, key, what));
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(fmt::format("model arch config: cannot read {}", path));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string scalar_string(const std::string& path, const YAML::Node& n, const std::string& key) {
    if (!n || !n.IsScalar() || n.Scalar().empty()) fail(path, n, key, "expected a non-empty string");
    return n.Scalar();
}

}  // namespace

ArchConfig ArchConfig::load_file(const std::string& path) {
    const std::string text = read_file(path);
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(fmt::format("{}: error: model arch config: {}", path, e.what()));
    }
    if (!root.IsMap()) fail(path, root, "(top)", "expected a mapping");
    ArchConfig cfg;
    cfg.path_ = path;
    cfg.hash_ = fnv1a64_hex(text.data(), text.size());
    for (const auto& kv : root) {
        const std::string key = kv.first.as<std::string>();
        if (key != "name" && key != "gpu" && key != "sm" && key != "parameters")
            fail(path, kv.first, key, "unknown key; allowed: name, gpu, sm, parameters");
    }
    cfg.name_ = scalar_string(path, root["name"], "name");
    cfg.gpu_ = scalar_string(path, root["gpu"], "gpu");
    cfg.sm_ = scalar_string(path, root["sm"], "sm");
    if (cfg.sm_ != "sm_90" && cfg.sm_ != "sm_100")
        fail(path, root["sm"], "sm", "unknown architecture \"" + cfg.sm_ + "\"; allowed: sm_90, sm_100");
    const YAML::Node params = root["parameters"];
    if (!params || !params.IsMap()) fail(path, root, "parameters", "expected a mapping of {value, source}");

    for (const auto& kv : params) {
        const std::string key = kv.first.as<std::string>();
        const auto& table = param_table();
        auto it = std::find_if(table.begin(), table.end(),
                               [&](const ParamEntry& e) { return key == e.key; });
        if (it == table.end())
            fail(path, kv.first, key, "unknown parameter; allowed: " + allowed_params());
        const YAML::Node& entry = kv.second;
        if (!entry.IsMap()) fail(path, entry, key, "expected {value: X, source: \"...\"}");
        for (const auto& f : entry) {
            const std::string fk = f.first.as<std::string>();
            if (fk != "value" && fk != "source")
                fail(path, f.first, key + "." + fk, "unknown key; allowed: value, source");
        }
        double v = 0;
        try {
            v = entry["value"].as<double>();
        } catch (const YAML::Exception&) {
            fail(path, entry, key + ".value", "expected a number");
        }
        // The tracer's per-op costs may be nothing at all, and so may the share of HBM an SM
        // loses to a busy chip (a fraction below 1) and what passing a guarded op costs (its
        // script measures against the model with it at 0); every other figure is a real time or rate.
        const bool may_be_zero =
            key == "trace_probe_cycles" || key == "trace_in_branch_probe_cycles" || key == "trace_prologue_warp_cycles" ||
            key == "trace_predicate_skip_cycles" || key == "trace_sync_hold_cycles" || key == "hbm_sm_load_slowdown" ||
            key == "elected_tma_load_pass_cycles" || key == "elected_tma_map_first_pass_cycles";
        if (may_be_zero ? !(v >= 0) : !(v > 0))
            fail(path, entry["value"], key + ".value", may_be_zero ? "must be zero or more" : "must be a positive number");
        if (key == "hbm_sm_load_slowdown" && !(v < 1))
            fail(path, entry["value"], key + ".value", "must be below 1 (a share of the SM's rate)");
        cfg.timing_.*(it->field) = v;
        cfg.sources_[key] = scalar_string(path, entry["source"], key + ".source");
    }
    for (const auto& e : param_table())
        if (!cfg.sources_.count(e.key)) fail(path, params, e.key, "missing parameter");
    return cfg;
}

ArchConfig ArchConfig::load_named(const std::string& arch, const std::string& arch_dir) {
    namespace fs = std::filesystem;
    const fs::path file = fs::path(arch_dir) / (arch + ".yaml");
    bool plain_name = !arch.empty() && arch.find('/') == std::string::npos && arch[0] != '.';
    if (!plain_name || !fs::is_regular_file(file)) {
        std::vector<std::string> known;
        if (fs::is_directory(arch_dir))
            for (const auto& f : fs::directory_iterator(arch_dir))
                if (f.path().extension() == ".yaml") known.push_back(f.path().stem().string());
        std::sort(known.begin(), known.end());
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        throw std::runtime_error(fmt::format("model: unknown arch '{}' (no {}); allowed: {}", arch,
                                             file.string(), list));
    }
    ArchConfig cfg = load_file(file.string());
    if (cfg.name_ != arch)
        throw std::runtime_error(fmt::format("{}: error: model arch config: name: '{}' does not match "
                                             "the file name '{}'", file.string(), cfg.name_, arch));
    return cfg;
}

}  // namespace tmasim::model
