#include "model/shared_race_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/cta_module.h"
#include "model/hazard_rules.h"
#include "model/op_text.h"

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
    if (!is_write) return;
    if (const BulkStore* s = cta_.bulk_stores().source_race(thread, first, last, cta_.tracker())) {
        const std::string what = fmt::format(
            "{}: thread {} writes {}, the source of {} (thread {}), before a bulk.wait_group_read of that "
            "thread covered the store", op_title(op_), thread, bytes_text(first, last), op_name(s->op), s->issuer);
        cta_.hazard_once(op_, site, "race.store_source_overwrite",
                         HazardRules::message("race.store_source_overwrite", what),
                         {{"buffer", buffer_}, {"thread", std::to_string(thread)},
                          {"store_op", std::to_string(s->op)}, {"first_byte", std::to_string(first - base_)}});
    }
}

}  // namespace tmasim::model
