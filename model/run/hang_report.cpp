#include "model/run/hang_report.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/state/proxy_tracker.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

namespace {

Diagnostic barrier_hang(const CtaModule& cta, const BlockedAt& b, const std::vector<int>& warps) {
    const BarrierSlot& slot = cta.barriers().at(b.barrier);
    const Mbarrier& m = slot.state;
    Diagnostic d;
    d.outcome = Outcome::hang;
    d.rule = m.tx_count() != 0 ? "mbarrier.tx_mismatch" : "mbarrier.pending_arrivals";
    d.op = b.op->id;
    d.iters = b.iters;
    d.cta = cta.index();
    d.message = fmt::format(
        "hang at {}: barrier {} phase {} never completes: expected {} bytes, delivered {} "
        "(tx-count {}), {} arrivals pending; warps {} wait on parity {} {}",
        op_title(*b.op), slot.name, m.phase(), m.expected_bytes(), m.delivered_bytes(),
        m.tx_count(), m.pending(), format_id_ranges(warps), b.parity, HazardRules::cite(d.rule));
    d.detail = {{"barrier", slot.name},
                {"phase", std::to_string(m.phase())},
                {"parity", std::to_string(b.parity)},
                {"expected_bytes", std::to_string(m.expected_bytes())},
                {"delivered_bytes", std::to_string(m.delivered_bytes())},
                {"tx_count", std::to_string(m.tx_count())},
                {"pending_arrivals", std::to_string(m.pending())},
                {"expected_arrivals", std::to_string(m.expected())},
                {"warps", format_id_ranges(warps)}};
    if (!b.op->label.empty()) d.detail["label"] = b.op->label;
    return d;
}

Diagnostic other_hang(const CtaModule& cta, const BlockedAt& b, const std::vector<int>& warps) {
    Diagnostic d;
    d.outcome = Outcome::hang;
    d.rule = b.kind == BlockedAt::Kind::sync            ? "sync.deadlock"
             : b.kind == BlockedAt::Kind::cp_async_wait ? "cp_async.wait_deadlock"
                                                        : "bulk.wait_deadlock";
    d.op = b.op ? b.op->id : -1;
    d.iters = b.iters;
    d.cta = cta.index();
    d.message = fmt::format("hang at {}: warps {} never pass it", b.op ? op_title(*b.op) : "?",
                            format_id_ranges(warps));
    d.detail = {{"warps", format_id_ranges(warps)}};
    if (b.op && b.op->kind == OpKind::bar_sync) {
        // A named barrier: how far its phase got says which warps are missing.
        const NamedBarriers& n = cta.named_barriers();
        d.message += fmt::format(" (named barrier {}: {} of {} threads arrived)", b.barrier, n.arrived(b.barrier),
                                 n.expected(b.barrier));
        d.detail["named_barrier"] = std::to_string(b.barrier);
        d.detail["arrived_threads"] = std::to_string(n.arrived(b.barrier));
        d.detail["expected_threads"] = std::to_string(n.expected(b.barrier));
    }
    return d;
}

}  // namespace

std::vector<Diagnostic> HangReport::describe(const CtaModule& cta) {
    // Group blocked warps by what they wait on, keeping first-seen (warp) order.
    using Key = std::tuple<int, int, std::vector<int64_t>, int>;  // kind, op, iters, barrier
    std::vector<Key> order;
    std::map<Key, std::pair<BlockedAt, std::vector<int>>> groups;
    for (const auto& w : cta.warps()) {
        if (w->finished()) continue;
        const BlockedAt& b = w->blocked();
        Key k{static_cast<int>(b.kind), b.op ? b.op->id : -1, b.iters, b.barrier};
        if (!groups.count(k)) order.push_back(k);
        auto& g = groups[k];
        g.first = b;
        g.second.push_back(w->warp());
    }
    std::vector<Diagnostic> mbarrier, other;
    for (const Key& k : order) {
        const auto& [b, warps] = groups[k];
        if (b.kind == BlockedAt::Kind::mbarrier_wait)
            mbarrier.push_back(barrier_hang(cta, b, warps));
        else
            other.push_back(other_hang(cta, b, warps));
    }
    return mbarrier.empty() ? other : mbarrier;
}

}  // namespace tmasim::model
