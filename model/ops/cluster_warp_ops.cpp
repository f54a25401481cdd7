#include "model/ops/cluster_warp_ops.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/state/st_async_batch.h"
#include "model/ops/thread_access.h"
#include "model/sm/warp_process.h"
#include "scenarios/values.h"

namespace tmasim::model {

namespace {

Cluster& cluster_or_throw(CtaModule& cta) {
    Cluster* c = cluster_of(cta);
    if (!c) throw std::logic_error("model: a cluster op in a run built without a cluster fabric");
    return *c;
}

// `value` (shared.store / st.async) into element `e` of `data`, a buffer of `buf`'s type:
// integers in 64 bits then wrapped, floats in float32 then rounded, like compute's fn.
void store_value(const SharedBuffer& buf, uint8_t* data, int64_t e, const Expr& value, const Expr::IntEnv& env) {
    if (dtype_is_float(buf.type)) {
        Expr::FloatEnv f;
        for (const auto& [k, v] : env) f[k] = static_cast<float>(v);
        store_element_float(data, buf.type, e, value.eval_float(f));
    } else {
        store_element_int(data, buf.type, e, value.eval_int(env));
    }
}

struct BufferAt {
    const SharedBuffer* decl = nullptr;
    std::string name;   // "buf" or "buf[1]"
    int64_t base = 0;   // shared-memory offset, the same in every CTA (one layout)
};

BufferAt resolve_buffer(CtaModule& cta, const Op& op, const Expr::IntEnv& env) {
    BufferAt b;
    b.decl = cta.run().scenario.find_shared(op.buffer.name);
    if (!b.decl) throw std::out_of_range(fmt::format("{}: unknown shared buffer '{}'", op_title(op), op.buffer.name));
    const int64_t i = op.buffer.index.empty() ? 0 : op.buffer.index.eval_int(env);
    b.name = b.decl->array != 0 ? fmt::format("{}[{}]", b.decl->name, i) : b.decl->name;
    b.base = cta.run().layout.offset_of(b.decl->name, i);
    return b;
}

}  // namespace

ClusterWarpOps::ClusterWarpOps(WarpProcess& warp)
    : w_(warp), cta_(warp.cta()), cluster_(cluster_or_throw(warp.cta())), tp_(warp.cta().run().timing) {}

int ClusterWarpOps::agent(int lane) const { return cluster_.agent(cta_, w_.thread(lane)); }

int64_t ClusterWarpOps::barrier_index(const Op& op) const { return w_.barrier_index(op); }

int ClusterWarpOps::target_rank(const Expr& e, int lane) const {
    const Expr::IntEnv env = thread_env(w_.env(), w_.warp(), lane);
    const int64_t r = e.eval_int(env);
    if (r < 0 || r >= cluster_.size())
        throw std::out_of_range(fmt::format("rank {} (\"{}\") is outside the cluster of {} CTAs", r, e.text(),
                                            cluster_.size()));
    return static_cast<int>(r);
}

void ClusterWarpOps::exec(const Op& op, const std::vector<int>& lanes) {
    const std::vector<int> ev = w_.event_lanes(op, lanes);
    if (op.kind == OpKind::shared_load || op.kind == OpKind::shared_store) {
        std::map<std::string, std::string> detail;
        const double cost = dsmem_access(op, lanes, detail);
        w_.emit(op, ev, EventKind::issue, detail);
        w_.spend(cost);
        w_.emit(op, ev, EventKind::complete, detail);
        return;
    }
    w_.emit(op, ev, EventKind::issue);
    switch (op.kind) {
        case OpKind::cluster_arrive:
            // A (default) .release arrive first stalls the warp for the cluster-scope release
            // (cluster_release_cycles, as a remote mbarrier.arrive.release.cluster does).
            arrive(op, lanes);
            w_.spend(tp_.cluster_arrive_cycles + (op.relaxed ? 0.0 : tp_.cluster_release_cycles));
            break;
        case OpKind::cluster_wait: wait(op, lanes); break;
        case OpKind::cluster_sync:
            // The wait covers the arrive's own cost: the barrier completes no earlier than
            // this warp's arrival, which counts after its release (Cluster::cluster_arrive).
            arrive(op, lanes);
            wait(op, lanes);
            break;
        case OpKind::st_async: w_.spend(st_async(op, lanes)); break;
        case OpKind::fence_proxy_async:
        case OpKind::fence_mbarrier_init: w_.spend(fence(op, lanes)); break;
        default: w_.spend(remote_barrier(op, lanes)); break;
    }
    w_.emit(op, ev, EventKind::complete);
}

void ClusterWarpOps::arrive(const Op& op, const std::vector<int>& lanes) {
    // H200 traces: a .release arrive reaches the barrier only after its cluster-scope release
    // (the last release arrival to the waiters going on is cluster_release_cycles +
    // cluster_barrier_cycles), a .relaxed one at once.
    const int64_t at = now_cycles() + (op.relaxed ? 0 : whole_cycles(tp_.cluster_release_cycles));
    for (int l : lanes) cluster_.cluster_arrive(cta_, op, w_.site(op, l), w_.thread(l), op.relaxed, at);
}

void ClusterWarpOps::wait(const Op& op, const std::vector<int>& lanes) {
    ClusterBarrier& bar = cluster_.barrier();
    std::vector<int64_t> targets;
    for (int l : lanes) targets.push_back(bar.wait_target(agent(l)));
    const int64_t target = *std::max_element(targets.begin(), targets.end());
    w_.block_until(cluster_.barrier_changed(), [&] { return bar.passed(target); },
                   BlockedAt{BlockedAt::Kind::cluster_wait, &op, {}, -1, target});
    for (size_t i = 0; i < lanes.size(); ++i) cluster_.cluster_waited(agent(lanes[i]), targets[i]);
    // The completion reaches every waiter, the last arriver included, cluster_barrier_cycles
    // after the last arrival; a wait that comes later only pays its issue.
    const int64_t ready = cluster_.completion_time(target) + whole_cycles(tp_.cluster_barrier_cycles);
    w_.spend(std::max<double>(static_cast<double>(ready - now_cycles()), tp_.issue_cycles));
}

double ClusterWarpOps::dsmem_access(const Op& op, const std::vector<int>& lanes,
                                    std::map<std::string, std::string>& detail) {
    const int own = cluster_.rank_of(cta_);
    std::vector<int> local, remote;
    for (int l : lanes) (target_rank(op.cta, l) == own ? local : remote).push_back(l);
    // The lanes that address their own CTA through shared::cluster are plain shared accesses.
    double cost = 0;
    if (!local.empty()) cost = ThreadAccess(cta_, op, w_.env(), w_.warp(), w_.site(op, local.front())).shared_access(local, detail);
    detail["remote_lanes"] = std::to_string(remote.size());
    if (remote.empty()) return cost;
    const BufferAt buf = resolve_buffer(cta_, op, w_.env());
    const int64_t esize = dtype_size(buf.decl->type);
    const int64_t width = op.width.empty() ? esize : op.width.eval_int(w_.env());
    const bool is_store = op.kind == OpKind::shared_store;
    for (int l : remote) {
        const Expr::IntEnv env = thread_env(w_.env(), w_.warp(), l);
        const int64_t index = op.index.eval_int(env);
        if (index < 0 || index * esize + width > buf.decl->size_bytes())
            throw std::out_of_range(fmt::format("{}: thread {} accesses element {} outside {} ({} elements)",
                                                op_title(op), w_.thread(l), index, buf.name, buf.decl->num_elements()));
        const int owner = target_rank(op.cta, l);
        const EventSite site = w_.site(op, l);
        if (!cluster_.enter_peer(cta_, op, site, w_.thread(l), owner)) continue;
        const int64_t offset = buf.base + index * esize;
        cluster_.generic_access(cta_, op, site, w_.thread(l), owner, buf.name, buf.base, offset, width, is_store);
        if (!is_store) continue;
        uint8_t* data = cluster_.at_rank(owner).smem().data() + buf.base;
        for (int64_t e = index; e < index + width / esize; ++e) store_value(*buf.decl, data, e, op.value, env);
    }
    if (is_store) return std::max(cost, tp_.dsmem_store_cycles);
    // A remote load pays dsmem_load_cycles for its first 128 bytes and dsmem_load_wavefront_cycles
    // for each further 128 (H200: 216 for 32 x 4 bytes, ~267 for 32 x 16 bytes).
    const int64_t pieces = (static_cast<int64_t>(remote.size()) * width + 127) / 128;
    return std::max(cost, tp_.dsmem_load_cycles + static_cast<double>(std::max<int64_t>(pieces - 1, 0)) *
                                                      tp_.dsmem_load_wavefront_cycles);
}

double ClusterWarpOps::remote_barrier(const Op& op, const std::vector<int>& lanes) {
    std::vector<int> owners;
    for (int l : lanes) owners.push_back(target_rank(op.cta, l));
    return remote_barrier_to(op, lanes, owners, static_cast<int>(barrier_index(op)), w_.eval(op.count, 1), w_.eval(op.bytes, 0));
}

double ClusterWarpOps::remote_barrier_to(const Op& op, const std::vector<int>& lanes, const std::vector<int>& owners, int b,
                                         int64_t count, int64_t bytes) {
    using A = CtaModule::BarrierAction;
    const int own = cluster_.rank_of(cta_);
    const bool arrives = op.kind != OpKind::mbarrier_expect_tx;
    const bool expects = op.kind != OpKind::mbarrier_arrive;
    for (size_t i = 0; i < lanes.size(); ++i) {
        const int l = lanes[i];
        const int owner = owners[i];
        const EventSite site = w_.site(op, l);
        const int thread = w_.thread(l);
        if (owner == own) {
            // The shared::cluster address of the thread's own barrier: a local arrive.
            if (expects && !cta_.barrier_action(b, A::expect_tx, bytes, thread, op, site)) continue;
            if (arrives) cta_.barrier_action(b, A::arrive, expects ? 1 : count, thread, op, site);
            continue;
        }
        if (!cluster_.enter_peer(cta_, op, site, thread, owner)) continue;
        CtaModule& peer = cluster_.at_rank(owner);
        if (!cluster_.init_published(cta_, op, site, thread, owner, b) && !peer.barriers().at(b).state.live())
            continue;
        // .release.cluster: the arrive publishes what the thread knows now; expect_tx is
        // .relaxed and publishes nothing.
        const ClusterClock::SharedClock known = arrives ? cluster_.clock().snapshot(agent(l)) : nullptr;
        EventSite at_peer = site;
        at_peer.cta = peer.index();
        Cluster* c = &cluster_;
        CtaModule* from = &cta_;
        const Op* o = &op;
        // A releasing arrive leaves the SM once its release is done.
        cta_.run().fabric->deliver_after(
            whole_cycles(tp_.dsmem_latency_cycles) + (arrives ? whole_cycles(tp_.cluster_release_cycles) : 0), peer,
            op, at_peer,
            [=, &peer] {
                if (!c->peer_alive(*from, *o, site, thread, owner)) return;
                if (arrives) c->release_into_barrier(owner, b, known);
                if (expects && !peer.barrier_action(b, A::expect_tx, bytes, thread, *o, at_peer)) return;
                if (arrives) peer.barrier_action(b, A::remote_arrive, expects ? 1 : count, thread, *o, at_peer);
            });
    }
    // The device issues these through the shared::cluster address with .release.cluster
    // (arrive, arrive.expect_tx; expect_tx is .relaxed): on the H200 the issuing warp stalls
    // for the release, ~600 cycles against 2 for a local arrive (traces/analysis/cluster_latencies.py).
    if (op.kind == OpKind::mbarrier_arrive) return tp_.mbarrier_arrive_cycles + tp_.cluster_release_cycles;
    if (op.kind == OpKind::mbarrier_expect_tx) return tp_.mbarrier_expect_tx_cycles;
    return tp_.mbarrier_arrive_expect_tx_cycles + tp_.cluster_release_cycles;
}

double ClusterWarpOps::st_async(const Op& op, const std::vector<int>& lanes) {
    const BufferAt buf = resolve_buffer(cta_, op, w_.env());
    const int64_t esize = dtype_size(buf.decl->type);
    const int64_t width = op.width.empty() ? esize : op.width.eval_int(w_.env());
    std::vector<StAsyncLane> stores;
    for (int l : lanes) {
        const Expr::IntEnv env = thread_env(w_.env(), w_.warp(), l);
        const int64_t index = op.index.eval_int(env);
        if (index < 0 || index * esize + width > buf.decl->size_bytes())
            throw std::out_of_range(fmt::format("{}: thread {} stores element {} outside {} ({} elements)",
                                                op_title(op), w_.thread(l), index, buf.name, buf.decl->num_elements()));
        StAsyncLane s;
        s.lane = l;
        s.store = StAsyncStore{w_.thread(l), target_rank(op.cta, l), target_rank(op.barrier_cta, l), buf.base + index * esize, width};
        // The value leaves the registers now; the bytes land a DSMEM latency later.
        s.payload.assign(static_cast<size_t>(width), 0);
        for (int64_t e = 0; e < width / esize; ++e) store_value(*buf.decl, s.payload.data(), e, op.value, env);
        stores.push_back(std::move(s));
    }
    return st_async_to(op, stores, static_cast<int>(barrier_index(op)), buf.name, buf.base);
}

double ClusterWarpOps::st_async_to(const Op& op, const std::vector<StAsyncLane>& lanes, int b, const std::string& buffer,
                                   int64_t base) {
    using A = CtaModule::BarrierAction;
    StAsyncBatch batch;
    std::map<int, const std::vector<uint8_t>*> payloads;  // per thread
    for (const StAsyncLane& sl : lanes) {
        const StAsyncStore& s = sl.store;
        payloads[s.thread] = &sl.payload;
        if (batch.add(s)) continue;
        cta_.hazard_once(op, w_.site(op, sl.lane), "st_async.barrier_other_cta",
                         HazardRules::message("st_async.barrier_other_cta",
                                              fmt::format("{}: thread {} stores into {} of rank {} but signals barrier {} "
                                                          "of rank {}; the store and its tx are dropped",
                                                          op_title(op), s.thread, buffer, s.data_rank,
                                                          cta_.barriers().at(b).name, s.barrier_rank)),
                         {{"thread", std::to_string(s.thread)}, {"data_rank", std::to_string(s.data_rank)},
                          {"barrier_rank", std::to_string(s.barrier_rank)}});
    }
    for (const StAsyncStore& s : batch.deliveries()) {
        const int lane = s.thread % 32;
        const EventSite site = w_.site(op, lane);
        const int owner = s.data_rank;
        if (!cluster_.enter_peer(cta_, op, site, s.thread, owner)) continue;
        CtaModule& peer = cluster_.at_rank(owner);
        if (!cluster_.init_published(cta_, op, site, s.thread, owner, b) && !peer.barriers().at(b).state.live())
            continue;
        std::vector<uint8_t> payload(static_cast<size_t>(s.bytes), 0);
        const std::vector<uint8_t>& given = *payloads.at(s.thread);
        std::copy_n(given.begin(), std::min(given.size(), payload.size()), payload.begin());
        cluster_.generic_access(cta_, op, site, s.thread, owner, buffer, base, s.offset, s.bytes, true, true);
        // Readers in the destination learn the bytes through the barrier phase their
        // complete_tx lands in, like a TMA load's (AsyncWriteRegistry, C17).
        AsyncWrite w;
        w.kind = AsyncWrite::Kind::tma;
        w.first = s.offset;
        w.last = s.offset + s.bytes - 1;
        w.agent = peer.tracker().tma_agent(b);
        w.op = op.id;
        w.issuer = s.thread;
        w.barrier = b;
        w.issue_phase = peer.barriers().at(b).state.phase();
        const int write_id = peer.async_writes().add(w);
        peer.async_writes().prune(peer.tracker());
        // complete_tx is .release.cluster (C21): it publishes what the storing thread knew.
        const ClusterClock::SharedClock known = cluster_.clock().snapshot(agent(lane));
        EventSite at_peer = site;
        at_peer.cta = peer.index();
        Cluster* c = &cluster_;
        CtaModule* from = &cta_;
        const Op* o = &op;
        cta_.run().fabric->deliver_after(
            whole_cycles(tp_.dsmem_latency_cycles), peer, op, at_peer,
            [=, &peer, payload = std::move(payload)] {
                if (!c->peer_alive(*from, *o, site, s.thread, owner)) return;
                std::copy(payload.begin(), payload.end(), peer.smem().begin() + s.offset);
                peer.shared_accesses().mark_filled(s.offset, s.bytes);
                const uint32_t landed = peer.tracker().async_write(s.offset, s.bytes, o->id, peer.tracker().tma_agent(b));
                peer.async_writes().landed(write_id, landed);
                c->release_into_barrier(owner, b, known);
                peer.barrier_action(b, A::complete_tx, s.bytes, s.thread, *o, at_peer);
            });
    }
    return tp_.dsmem_store_cycles;
}

double ClusterWarpOps::fence(const Op& op, const std::vector<int>& lanes) {
    if (op.kind == OpKind::fence_mbarrier_init) {
        for (int l : lanes) cluster_.fence_mbarrier_init(agent(l));
        return tp_.fence_mbarrier_init_cycles;
    }
    // The CTA's ProxyTracker follows its own shared memory: .shared::cta, .shared::cluster
    // (which contains it) and the unqualified form cover it, .global does not (B12).
    const bool covers_own = op.proxy_space != ProxySpace::global;
    for (int l : lanes) {
        if (covers_own) cta_.tracker().fence_proxy_async(w_.thread(l));
        cluster_.fence_proxy_async(agent(l), op.proxy_space);
    }
    return tp_.fence_proxy_async_cycles;
}

}  // namespace tmasim::model
