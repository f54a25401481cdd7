#include "traces/trace_links.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace tmasim {
namespace {

using ExecId = std::tuple<int, std::vector<int64_t>, int, int, int>;  // op, iters, cta, warp, lane

ExecId exec_of(const TraceEvent& e) { return {e.op, e.iters, e.cta, e.warp, e.lane}; }

bool is_copy_event(const std::string& what) {
    return what == "tma_start" || what == "bytes_landed" || what == "complete_tx" || what == "bulk_read_done";
}

int64_t detail_int(const TraceEvent& e, const std::string& key, int64_t fallback) {
    auto it = e.detail.find(key);
    if (it == e.detail.end()) return fallback;
    try {
        return std::stoll(it->second);
    } catch (const std::exception&) {
        return fallback;  // a detail is text; a value that is no number is no sample
    }
}

bool is_mbarrier_wait(const OpNames& names, int op) {
    auto it = names.find(op);
    return it != names.end() && it->second.rfind("mbarrier.", 0) == 0 &&
           it->second.find("wait") != std::string::npos;
}

}  // namespace

std::string op_label(const TraceEvent& e, const OpNames& names) {
    auto it = names.find(e.op);
    std::string s = it == names.end() || it->second.empty() ? "op" : it->second;
    s += " #" + std::to_string(e.op);
    for (int64_t i : e.iters) s += "[" + std::to_string(i) + "]";
    return s;
}

namespace {

void collect_waits(const std::vector<Op>& ops, std::vector<std::string>& vars,
                   std::map<int, std::pair<const Op*, std::vector<std::string>>>& out) {
    for (const Op& op : ops) {
        if (op.kind == OpKind::loop) {
            vars.push_back(op.var);
            collect_waits(op.body, vars, out);
            vars.pop_back();
        } else if (!op.barrier.empty() && !op.parity.empty()) {
            out[op.id] = {&op, vars};
        }
    }
}

}  // namespace

WaitTargets wait_targets_of(const Scenario& scenario, const RunResult& r) {
    std::map<int, std::pair<const Op*, std::vector<std::string>>> waits;
    std::vector<std::string> vars;
    collect_waits(scenario.program, vars, waits);
    WaitTargets targets;
    for (const TraceEvent& e : r.events) {
        auto it = waits.find(e.op);
        if (it == waits.end() || e.kind != EventKind::wait_end || targets.count({e.op, e.iters})) continue;
        const auto& [op, loop_vars] = it->second;
        if (loop_vars.size() != e.iters.size()) continue;
        Expr::IntEnv env;
        for (size_t i = 0; i < loop_vars.size(); ++i) env[loop_vars[i]] = e.iters[i];
        try {
            std::string barrier = op->barrier.name;
            if (!op->barrier.index.empty()) barrier += "[" + std::to_string(op->barrier.index.eval_int(env)) + "]";
            targets[{e.op, e.iters}] = {barrier, op->parity.eval_int(env) & 1};
        } catch (const std::exception&) {
            // Per-thread expressions (tid, warp): no single target; the time rule links it.
        }
    }
    return targets;
}

