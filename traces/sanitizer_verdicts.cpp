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

// synccheck's "Barrier error detected. Missing wait." at an arrive-on: the thread arrives on
// an mbarrier again before it has seen the phase of its own earlier arrive-on there complete
// (on an H200 and an H100: after cp.async.mbarrier.arrive in the same phase, and on a barrier
// no thread waits on). PTX asks less: one thread may make several arrive-ons in one phase (the
// examples of cp.async.mbarrier.arrive, 9.7.13.15.15, arrive with it and then directly, and
// 9.7.13.15.7 counts "the arrival of the executing thread OR completion of the asynchronous
// instruction" alike); it asks only that some wait see each phase complete before an
// arrive-on in the next (9.7.13.15.4), the model's mbarrier.unobserved_phase.
bool missing_wait_at_arrive(const Diagnostic& f, const OpNames& names) {
    if (f.rule != "sanitizer.synccheck.barrier" || f.message.find("Missing wait") == std::string::npos) return false;
    const auto it = names.find(f.op);
    return it != names.end() && (starts_with(it->second, "mbarrier.arrive") ||
                                 starts_with(it->second, "cp.async.mbarrier.arrive"));
}

// The model's run stopped (a hang or a fault) before every instance of every op ran.
const Diagnostic* run_stopped(const std::vector<Diagnostic>& model) {
    for (const Diagnostic& d : model)
        if (d.outcome == Outcome::hang || d.outcome == Outcome::fault) return &d;
    return nullptr;
}

// A sanitizer finding no model hazard shares an op with: a model gap, unless it is one of the
// two kinds the header names.
HazardVerdict unmatched_finding(const Diagnostic& f, const std::vector<Diagnostic>& model, const OpNames& names);

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
        case HazardVerdict::Kind::not_ptx_rule: return "not-a-ptx-rule";
        case HazardVerdict::Kind::not_reached: return "not-reached";
    }
    return "?";
}

const char* verdict_head(HazardVerdict::Kind kind) {
    switch (kind) {
        case HazardVerdict::Kind::agree: return "agree, both found it";
        case HazardVerdict::Kind::model_only: return "model only";
        case HazardVerdict::Kind::sanitizer_only: return "SANITIZER ONLY (a model gap)";
        case HazardVerdict::Kind::not_ptx_rule: return "sanitizer only, not a PTX rule";
        case HazardVerdict::Kind::not_reached: return "sanitizer only, not reached by the model";
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
    for (size_t i = 0; i < found.size(); ++i)
        if (!used[i]) verdicts.push_back(unmatched_finding(*found[i], model, names));
    return verdicts;
}

namespace {

HazardVerdict unmatched_finding(const Diagnostic& f, const std::vector<Diagnostic>& model, const OpNames& names) {
    HazardVerdict v;
    v.kind = HazardVerdict::Kind::sanitizer_only;
    v.rule = f.rule;
    v.op = f.op;
    v.where = f.rule + " at " + op_text(f.op, names);
    v.why = f.message;
    if (!missing_wait_at_arrive(f, names)) return v;
    // sanitize_run.cpp says whether some op waits on the barrier: the model exempts a barrier
    // nobody waits on from mbarrier.unobserved_phase, so its silence there proves nothing.
    const auto waited = f.detail.find("barrier_waited");
    const bool exempt = waited != f.detail.end() && waited->second == "0";
    if (const Diagnostic* stop = run_stopped(model)) {
        v.kind = HazardVerdict::Kind::not_reached;
        v.why += fmt::format("; not reached by the model: its run stopped ({} {} at {}) before every instance of "
                             "this op ran, and it checks the wait PTX requires here (some wait sees each phase "
                             "complete before an arrive-on in the next, PTX 9.7.13.15.4: mbarrier.unobserved_phase) "
                             "only on the instances it runs",
                             to_string(stop->outcome), stop->rule, op_text(stop->op, names));
        if (exempt)
            v.why += fmt::format("; and no op waits on barrier {}, which the model exempts from that rule",
                                 f.detail.at("barrier"));
        return v;
    }
    if (exempt) {
        v.why += fmt::format("; a model gap: no op waits on barrier {}, and the model exempts such a barrier from "
                             "mbarrier.unobserved_phase (PTX 9.7.13.15.4 does not)",
                             f.detail.at("barrier"));
        return v;
    }
    v.kind = HazardVerdict::Kind::not_ptx_rule;
    v.why += "; not a PTX rule: synccheck wants the thread to see the phase of its own earlier arrive-on complete "
             "before it arrives again, while PTX lets one thread arrive several times in a phase (the "
             "cp.async.mbarrier.arrive examples, PTX 9.7.13.15.15) and asks only that some wait see each phase "
             "complete before an arrive-on in the next (PTX 9.7.13.15.4), which the model checked at every instance "
             "of this op (no mbarrier.unobserved_phase); docs/semantics.md H41";
    return v;
}

}  // namespace

void HazardCounts::add(const std::vector<HazardVerdict>& verdicts) {
    for (const HazardVerdict& v : verdicts) {
        if (v.kind == HazardVerdict::Kind::agree) ++agree;
        if (v.kind == HazardVerdict::Kind::model_only) ++model_only;
        if (v.kind == HazardVerdict::Kind::sanitizer_only) ++sanitizer_only;
        if (v.kind == HazardVerdict::Kind::not_ptx_rule) ++not_ptx_rule;
        if (v.kind == HazardVerdict::Kind::not_reached) ++not_reached;
    }
}

std::string counts_line(const HazardCounts& c) {
    std::string line =
        fmt::format("agree: {}, model-only: {}, sanitizer-only: {}", c.agree, c.model_only, c.sanitizer_only);
    if (c.not_ptx_rule > 0 || c.not_reached > 0)
        line += fmt::format(", not a PTX rule: {}, not reached by the model: {}", c.not_ptx_rule, c.not_reached);
    return line;
}

}  // namespace tmasim
