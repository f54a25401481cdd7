#include "traces/sanitizer_verdicts.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace tmasim {
namespace {

const char* const kAsyncProxy =
    "the async proxy: TMA and bulk copies complete through mbarrier transactions and proxy fences, "
    "which racecheck does not model";
const char* const kTxCounts = "mbarrier phases and transaction counts";
const char* const kTensorMaps = "tensor maps and their release/acquire";
const char* const kGlobal = "global memory: racecheck checks shared memory only";
const char* const kWgmma = "wgmma's asynchronous operand reads and accumulators (synccheck checks only the "
                           "warpgroup's instruction sequence)";
const char* const kOperands = "TMA and bulk operand rules (alignment, coordinates): the GPU traps or accepts them";
const char* const kCluster = "cluster mbarriers, multicast masks and st.async's barrier";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<int> ops_of(const Diagnostic& d) {
    std::vector<int> ops;
    auto it = d.detail.find("ops");
    if (it == d.detail.end()) return ops;
    std::stringstream in(it->second);
    // "3|5": the access is one of these ops (a wrapper more ops call).
    for (std::string item; std::getline(in, item, ',');) {
        std::stringstream alternatives(item);
        for (std::string op; std::getline(alternatives, op, '|');) {
            // A trace's detail is free text: anything but a small number is "unmapped".
            const bool number = !op.empty() && op.size() < 9 && op.find_first_not_of("0123456789") == std::string::npos;
            ops.push_back(number ? std::stoi(op) : -1);
        }
    }
    return ops;
}

std::string op_text(int op, const OpNames& names) {
    if (op < 0) return "an op the report does not name";
    std::string s = "#" + std::to_string(op);
    if (auto it = names.find(op); it != names.end() && !it->second.empty()) s += " " + it->second;
    return s;
}

}  // namespace

SanitizerCoverage sanitizer_coverage(const std::string& rule) {
    // What racecheck tracks (the user guide): generic shared-memory accesses, cp.async copies
    // read before their commit/wait, and remote shared memory touched outside the cluster
    // barrier (a block not entered yet, or exited).
    static const std::set<std::string> racecheck = {
        "race.shared_raw",   "race.shared_war",       "race.shared_waw",     "race.cp_async_waw",
        "race.cp_async_pending", "race.cp_async_unwaited", "race.dsmem_unsynced", "cluster.peer_exited"};
    if (racecheck.count(rule)) return {"racecheck", ""};
    if (rule == "proxy.generic_to_async" || rule == "proxy.async_write_after_generic" ||
        rule == "race.read_before_complete" || rule == "race.store_source_overwrite" || rule == "race.early_pass" ||
        rule == "race.async_overlap")
        return {"", kAsyncProxy};
    if (starts_with(rule, "race.global_")) return {"", kGlobal};
    if (starts_with(rule, "tensormap.") || starts_with(rule, "race.tensormap_")) return {"", kTensorMaps};
    if (starts_with(rule, "wgmma.") || rule == "race.wgmma_operand_overwrite") return {"", kWgmma};
    if (rule == "mbarrier.remote_before_init_published" || starts_with(rule, "cluster.") ||
        starts_with(rule, "multicast.") || starts_with(rule, "st_async."))
        return {"", kCluster};
    if (starts_with(rule, "mbarrier.")) return {"", kTxCounts};
    if (starts_with(rule, "bulk.") || starts_with(rule, "tma.")) return {"", kOperands};
    return {"", "a rule outside the sanitizer's classes"};
}

std::string to_string(HazardVerdict::Kind kind) {
    switch (kind) {
        case HazardVerdict::Kind::agree: return "agree";
        case HazardVerdict::Kind::model_only: return "model-only";
        case HazardVerdict::Kind::sanitizer_only: return "sanitizer-only";
    }
    return "?";
}

std::string sanitizer_tool(const RunResult& run) {
    auto it = run.provenance.extra.find("sanitizer");
    return it == run.provenance.extra.end() ? "" : it->second;
}

bool compared_finding(const Diagnostic& d) {
    return starts_with(d.rule, "sanitizer.") && d.detail.count("executor_code") == 0 &&
           d.detail.count("outside_tool") == 0;
}

std::vector<HazardVerdict> compare_hazards(const std::vector<Diagnostic>& model, const RunResult& device,
                                           const OpNames& names) {
    const std::string tool = sanitizer_tool(device);
    std::vector<const Diagnostic*> found;
    for (const Diagnostic& d : device.diagnostics)
        if (compared_finding(d)) found.push_back(&d);
    std::vector<bool> used(found.size(), false);

    std::vector<HazardVerdict> verdicts;
    std::set<std::pair<std::string, int>> seen;
    for (const Diagnostic& d : model) {
        if (d.outcome != Outcome::hazard || !seen.insert({d.rule, d.op}).second) continue;
        HazardVerdict v;
        v.rule = d.rule;
        v.op = d.op;
        v.where = (d.rule.empty() ? std::string("hazard") : d.rule) + " at " + op_text(d.op, names);
        // The same op in one of the sanitizer's accesses (or, when the model names no op, any
        // finding of the tool that covers the rule).
        const SanitizerCoverage cover = sanitizer_coverage(d.rule);
        for (size_t i = 0; i < found.size(); ++i) {
            const std::vector<int> ops = ops_of(*found[i]);
            const bool same_op = d.op >= 0 ? std::find(ops.begin(), ops.end(), d.op) != ops.end() : cover.tool == tool;
            if (!same_op) continue;
            if (v.why.empty()) v.why = found[i]->message;
            used[i] = true;
        }
        if (!v.why.empty()) {
            v.kind = HazardVerdict::Kind::agree;
        } else {
            v.kind = HazardVerdict::Kind::model_only;
            v.why = !cover.tool.empty() && cover.tool != tool
                        ? cover.tool + " can see it; this run used " + tool
                    : !cover.tool.empty() ? tool + " can see this class and reported nothing at this op"
                                          : tool + " cannot see " + cover.blind_to;
        }
        verdicts.push_back(v);
    }
    for (size_t i = 0; i < found.size(); ++i) {
        if (used[i]) continue;
        HazardVerdict v;
        v.kind = HazardVerdict::Kind::sanitizer_only;
        v.rule = found[i]->rule;
        v.op = found[i]->op;
        v.where = found[i]->rule + " at " + op_text(found[i]->op, names);
        v.why = found[i]->message;
        verdicts.push_back(v);
    }
    return verdicts;
}

void HazardCounts::add(const std::vector<HazardVerdict>& verdicts) {
    for (const HazardVerdict& v : verdicts) {
        if (v.kind == HazardVerdict::Kind::agree) ++agree;
        if (v.kind == HazardVerdict::Kind::model_only) ++model_only;
        if (v.kind == HazardVerdict::Kind::sanitizer_only) ++sanitizer_only;
    }
}

std::string counts_line(const HazardCounts& c) {
    return fmt::format("agree: {}, model-only: {}, sanitizer-only: {}", c.agree, c.model_only, c.sanitizer_only);
}

}  // namespace tmasim
