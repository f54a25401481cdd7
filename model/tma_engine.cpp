#include "model/tma_engine.h"

#include <fmt/format.h>

#include "model/cta_module.h"
#include "model/sim_time.h"
#include "model/tensor_copy.h"

namespace tmasim::model {

namespace {
bool is_load(TmaRequest::Kind k) {
    return k == TmaRequest::Kind::tensor_load || k == TmaRequest::Kind::bulk_load;
}
bool is_tensor(TmaRequest::Kind k) {
    return k == TmaRequest::Kind::tensor_load || k == TmaRequest::Kind::tensor_store ||
           k == TmaRequest::Kind::tensor_prefetch;
}
bool is_prefetch(TmaRequest::Kind k) {
    return k == TmaRequest::Kind::tensor_prefetch || k == TmaRequest::Kind::bulk_prefetch;
}
std::map<std::string, std::string> request_detail(const TmaRequest& r) {
    return {{"bytes", std::to_string(r.bytes)}, {"tensor", r.tensor}};
}
}  // namespace

TmaEngine::TmaEngine(sc_core::sc_module_name name, CtaModule& cta)
    : sc_core::sc_module(name), cta_(cta) {
    SC_THREAD(port_thread);
    SC_THREAD(landing_thread);
}

void TmaEngine::submit(TmaRequest r) {
    queue_.push_back(std::move(r));
    queued_.notify(sc_core::SC_ZERO_TIME);
}

void TmaEngine::wake_for_abort() {
    queued_.notify(sc_core::SC_ZERO_TIME);
    landing_changed_.notify(sc_core::SC_ZERO_TIME);
    progress_.notify(sc_core::SC_ZERO_TIME);
}

bool TmaEngine::run_aborted() const { return cta_.run().aborted; }

int64_t TmaEngine::latency_for(const TmaRequest& r) {
    int64_t first = r.global_offset, last = r.global_offset + r.bytes - 1;
    if (is_tensor(r.kind)) {
        const TensorCopy copy(cta_.run().global.tensor(r.tensor), *r.map);
        std::tie(first, last) = copy.global_span(r.coords);
    }
    const bool resident = cta_.run().global.touch(r.tensor, first, last);
    const TimingParams& tp = cta_.run().timing;
    // Stores are absorbed by L2 (write-back); loads and prefetches pay HBM latency on
    // lines not seen yet, and leave them resident for later loads.
    const bool from_l2 = resident || !(is_load(r.kind) || is_prefetch(r.kind));
    return whole_cycles(from_l2 ? tp.tma_latency_l2_cycles : tp.tma_latency_hbm_cycles);
}

std::vector<uint8_t> TmaEngine::read_source(const TmaRequest& r) {
    std::vector<uint8_t> out;
    if (is_load(r.kind)) {
        const std::vector<uint8_t>& global = cta_.run().global.bytes(r.tensor);
        if (is_tensor(r.kind))
            return TensorCopy(cta_.run().global.tensor(r.tensor), *r.map).gather_global(global, r.coords);
        out.resize(r.bytes);
        TensorCopy::bulk_copy(global, r.global_offset, out, 0, r.bytes, "bulk.load source");
        return out;
    }
    if (is_tensor(r.kind))
        return TensorCopy(cta_.run().global.tensor(r.tensor), *r.map).gather_smem(cta_.smem(), r.smem_offset);
    out.resize(r.bytes);
    TensorCopy::bulk_copy(cta_.smem(), r.smem_offset, out, 0, r.bytes, "bulk.store source");
    return out;
}

void TmaEngine::port_thread() {
    try {
        port_loop();
    } catch (const std::exception& e) {
        engine_fault(port_active_, e);
    }
}

void TmaEngine::landing_thread() {
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
        while (queue_.empty() && !run_aborted()) sc_core::wait(queued_);
        if (run_aborted()) return;
        InFlight f{std::move(queue_.front()), {}};
        queue_.pop_front();
        const TmaRequest& r = f.req;
        port_active_ = &r;
        const int64_t start = now_cycles();
        cta_.run().log.add_model_only(r.site, "tma_start", start, request_detail(r));
        const int64_t latency = latency_for(r);
        if (is_load(r.kind)) f.payload = read_source(r);
        // The port streams the request's bytes; the next request waits for it, latency does not.
        const int64_t transfer = whole_cycles(r.bytes / cta_.run().timing.tma_bytes_per_cycle);
        sc_core::wait(cycles(transfer));
        if (run_aborted()) return;
        if (!is_load(r.kind) && !is_prefetch(r.kind)) {
            f.payload = read_source(r);
            cta_.groups().mark_read(r.bulk_token);
            cta_.run().log.add_model_only(r.site, "bulk_read_done", now_cycles(), request_detail(r));
            progress_.notify(sc_core::SC_ZERO_TIME);
        }
        port_active_ = nullptr;
        landing_.emplace(std::make_tuple(start + latency + transfer, sequence_++), std::move(f));
        landing_changed_.notify(sc_core::SC_ZERO_TIME);
    }
}

