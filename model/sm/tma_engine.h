#pragma once
// One CTA's view of its SM's TMA unit. Requests queue in issue order; a port thread
// moves each request's bytes at the configured bandwidth (one at a time: the port is the
// bottleneck), and a landing thread finishes them after the L2 or HBM latency, which
// overlaps between requests. Loads write shared memory and then complete_tx on their
// mbarrier; stores (reduces, scatters) read shared memory on the port (bulk_read_done,
// which wait_group_read observes) and write global memory when they land (bulk_write_done).
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/core/event_log.h"
#include "model/copy/request_bytes.h"
#include "model/copy/tma_request.h"
#include "model/sm/timed_queue.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class TmaEngine : public sc_core::sc_module {
public:
    TmaEngine(sc_core::sc_module_name name, CtaModule& cta);
    SC_HAS_PROCESS(TmaEngine);

    // `fixed_latency` >= 0: the request's L2/HBM latency is already known (a multicast
    // fetched once for every destination), not looked up again.
    void submit(TmaRequest r, int64_t fixed_latency = -1);
    // Notified whenever a store's source was read or its writes landed.
    sc_core::sc_event& progress() { return progress_; }
    void wake_for_abort();

private:
    // A request stays where submit put it, and the queues move its pointer: moved whole (a
    // few hundred bytes) into the port thread's frame, the landing queue and the landing
    // thread's frame, it was written three more times into lines cold at 132 CTAs.
    struct InFlight {
        std::unique_ptr<TmaRequest> req;
        std::vector<uint8_t> payload;  // bytes read at the start (loads) or on the port (stores)
        bool from_init = false;        // a load that lands its bytes from the tensor's init (no payload)
    };
    void port_thread();
    void landing_thread();
    void port_loop();
    void landing_loop();
    void engine_fault(const TmaRequest* active, const std::exception& e);
    bool run_aborted() const;
    std::vector<uint8_t> read_source(const TmaRequest& r);
    void land(InFlight& f);
    // The request's latency; `through_dram` says whether its bytes also pass the chip's
    // shared HBM channel (L2 misses, and writes, which L2 writes back).
    int64_t latency_for(const TmaRequest& r, bool& through_dram);
    RequestBytes bytes_of(const TmaRequest& r);

    CtaModule& cta_;
    std::deque<std::pair<std::unique_ptr<TmaRequest>, int64_t>> queue_;  // request, fixed latency or -1
    TimedQueue<InFlight> landing_;  // equal landing times keep issue order
    // The requests the threads are moving (owned here, so that a fault report made after
    // the thread's frames unwound still reads them), and pointers to them for the reports.
    InFlight port_flight_;
    std::optional<InFlight> landing_flight_;
    // The request each thread is moving, for fault reports.
    const TmaRequest* port_active_ = nullptr;
    const TmaRequest* landing_active_ = nullptr;
    sc_core::sc_event queued_, progress_;
};

}  // namespace tmasim::model
