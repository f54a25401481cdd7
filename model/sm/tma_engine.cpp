#include "model/sm/tma_engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/core/asan_stacks.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/core/sim_time.h"
#include "model/copy/request_bytes.h"

namespace tmasim::model {

namespace {
std::map<std::string, std::string> request_detail(const TmaRequest& r) {
    // In key order at the end: no initializer list copied in (three of these per load).
    std::map<std::string, std::string> detail;
    detail.emplace_hint(detail.end(), "bytes", std::to_string(r.bytes));
    detail.emplace_hint(detail.end(), "tensor", r.tensor);
    return detail;
}
}  // namespace

TmaEngine::TmaEngine(sc_core::sc_module_name name, CtaModule& cta)
    : sc_core::sc_module(name), cta_(cta) {
    SC_THREAD(port_thread);
    SC_THREAD(landing_thread);
}

void TmaEngine::submit(TmaRequest r, int64_t fixed_latency) {
    queue_.emplace_back(std::make_unique<TmaRequest>(std::move(r)), fixed_latency);
    queued_.notify(sc_core::SC_ZERO_TIME);
}

void TmaEngine::wake_for_abort() {
    queued_.notify(sc_core::SC_ZERO_TIME);
    landing_.wake();
    progress_.notify(sc_core::SC_ZERO_TIME);
}

bool TmaEngine::run_aborted() const { return cta_.run().aborted; }

int64_t TmaEngine::latency_for(const TmaRequest& r, bool& through_dram) {
    // Every range is touched (and so left resident), even when an earlier one missed.
    bool resident = true;
    for (const auto& [first, last] : bytes_of(r).residency_ranges())
        resident = cta_.run().global.touch(r.tensor, first, last, cta_.index()) && resident;
    const TimingParams& tp = cta_.run().timing;
    // Stores (reduces and scatters too) are absorbed by L2 (write-back): done once L2 has
    // them, sooner than a load's round trip; loads and prefetches pay HBM latency on lines
    // not seen yet, and leave them resident.
    through_dram = (!resident && !cta_.run().inputs_in_l2) || writes_global(r.kind);
    if (writes_global(r.kind)) return whole_cycles(tp.tma_store_latency_cycles);
    return whole_cycles(resident ? tp.tma_latency_l2_cycles : tp.tma_latency_hbm_cycles);
}

RequestBytes TmaEngine::bytes_of(const TmaRequest& r) { return RequestBytes(r, cta_.run().global.tensor(r.tensor)); }

std::vector<uint8_t> TmaEngine::read_source(const TmaRequest& r) {
    if (loads_smem(r.kind)) return bytes_of(r).read_global(cta_.run().global);
    return bytes_of(r).read_smem(cta_.smem());
}

void TmaEngine::port_thread() {
    CoroutineStackScope stack(default_thread_stack_bytes());
    try {
        port_loop();
    } catch (const std::exception& e) {
        engine_fault(port_active_, e);
    }
}

void TmaEngine::landing_thread() {
    CoroutineStackScope stack(default_thread_stack_bytes());
    try {
        landing_loop();
    } catch (const std::exception& e) {
        engine_fault(landing_active_, e);
    }
}

void TmaEngine::engine_fault(const TmaRequest* active, const std::exception& e) {
    // Requests are checked at issue, so this is a model bug or an unchecked input:
    // report it as a fault of the op being moved rather than crash the process.
    if (active && active->op) cta_.fault(*active->op, active->site, e.what());
}

void TmaEngine::port_loop() {
    for (;;) {
        while (queue_.empty() && !run_aborted()) thread_wait(queued_);
        if (run_aborted()) return;
        // Held by the engine, not this frame: a fault report after the unwind still reads it.
        port_flight_ = InFlight{std::move(queue_.front().first), {}};
        InFlight& f = port_flight_;
        const int64_t fixed_latency = queue_.front().second;
        queue_.pop_front();
        const TmaRequest& r = *f.req;
        port_active_ = &r;
        const int64_t start = now_cycles();
        cta_.run().log.add_model_only(r.site, "tma_start", start, request_detail(r));
        // Multicast deliveries come with the latency their one read was given (and do not
        // pass the HBM channel again: a simplification that undercounts the first read).
        bool through_dram = false;
        const int64_t latency = fixed_latency >= 0 ? fixed_latency : latency_for(r, through_dram);
        if (loads_smem(r.kind)) {
            // Bytes still the tensor's init are read when they land: the same bytes.
            f.from_init = bytes_of(r).lands_from_init(cta_.run().global, cta_.smem_size());
            if (!f.from_init) f.payload = read_source(r);
        }
        // The port streams the request's bytes; the next request waits for it, latency does not.
        // A store reads its source out at the rate the writes leave the SM, after a fixed start
        // (calibrate/bulk_store_read: wait_group.read returned 436 / 792 / 2329 cycles after
        // stores of 4 / 16 / 64 KiB), and is written latency (tma_store_latency_cycles) later.
        const TimingParams& tp = cta_.run().timing;
        const int64_t transfer = writes_global(r.kind)
                                     ? whole_cycles(tp.tma_store_read_cycles + r.bytes / tp.tma_store_bytes_per_cycle)
                                     : whole_cycles(r.bytes / tp.tma_bytes_per_cycle);
        thread_wait(cycles(transfer));
        if (run_aborted()) return;
        if (writes_global(r.kind)) {
            f.payload = read_source(r);
            cta_.groups().mark_read(r.bulk_token);
            cta_.run().tensormaps.end_read(r.tensormap_reader);  // wait_group.read covers the map read too (C19)
            cta_.run().log.add_model_only(r.site, "bulk_read_done", now_cycles(), request_detail(r));
            progress_.notify(sc_core::SC_ZERO_TIME);
        }
        port_active_ = nullptr;
        // A full chip of streaming CTAs fills the shared HBM channel; the bytes then land
        // when the channel has moved them, not when this SM's port has.
        int64_t lands = start + latency + transfer;
        if (through_dram) lands = std::max(lands, cta_.run().chip_for(cta_.index()).pass(start, r.bytes) + latency);
        if (through_dram && loads_smem(r.kind))
            lands = std::max(lands, cta_.run().sm_hbm_read_done(cta_.index(), start, r.bytes) + latency);
        landing_.push(lands, std::move(f));
    }
}

void TmaEngine::landing_loop() {
    for (;;) {
        landing_flight_ = landing_.next_due([this] { return run_aborted(); });
        if (!landing_flight_) return;
        landing_active_ = landing_flight_->req.get();
        land(*landing_flight_);
        landing_active_ = nullptr;
        landing_flight_.reset();
    }
}

void TmaEngine::land(InFlight& f) {
    const TmaRequest& r = *f.req;
    RunContext& run = cta_.run();
    if (is_prefetch(r.kind)) {
        run.log.add_model_only(r.site, "prefetch_done", now_cycles(), request_detail(r));
        run.tensormaps.end_read(r.tensormap_reader);
        return;
    }
    if (loads_smem(r.kind)) {
        // The bytes are signed by the TMA agent of the barrier they complete on, so only
        // the waiters of that phase know them (AsyncWriteRegistry).
        const int agent = cta_.tracker().tma_agent(r.barrier);
        if (f.from_init)
            cta_.smem_image().land_from_init(bytes_of(r).init_landing());  // written when read
        else
            bytes_of(r).write_smem(f.payload, cta_.smem());
        run.log.add_model_only(r.site, "bytes_landed", now_cycles(), request_detail(r));
        run.tensormaps.end_read(r.tensormap_reader);
        // Chunk by chunk: sign the bytes, then credit them. A tensor load credits the whole
        // box, OOB fill included (A6). A phase that completes on an early chunk publishes
        // only the chunks before it, so readers of the later ones race (race.early_pass).
        // Credits that leave the phase open (all but the last, usually) go as one run: the
        // same agent ticks, landings, barrier state and log, with one release and one
        // wake-up instead of 64 (ProxyTracker, CtaModule::complete_tx_run).
        ProxyTracker& tracker = cta_.tracker();
        for (size_t i = 0; i < r.chunks.size();) {
            if (const size_t open = cta_.open_credits(r.barrier, r.chunks, i)) {
                for (size_t k = i; k < i + open; ++k) {
                    const TmaRequest::Chunk c = r.chunks[k];
                    cta_.async_writes().landed(c.write_id, tracker.async_write(c.first, c.last - c.first + 1,
                                                                               r.site.op, agent));
                    if (k + 1 < i + open) tracker.advance(agent);  // this credit's release
                }
                cta_.complete_tx_run(r.barrier, r.chunks, i, open, r.site);
                i += open;
                continue;
            }
            const TmaRequest::Chunk c = r.chunks[i++];
            const uint32_t landed = tracker.async_write(c.first, c.last - c.first + 1, r.site.op, agent);
            cta_.async_writes().landed(c.write_id, landed);
            if (Cluster* cl = cta_.tracking_cluster())
                cl->tma_landed(cta_, r.barrier, r.site.op, r.cluster_time, c.first, c.last - c.first + 1);
            if (!cta_.barrier_action(r.barrier, CtaModule::BarrierAction::complete_tx, c.credit, r.thread, *r.op,
                                     r.site))
                break;  // the barrier refused the credit (a reported fault or hazard)
        }
        return;
    }
    // Reduces combine into global memory here, when they land: the element operations
    // happen at L2, after the source was read on the port.
    bytes_of(r).write_global(f.payload, run.global.bytes(r.tensor));
    cta_.groups().mark_written(r.bulk_token);
    run.log.add_model_only(r.site, "bulk_write_done", now_cycles(), request_detail(r));
    progress_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tmasim::model
