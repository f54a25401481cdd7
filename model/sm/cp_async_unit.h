#pragma once
// One CTA's cp.async (LDGSTS) traffic in time. A warp's cp.async op becomes one batch
// of per-thread copies that land together after the L2 or HBM latency; each landing
// writes shared memory as a generic write of the thread's cp.async agent (semantics.md
// B11, B14) and marks the copies landed for cp.async.wait_group. A
// cp.async.mbarrier.arrive becomes an asynchronous arrive that fires once all of the
// thread's earlier copies have landed (C20).
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/core/event_log.h"
#include "model/sm/timed_queue.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

struct CpAsyncCopy {
    int thread = 0;
    int64_t smem_offset = 0;
    std::vector<uint8_t> payload;  // cp-size bytes: src-size from global, zeros after
    int token = -1;                // CpAsyncGroups
    int write_id = -1;             // AsyncWriteRegistry
    uint32_t cluster_time = 0;     // in a cluster: its cp.async agent's ClusterClock time at issue
};

class CpAsyncUnit : public sc_core::sc_module {
public:
    CpAsyncUnit(sc_core::sc_module_name name, CtaModule& cta);
    SC_HAS_PROCESS(CpAsyncUnit);

    // One warp's copies of one op, landing `latency` cycles from now.
    void submit(const Op& op, const EventSite& site, std::vector<CpAsyncCopy> copies, int64_t latency);
    // `thread`'s asynchronous arrive on `barrier`, after its copies issued so far land.
    void submit_arrive(const Op& op, const EventSite& site, int thread, int barrier);
    // Notified whenever copies land (group waits re-check).
    sc_core::sc_event& progress() { return progress_; }
    void wake_for_abort();

private:
    struct Item {
        const Op* op = nullptr;
        EventSite site;
        std::vector<CpAsyncCopy> copies;  // empty for an arrive
        int arrive_thread = -1;
        int barrier = -1;
    };
    void landing_thread();
    void land(Item& item);

    CtaModule& cta_;
    TimedQueue<Item> landing_;
    std::map<int, int64_t> token_time_;  // copy token -> landing time
    sc_core::sc_event progress_;
};

}  // namespace tmasim::model
