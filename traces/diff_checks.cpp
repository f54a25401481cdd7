#include "traces/diff_checks.h"

#include <algorithm>
#include <exception>
#include <set>
#include <string>

#include <fmt/format.h>

namespace tmasim {
namespace {

bool is_model(const Provenance& p) { return p.backend == "model"; }

// "put[3]:stage[1]" and "stage[0]" -> "stage": snapshots and array instances of one buffer.
std::string buffer_base(const std::string& name) {
    std::string s = name;
    if (auto colon = s.rfind(':'); colon != std::string::npos) s = s.substr(colon + 1);
    if (auto bracket = s.find('['); bracket != std::string::npos) s = s.substr(0, bracket);
    return s;
}

std::string op_text(const Diagnostic& d, const OpNames& names) {
    std::string s = "#" + std::to_string(d.op);
    for (int64_t i : d.iters) s += "[" + std::to_string(i) + "]";
    if (auto it = names.find(d.op); it != names.end() && !it->second.empty()) s += " " + it->second;
    if (auto it = d.detail.find("label"); it != d.detail.end() && !it->second.empty()) s += " (" + it->second + ")";
    return s;
}

}  // namespace

std::string arch_config_for_gpu(const std::string& gpu) {
    // The device's name as the driver reports it: "NVIDIA H200", "NVIDIA H100 80GB HBM3".
    if (gpu.find("H200") != std::string::npos) return "h200";
    if (gpu.find("B200") != std::string::npos) return "b200";
    // h100-sxm models the SXM5 part; a PCIe H100 has other clocks and memory.
    if (gpu.find("H100") != std::string::npos && gpu.find("PCIe") == std::string::npos) return "h100-sxm";
    return "";
}

void classify_races(const RunResult& a, const RunResult& b, const OpNames& names, DiffReport& report) {
    const RunResult* model = is_model(a.provenance) && !is_model(b.provenance)   ? &a
                             : is_model(b.provenance) && !is_model(a.provenance) ? &b
                                                                                 : nullptr;
    const RunResult* device = model == &a ? &b : &a;
    if (model && !sanitizer_tool(*device).empty()) report.hazards = compare_hazards(model->diagnostics, *device, names);
    // A sanitizer's hazard shows the race the model predicts: its bytes may differ too.
    const bool confirmed = model && model->outcome == Outcome::hazard && device->outcome == Outcome::hazard &&
                           !report.hazards.empty();
    if (!model || model->outcome != Outcome::hazard || (device->outcome != Outcome::ok && !confirmed)) return;

    std::set<std::string> seen, shared_raced, global_raced;
    for (const Diagnostic& d : model->diagnostics) {
        if (d.outcome != Outcome::hazard) continue;
        const std::string text = (d.rule.empty() ? "hazard" : d.rule) + " at " + op_text(d, names);
        if (device->outcome == Outcome::ok && seen.insert(text).second) report.races_not_observed.push_back(text);
        if (auto it = d.detail.find("buffer"); it != d.detail.end()) shared_raced.insert(buffer_base(it->second));
        if (auto it = d.detail.find("tensor"); it != d.detail.end()) global_raced.insert(it->second);
    }
    for (MemoryDiff& m : report.memory) {
        const bool raced = m.space == "global" ? global_raced.count(m.name) > 0
                                               : shared_raced.count(buffer_base(m.name)) > 0;
        if (!raced) continue;
        m.race_dependent = true;
        if (m.status == MemoryDiff::Status::differ) m.is_mismatch = false;
    }
}

void check_arch(const Provenance& a, const Provenance& b, DiffReport& report) {
    const Provenance* model = is_model(a) ? &a : is_model(b) ? &b : nullptr;
    const Provenance* device = model == &a ? &b : &a;
    if (!model || is_model(*device) || device->gpu.empty()) return;
    const std::string wanted = arch_config_for_gpu(device->gpu);
    const std::string used = model->model_config.empty() ? model->gpu : model->model_config;
    if (wanted.empty() || used.empty() || wanted == used) return;
    report.arch_warning = fmt::format(
        "the model ran with arch config {} but the {} trace comes from an {} (config {}); timing compares "
        "two different GPUs: rerun the model with --arch {}",
        used, model == &a ? "B" : "A", device->gpu, wanted, wanted);
}

namespace {

int64_t extra_int(const Provenance& p, const char* key) {
    const auto it = p.extra.find(key);
    if (it == p.extra.end()) return -1;
    try {
        return std::stoll(it->second);
    } catch (const std::exception&) {
        return -1;  // a header value that is not a number: no kernel time to compare
    }
}

std::string extra_text(const Provenance& p, const char* key, const char* absent) {
    const auto it = p.extra.find(key);
    return it == p.extra.end() ? absent : it->second;
}

}  // namespace

void check_kernel_spans(const Provenance& a, const Provenance& b, DiffReport& report) {
    report.kernel_span_ns_a = extra_int(a, "kernel_span_ns");
    report.kernel_span_ns_b = extra_int(b, "kernel_span_ns");
    const Provenance* model = is_model(a) ? &a : is_model(b) ? &b : nullptr;
    const Provenance* device = model == &a ? &b : &a;
    if (!model || is_model(*device)) return;
    // Traces from before trace levels: the device timed every op, the model predicted that.
    const std::string predicted = extra_text(*model, "trace_level", "all");
    const std::string ran = extra_text(*device, "trace_level", "all");
    if (predicted == ran) return;
    report.trace_level_warning = fmt::format(
        "the model predicted the kernel at trace level {} but the {} trace was timed at level {}; op times "
        "compare two different kernels: rerun the model with --trace {}",
        predicted, model == &a ? "B" : "A", ran, ran);
}

}  // namespace tmasim