TraceLinks link_trace(const RunResult& r, const OpNames& names, const WaitTargets* targets) {
    TraceLinks links;
    std::map<ExecId, const TraceEvent*> issues, wait_begins;
    std::map<ExecId, CopyFlight> copies;
    std::vector<const TraceEvent*> wait_ends;
    std::map<std::pair<int, std::string>, int64_t> phases;  // completed so far
    for (const TraceEvent* e : events_in_trace_order(r)) {
        if (!e->model_only) {
            if (e->kind == EventKind::issue) issues.emplace(exec_of(*e), e);
            if (e->kind == EventKind::wait_begin) wait_begins[exec_of(*e)] = e;
            if (e->kind == EventKind::wait_end && is_mbarrier_wait(names, e->op)) wait_ends.push_back(e);
            continue;
        }
        if (is_copy_event(e->what)) {
            CopyFlight& c = copies[exec_of(*e)];
            if (!c.first || e->t < c.first->t) c.first = e;
            c.end = std::max(c.end, e->t);
            if (e->what == "complete_tx") c.complete_tx.push_back(e);
        }
        if (e->what == "complete_tx" || e->what == "phase_flip") {
            const auto key = std::make_pair(e->cta, e->detail.count("barrier") ? e->detail.at("barrier") : "?");
            if (e->what == "phase_flip") {
                PhaseFlip f;
                f.event = e;
                f.barrier = key.second;
                f.phase = detail_int(*e, "phase", phases[key]);
                links.flips.push_back(f);
                phases[key] = f.phase + 1;
            }
            const int64_t tx = detail_int(*e, "tx_count", 0);
            const int64_t landed = e->what == "complete_tx" ? detail_int(*e, "bytes", 0) : 0;
            links.barriers[key].push_back({e->t, tx + landed, tx, phases[key]});
        }
    }
    std::stable_sort(links.flips.begin(), links.flips.end(),
                     [](const PhaseFlip& a, const PhaseFlip& b) { return a.event->t < b.event->t; });

    // Each CTA's flips (indexes into links.flips, so in time order): a wait looks only at its
    // own CTA's, from the last one not after it. Scanning every flip of the chip for every
    // wait was quadratic (17k flips, 67k waits at 132 CTAs).
    std::map<int, std::vector<size_t>> flips_of_cta;
    for (size_t i = 0; i < links.flips.size(); ++i) flips_of_cta[links.flips[i].event->cta].push_back(i);
    static const std::vector<size_t> no_flips;
    for (const TraceEvent* end : wait_ends) {
        const auto cta_flips = flips_of_cta.find(end->cta);
        const std::vector<size_t>& own = cta_flips == flips_of_cta.end() ? no_flips : cta_flips->second;
        // Past the flips after the wait returned: own[0, until) happened at or before it.
        const size_t until = static_cast<size_t>(
            std::upper_bound(own.begin(), own.end(), end->t,
                             [&](int64_t t, size_t i) { return t < links.flips[i].event->t; }) -
            own.begin());
        // Known target: the last flip of that barrier phase parity before the wait returned.
        auto target = targets ? targets->find({end->op, end->iters}) : WaitTargets::const_iterator();
        if (targets && target != targets->end()) {
            for (size_t k = until; k-- > 0;) {
                PhaseFlip& f = links.flips[own[k]];
                if (f.barrier != target->second.first || (f.phase & 1) != target->second.second) continue;
                f.released.push_back(end);
                break;
            }
            continue;
        }
        // Otherwise: released by the last flip of its CTA while it was blocked.
        auto begin = wait_begins.find(exec_of(*end));
        const int64_t from = begin == wait_begins.end() ? end->t : begin->second->t;
        if (until > 0 && links.flips[own[until - 1]].event->t >= from)
            links.flips[own[until - 1]].released.push_back(end);
    }

    // The flips each copy's own transactions caused: logged at its exec, on its barriers.
    std::map<ExecId, std::vector<size_t>> flips_of_exec;
    for (size_t i = 0; i < links.flips.size(); ++i) flips_of_exec[exec_of(*links.flips[i].event)].push_back(i);
    for (auto& [id, c] : copies) {
        auto issue = issues.find(id);
        c.issue = issue == issues.end() ? nullptr : issue->second;
        c.start = c.issue ? std::min(c.issue->t, c.first->t) : c.first->t;
        auto own = flips_of_exec.find(id);
        if (own != flips_of_exec.end()) c.flips = own->second;
        links.copies.push_back(std::move(c));
    }
    std::stable_sort(links.copies.begin(), links.copies.end(),
                     [](const CopyFlight& a, const CopyFlight& b) { return a.start < b.start; });
    return links;
}

}  // namespace tmasim
