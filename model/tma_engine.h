#pragma once
// One CTA's view of its SM's TMA unit. Requests queue in issue order; a port thread
// moves each request's bytes at the configured bandwidth (one at a time: the port is the
// bottleneck), and a landing thread finishes them after the L2 or HBM latency, which
// overlaps between requests. Loads write shared memory and then complete_tx on their
// mbarrier; stores read shared memory on the port (bulk_read_done, which
// wait_group_read observes) and write global memory when they land (bulk_write_done).
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/event_log.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

struct TmaRequest {
    // Prefetches move no bytes into shared memory: they only warm the L2 lines (the
    // model's residency), taking port time like a load of the same size.
    enum class Kind { tensor_load, tensor_store, bulk_load, bulk_store, tensor_prefetch, bulk_prefetch };
    Kind kind = Kind::tensor_load;
    const Op* op = nullptr;         // the issuing op
    EventSite site;                 // the issuing op instance and thread
    int thread = 0;
    const TensorMap* map = nullptr; // tensor ops
    std::string tensor;             // global tensor name
    std::vector<int64_t> coords;    // tensor ops, outermost first
    int64_t global_offset = 0;      // bulk ops, bytes
    int64_t smem_offset = 0;        // bytes from the CTA's shared-memory base
    int64_t bytes = 0;
    int barrier = -1;               // loads
    int bulk_token = -1;            // stores
    // Loads land and credit their barrier in chunks (tma_complete_tx_chunk_bytes): a
    // phase can complete on part of a copy when the expected bytes are fewer than the
    // box, as on the hardware; the rest counts against the next phase.
    struct Chunk {
        int64_t first = 0, last = 0;  // shared-memory bytes the chunk covers
        int64_t credit = 0;           // bytes its complete_tx signals
        int write_id = -1;            // AsyncWriteRegistry id
    };
    std::vector<Chunk> chunks;
};

class TmaEngine : public sc_core::sc_module {
public:
    TmaEngine(sc_core::sc_module_name name, CtaModule& cta);
    SC_HAS_PROCESS(TmaEngine);

    void submit(TmaRequest r);
    // Notified whenever a store's source was read or its writes landed.
    sc_core::sc_event& progress() { return progress_; }
    void wake_for_abort();

private:
    struct InFlight {
        TmaRequest req;
        std::vector<uint8_t> payload;  // bytes read at the start (loads) or on the port (stores)
    };
    void port_thread();
    void landing_thread();
    void port_loop();
    void landing_loop();
    void engine_fault(const TmaRequest* active, const std::exception& e);
    bool run_aborted() const;
    std::vector<uint8_t> read_source(const TmaRequest& r);
    void land(InFlight& f);
    int64_t latency_for(const TmaRequest& r);

    CtaModule& cta_;
    std::deque<TmaRequest> queue_;
    // Landing order: (time, sequence) so equal times keep issue order.
    std::map<std::tuple<int64_t, uint64_t>, InFlight> landing_;
    uint64_t sequence_ = 0;
    // The request each thread is moving, for fault reports.
    const TmaRequest* port_active_ = nullptr;
    const TmaRequest* landing_active_ = nullptr;
    sc_core::sc_event queued_, landing_changed_, progress_;
};

}  // namespace tmasim::model
