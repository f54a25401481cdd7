#include "model/sm/shared_race_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/sm/barrier_storage.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"

namespace tmasim::model {

SharedRaceCheck::SharedRaceCheck(CtaModule& cta, const Op& op, std::string buffer, int64_t buffer_base)
    : cta_(cta), op_(op), buffer_(std::move(buffer)), base_(buffer_base) {}

std::string SharedRaceCheck::bytes_text(int64_t first, int64_t last) const {
    return fmt::format("{}[{}..{}]", buffer_, first - base_, last - base_);
}

std::string SharedRaceCheck::op_name(int id) const {
    const Op* o = cta_.run().scenario.find_op(id);
    if (!o) return fmt::format("op #{}", id);
    std::string s = fmt::format("{} op #{}", to_string(o->kind), id);
    if (!o->label.empty()) s += " '" + o->label + "'";
    return s;
}

void SharedRaceCheck::access(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write) {
    const int64_t first = offset, last = offset + bytes - 1;
    const char* verb = is_write ? "writes" : "reads";
    check_live_barrier_bytes(cta_, op_, site, thread, offset, bytes, verb, buffer_, base_);  // A11
    const auto race = cta_.async_writes().check(thread, first, last, cta_.tracker(), cta_.observations());
    if (race) {
        const AsyncWrite& w = race->write;
        std::string via;
        if (w.barrier >= 0) via = fmt::format(", completing on barrier {}", cta_.barriers().at(w.barrier).name);
        const std::string what = fmt::format(
            "{}: thread {} {} {} while {} (thread {}{}) writes {} and the thread has not observed its "
            "completion{}", op_title(op_), thread, verb, bytes_text(first, last), op_name(w.op), w.issuer, via,
            bytes_text(std::max(w.first, first), std::min(w.last, last)), w.landed ? " (the bytes have landed)" : "");
        cta_.hazard_once(op_, site, race->rule, HazardRules::message(race->rule, what),
                         {{"buffer", buffer_}, {"thread", std::to_string(thread)},
                          {"async_op", std::to_string(w.op)}, {"first_byte", std::to_string(first - base_)}});
    }
    if (is_write) pending_reads(site, thread, offset, bytes);
}

void SharedRaceCheck::generic(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write) {
    access(site, thread, offset, bytes, is_write);
    other_threads(site, thread, offset, bytes, is_write);
    if (Cluster* cluster = cluster_of(cta_))
        cluster->generic_access(cta_, op_, site, thread, cluster->rank_of(cta_), buffer_, base_, offset, bytes,
                                is_write);
}

void SharedRaceCheck::cp_async_overwrite(const EventSite& site, int thread, int64_t offset, int64_t bytes) {
    const auto race = cta_.async_writes().check(thread, offset, offset + bytes - 1, cta_.tracker(), cta_.observations());
    if (!race || race->write.kind != AsyncWrite::Kind::cp_async) return;
    const AsyncWrite& w = race->write;
    const int64_t first = std::max(w.first, offset), last = std::min(w.last, offset + bytes - 1);
    const std::string rule = "race.cp_async_waw";
    const std::string what = fmt::format(
        "{}: thread {} copies into {}, which {} (thread {}) still writes: no cp.async wait the thread is ordered "
        "after covers that copy{}", op_title(op_), thread, bytes_text(first, last), op_name(w.op), w.issuer,
        w.landed ? " (its bytes have landed, unobserved)" : "");
    cta_.hazard_once(op_, site, rule, HazardRules::message(rule, what),
                     {{"buffer", buffer_}, {"thread", std::to_string(thread)}, {"other_op", std::to_string(w.op)},
                      {"other_thread", std::to_string(w.issuer)}, {"first_byte", std::to_string(first - base_)},
                      {"last_byte", std::to_string(last - base_)}});
}

void SharedRaceCheck::async_write_issue(const EventSite& site, int thread, int64_t offset, int64_t bytes) {
    check_live_barrier_bytes(cta_, op_, site, thread, offset, bytes, "issues an async write of", buffer_, base_);  // A11
    other_threads(site, thread, offset, bytes, true, false);
}

void SharedRaceCheck::other_threads(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write,
                                    bool record) {
    // An async copy into bytes no generic access touched: no race, and no warp view to take.
    if (!record && cta_.shared_accesses().fill_untouched(offset, bytes)) return;
    if (warp_.warp != thread / 32) warp_ = SharedAccessHistory::view(cta_.tracker(), thread / 32);
    const auto race = cta_.shared_accesses().access(warp_, thread, offset, bytes, is_write, op_.id, record);
    if (!race) return;
    const std::string rule = SharedAccessHistory::rule_of(race->hazard);
    const bool earlier_wrote = race->hazard != SharedHazard::war;
    // Two lanes of one warp (a kernel's: SharedAccessHistory::lanes_apart): a converged warp
    // orders nothing by itself, nor does a .sync.aligned instruction; bar.warp.sync does.
    const bool one_warp = race->thread / 32 == thread / 32;
    const std::string what = fmt::format(
        "{}: thread {} {} {}, which {} (thread {}{}) {} before, and no {}barrier.sync, named barrier, mbarrier phase "
        "or cluster barrier orders the two accesses ({})",
        op_title(op_), thread, !record ? "issues an async write of" : is_write ? "writes" : "reads", bytes_text(race->first, race->last),
        op_name(race->op), race->thread, one_warp ? ", a lane of the same warp" : "", earlier_wrote ? "wrote" : "read",
        one_warp ? "bar.warp.sync (__syncwarp), " : "", hazard_text(race->hazard));
    cta_.hazard_once(op_, site, rule, HazardRules::message(rule, what),
                     {{"buffer", buffer_}, {"thread", std::to_string(thread)},
                      {"other_thread", std::to_string(race->thread)}, {"other_op", std::to_string(race->op)},
                      {"first_byte", std::to_string(race->first - base_)},
                      {"last_byte", std::to_string(race->last - base_)}});
}

void SharedRaceCheck::async_proxy_write(const EventSite& site, int thread, int64_t offset, int64_t bytes) {
    pending_async_writes(site, thread, offset, bytes, false);
    // Over a live barrier's bytes (its init a write) the broken rule is A11's, reported there.
    if (cta_.barriers().live_in(offset, offset + bytes - 1) >= 0) return;
    if (warp_.warp != thread / 32) warp_ = SharedAccessHistory::view(cta_.tracker(), thread / 32);
    const auto u = cta_.shared_accesses().unfenced_before_async_write(cta_.tracker(), warp_, thread, offset, bytes);
    if (!u) return;
    const std::string rule = "proxy.async_write_after_generic";
    const std::string what = fmt::format(
        "{}: thread {} issues an async-proxy write of {}, which {} (thread {}) {} through the generic proxy "
        "before it, and no fence.proxy.async lies on the causality path between the two",
        op_title(op_), thread, bytes_text(u->first, u->last), op_name(u->op), u->thread, u->write ? "wrote" : "read");
    cta_.hazard_once(op_, site, rule, HazardRules::message(rule, what),
                     {{"buffer", buffer_}, {"thread", std::to_string(thread)},
                      {"other_thread", std::to_string(u->thread)}, {"other_op", std::to_string(u->op)},
                      {"first_byte", std::to_string(u->first - base_)},
                      {"last_byte", std::to_string(u->last - base_)}});
}

void SharedRaceCheck::async_proxy_read(const EventSite& site, int thread, int64_t offset, int64_t bytes) {
    pending_async_writes(site, thread, offset, bytes, true);
    check_live_barrier_bytes(cta_, op_, site, thread, offset, bytes, "issues an async read of", buffer_, base_);  // A11
}

void SharedRaceCheck::pending_async_writes(const EventSite& site, int thread, int64_t offset, int64_t bytes,
                                           bool reads) {
    const auto race = cta_.async_writes().check(thread, offset, offset + bytes - 1, cta_.tracker(), cta_.observations());
    if (!race) return;
    const AsyncWrite& w = race->write;
    const int64_t first = std::max(w.first, offset), last = std::min(w.last, offset + bytes - 1);
    const std::string rule = "race.async_overlap";
    const std::string what = fmt::format(
        "{}: thread {} issues an async-proxy {} of {} while {} (thread {}) still writes them, and the thread has "
        "not observed that write's completion{}",
        op_title(op_), thread, reads ? "read" : "write", bytes_text(first, last), op_name(w.op), w.issuer,
        w.landed ? " (its bytes have landed, unobserved)" : "");
    cta_.hazard_once(op_, site, rule, HazardRules::message(rule, what),
                     {{"buffer", buffer_}, {"thread", std::to_string(thread)}, {"other_op", std::to_string(w.op)},
                      {"other_thread", std::to_string(w.issuer)}, {"first_byte", std::to_string(first - base_)},
                      {"last_byte", std::to_string(last - base_)}});
}

void SharedRaceCheck::pending_reads(const EventSite& site, int thread, int64_t offset, int64_t bytes) {
    const PendingReadHit h = cta_.bulk_stores().write_race(thread, offset, offset + bytes - 1, cta_.tracker());
    if (!h.read) return;
    const BulkStore& s = *h.read;
    const bool wgmma = s.reader == BulkStore::Reader::wgmma;
    const std::string rule = wgmma ? "race.wgmma_operand_overwrite" : "race.store_source_overwrite";
    const std::string what =
        wgmma ? fmt::format("{}: thread {} writes {}, an operand {} of warpgroup {} reads, before a "
                            "wgmma.wait_group the thread is ordered after retired it",
                            op_title(op_), thread, bytes_text(h.first, h.last), op_name(s.op), s.group)
              : fmt::format("{}: thread {} writes {}, the source of {} (thread {}), before a bulk.wait_group_read "
                            "of that thread covered the store",
                            op_title(op_), thread, bytes_text(h.first, h.last), op_name(s.op), s.issuer);
    cta_.hazard_once(op_, site, rule, HazardRules::message(rule, what),
                     {{"buffer", buffer_}, {"thread", std::to_string(thread)},
                      {wgmma ? "mma_op" : "store_op", std::to_string(s.op)},
                      {"first_byte", std::to_string(h.first - base_)}, {"last_byte", std::to_string(h.last - base_)}});
}

}  // namespace tmasim::model
