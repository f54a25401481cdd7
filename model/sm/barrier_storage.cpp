#include "model/sm/barrier_storage.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/sm/cta_module.h"

namespace tmasim::model {
namespace {

std::string op_name(CtaModule& cta, int id) {
    const Op* o = cta.run().scenario.find_op(id);
    if (!o) return fmt::format("op #{}", id);
    std::string s = fmt::format("{} op #{}", to_string(o->kind), id);
    if (!o->label.empty()) s += " '" + o->label + "'";
    return s;
}

// "bar (stage[1] bytes 0..7)" for a program's view, the slot's own name otherwise.
std::string barrier_text(CtaModule& cta, const BarrierSlot& b) {
    for (const BarrierDecl& d : cta.run().scenario.barriers)
        if (d.name == b.decl && d.is_view()) {
            const int64_t at = b.smem_offset - cta.run().layout.offset_of(d.at_buffer, d.at_index);
            const SharedBuffer* buf = cta.run().scenario.find_shared(d.at_buffer);
            const std::string elem = buf && buf->array ? fmt::format("{}[{}]", d.at_buffer, d.at_index) : d.at_buffer;
            return fmt::format("{} ({} bytes {}..{})", b.name, elem, at, at + 7);
        }
    return b.name;
}

void report_init(CtaModule& cta, const Op& op, const EventSite& site, const BarrierSlot& b, int thread,
                 const std::string& why, std::map<std::string, std::string> detail) {
    const std::string rule = "mbarrier.init_over_data";
    const std::string what = fmt::format("{}: thread {} initialises barrier {} over bytes {}", op_title(op), thread,
                                         barrier_text(cta, b), why);
    detail["barrier"] = b.name;
    detail["thread"] = std::to_string(thread);
    cta.hazard_once(op, site, rule, HazardRules::message(rule, what), std::move(detail));
}

}  // namespace

void check_live_barrier_bytes(CtaModule& cta, const Op& op, const EventSite& site, int thread, int64_t offset,
                              int64_t bytes, const char* how, const std::string& buffer, int64_t base,
                              CtaModule* owner) {
    CtaModule& held = owner ? *owner : cta;
    const int b = held.barriers().live_in(offset, offset + bytes - 1);
    if (b < 0) return;
    const BarrierSlot& slot = held.barriers().at(b);
    const std::string rule = "mbarrier.live_bytes_access";
    const std::string where = &held == &cta ? std::string() : fmt::format(" of CTA {}", held.index());
    const std::string what =
        fmt::format("{}: thread {} {} {}[{}..{}]{}, which holds live barrier {} (initialised, not yet "
                    "invalidated)", op_title(op), thread, how, buffer, offset - base, offset + bytes - 1 - base,
                    where, barrier_text(held, slot));
    cta.hazard_once(op, site, rule, HazardRules::message(rule, what),
                    {{"barrier", slot.name}, {"thread", std::to_string(thread)},
                     {"buffer", buffer}, {"first_byte", std::to_string(offset - base)},
                     {"last_byte", std::to_string(offset + bytes - 1 - base)}});
}

void check_init_storage(CtaModule& cta, int barrier, int thread, const Op& op, const EventSite& site) {
    const BarrierSlot& b = cta.barriers().at(barrier);
    if (b.smem_offset < 0) return;
    const int64_t first = b.smem_offset, last = first + 7;
    // An async copy still writing the word, not known complete to the initialising thread:
    // its landing would overwrite the barrier, or the init its data.
    if (const auto race = cta.async_writes().check(thread, first, last, cta.tracker(), cta.observations())) {
        const AsyncWrite& w = race->write;
        report_init(cta, op, site, b, thread,
                    fmt::format("that {} (thread {}) still writes: no wait the thread is ordered after shows it "
                                "complete{}", op_name(cta, w.op), w.issuer, w.landed ? " (its bytes have landed)" : ""),
                    {{"async_op", std::to_string(w.op)}});
        return;
    }
    // An async read (a bulk/TMA store's source, a wgmma operand) still reading the word.
    const PendingReadHit h = cta.bulk_stores().write_race(thread, first, last, cta.tracker());
    if (h.read) {
        const bool wgmma = h.read->reader == BulkStore::Reader::wgmma;
        report_init(cta, op, site, b, thread,
                    fmt::format("that {} still reads: {}", op_name(cta, h.read->op),
                                wgmma ? "no wgmma.wait_group the thread is ordered after retired it"
                                      : "no bulk.wait_group_read the thread is ordered after covers it"),
                    {{"async_op", std::to_string(h.read->op)}});
        return;
    }
    // Another warp's generic use of the bytes as data, not ordered before the init. The init
    // is recorded as a write, so a use after a later inval must be ordered after it too.
    const auto view = SharedAccessHistory::view(cta.tracker(), thread / 32);
    if (const auto race = cta.shared_accesses().access(view, thread, first, 8, true, op.id, true))
        report_init(cta, op, site, b, thread,
                    fmt::format("{}..{} that {} (thread {}) {} and no barrier.sync, named barrier, mbarrier phase or "
                                "cluster barrier orders before the init", race->first, race->last,
                                op_name(cta, race->op), race->thread,
                                race->hazard == SharedHazard::war ? "read" : "wrote"),
                    {{"other_op", std::to_string(race->op)}, {"other_thread", std::to_string(race->thread)}});
}

void note_inval_storage(CtaModule& cta, int barrier, int thread, const Op& op) {
    const BarrierSlot& b = cta.barriers().at(barrier);
    if (b.smem_offset < 0) return;
    const auto view = SharedAccessHistory::view(cta.tracker(), thread / 32);
    cta.shared_accesses().access(view, thread, b.smem_offset, 8, true, op.id, true);
}

}  // namespace tmasim::model
