#include "model/sm/cp_async_unit.h"

#include <algorithm>

#include "model/core/asan_stacks.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/core/sim_time.h"

namespace tmasim::model {

CpAsyncUnit::CpAsyncUnit(sc_core::sc_module_name name, CtaModule& cta) : sc_core::sc_module(name), cta_(cta) {
    SC_THREAD(landing_thread);
}

void CpAsyncUnit::submit(const Op& op, const EventSite& site, std::vector<CpAsyncCopy> copies, int64_t latency) {
    const int64_t at = now_cycles() + latency;
    for (const CpAsyncCopy& c : copies) token_time_[c.token] = at;
    Item item{&op, site, std::move(copies), -1, -1};
    landing_.push(at, std::move(item));
}

void CpAsyncUnit::submit_arrive(const Op& op, const EventSite& site, int thread, int barrier) {
    // The arrive tracks every copy the thread issued before it (PTX 9.7.9.25.3.3).
    if (Cluster* c = cluster_of(cta_)) c->cp_async_arrive_issued(cta_, thread);
    int64_t at = now_cycles();
    for (int token : cta_.cp_groups().outstanding(thread)) at = std::max(at, token_time_.at(token));
    Item item{&op, site, {}, thread, barrier};
    landing_.push(at, std::move(item));
}

void CpAsyncUnit::wake_for_abort() {
    landing_.wake();
    progress_.notify(sc_core::SC_ZERO_TIME);
}

void CpAsyncUnit::landing_thread() {
    CoroutineStackScope stack(default_thread_stack_bytes());
    const Op* active = nullptr;
    EventSite active_site;
    try {
        for (;;) {
            std::optional<Item> next = landing_.next_due([this] { return cta_.run().aborted; });
            if (!next) return;
            Item& item = *next;
            active = item.op;
            active_site = item.site;
            land(item);
            active = nullptr;
        }
    } catch (const std::exception& e) {
        if (active) cta_.fault(*active, active_site, e.what());
    }
}

void CpAsyncUnit::land(Item& item) {
    if (item.arrive_thread >= 0) {
        cta_.barrier_action(item.barrier, CtaModule::BarrierAction::async_arrive, 1, item.arrive_thread,
                            *item.op, item.site);
        return;
    }
    ProxyTracker& tracker = cta_.tracker();
    int64_t bytes = 0;
    for (CpAsyncCopy& c : item.copies) {
        std::copy(c.payload.begin(), c.payload.end(), cta_.smem().begin() + c.smem_offset);
        bytes += static_cast<int64_t>(c.payload.size());
        // The copy is a generic write, made by the thread's cp.async agent (B11, B14).
        const int agent = tracker.cp_agent(c.thread);
        tracker.generic_write(agent, c.smem_offset, static_cast<int64_t>(c.payload.size()), item.op->id);
        const uint32_t t = tracker.time_of(agent);
        cta_.async_writes().landed(c.write_id, t);
        cta_.cp_groups().mark_landed(c.token, t);
        if (Cluster* cl = cluster_of(cta_))
            cl->cp_async_landed(cta_, c.thread, item.op->id, c.cluster_time, c.smem_offset,
                                static_cast<int64_t>(c.payload.size()));
    }
    cta_.run().log.add_model_only(item.site, "bytes_landed", now_cycles(),
                                  {{"bytes", std::to_string(bytes)}, {"copies", std::to_string(item.copies.size())}});
    progress_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tmasim::model