void TmaEngine::landing_loop() {
    for (;;) {
        if (run_aborted()) return;
        if (landing_.empty()) {
            sc_core::wait(landing_changed_);
            continue;
        }
        auto it = landing_.begin();
        const int64_t at = std::get<0>(it->first);
        if (now_cycles() < at) {
            sc_core::wait(cycles(at - now_cycles()), landing_changed_);
            continue;
        }
        InFlight f = std::move(it->second);
        landing_.erase(it);
        landing_active_ = &f.req;
        land(f);
        landing_active_ = nullptr;
    }
}

void TmaEngine::land(InFlight& f) {
    const TmaRequest& r = f.req;
    RunContext& run = cta_.run();
    if (is_prefetch(r.kind)) {
        run.log.add_model_only(r.site, "prefetch_done", now_cycles(), request_detail(r));
        return;
    }
    if (is_load(r.kind)) {
        // The bytes are signed by the TMA agent of the barrier they complete on, so only
        // the waiters of that phase know them (AsyncWriteRegistry).
        const int agent = cta_.tracker().tma_agent(r.barrier);
        if (is_tensor(r.kind))
            TensorCopy(run.global.tensor(r.tensor), *r.map).scatter_smem(f.payload, cta_.smem(), r.smem_offset);
        else
            TensorCopy::bulk_copy(f.payload, 0, cta_.smem(), r.smem_offset, r.bytes, "bulk.load destination");
        run.log.add_model_only(r.site, "bytes_landed", now_cycles(), request_detail(r));
        // Chunk by chunk: sign the bytes, then credit them. A tensor load credits the whole
        // box, OOB fill included (A6). A phase that completes on an early chunk publishes
        // only the chunks before it, so readers of the later ones race (race.early_pass).
        for (const TmaRequest::Chunk& c : r.chunks) {
            const uint32_t landed = cta_.tracker().async_write(c.first, c.last - c.first + 1, r.site.op, agent);
            cta_.async_writes().landed(c.write_id, landed);
            if (!cta_.barrier_action(r.barrier, CtaModule::BarrierAction::complete_tx, c.credit, r.thread, *r.op,
                                     r.site))
                break;  // the barrier refused the credit (a reported fault or hazard)
        }
        return;
    }
    std::vector<uint8_t>& global = run.global.bytes(r.tensor);
    if (is_tensor(r.kind))
        TensorCopy(run.global.tensor(r.tensor), *r.map).scatter_global(f.payload, r.coords, global);
    else
        TensorCopy::bulk_copy(f.payload, 0, global, r.global_offset, r.bytes, "bulk.store destination");
    cta_.groups().mark_written(r.bulk_token);
    run.log.add_model_only(r.site, "bulk_write_done", now_cycles(), request_detail(r));
    progress_.notify(sc_core::SC_ZERO_TIME);
}

}  // namespace tmasim::model
