#include "model/ops/thread_access.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "model/state/bank_model.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cp_async_unit.h"
#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/sm/shared_race_check.h"
#include "scenarios/values.h"

namespace tmasim::model {

ThreadAccess::ThreadAccess(CtaModule& cta, const Op& op, const Expr::IntEnv& env, int warp, EventSite site)
    : cta_(cta), op_(op), env_(env), warp_(warp), site_(std::move(site)) {}

Expr::IntEnv thread_env(const Expr::IntEnv& env, int warp, int lane) {
    Expr::IntEnv e = env;
    e["tid"] = warp * 32 + lane;
    e["lane"] = lane;
    e["warp"] = warp;
    return e;
}

Expr::IntEnv ThreadAccess::lane_env(int lane) const { return thread_env(env_, warp_, lane); }

EventSite ThreadAccess::lane_site(int lane) const {
    EventSite s = site_;
    s.lane = lane;
    return s;
}

int64_t ThreadAccess::shared_buffer(const Ref& ref, std::string& display, const SharedBuffer*& decl) const {
    decl = cta_.run().scenario.find_shared(ref.name);
    if (!decl) throw std::out_of_range(fmt::format("{}: unknown shared buffer '{}'", op_title(op_), ref.name));
    const int64_t i = ref.index.empty() ? 0 : ref.index.eval_int(env_);
    display = decl->array != 0 ? fmt::format("{}[{}]", ref.name, i) : ref.name;
    return cta_.run().layout.offset_of(ref.name, i);
}

void ThreadAccess::store_value(DType type, uint8_t* data, int64_t e, const Expr::IntEnv& env) const {
    // Like compute's fn: integers in 64 bits then wrapped, floats in float32 then rounded.
    if (dtype_is_float(type)) {
        Expr::FloatEnv f;
        for (const auto& [k, v] : env) f[k] = static_cast<float>(v);
        f["x"] = load_element_float(data, type, e);
        f["idx"] = static_cast<float>(e);
        store_element_float(data, type, e, op_.value.eval_float(f));
    } else {
        Expr::IntEnv i = env;
        i["x"] = load_element_int(data, type, e);
        i["idx"] = e;
        store_element_int(data, type, e, op_.value.eval_int(i));
    }
}

double ThreadAccess::shared_access(const std::vector<int>& lanes, std::map<std::string, std::string>& detail) {
    std::string name;
    const SharedBuffer* buf = nullptr;
    const int64_t base = shared_buffer(op_.buffer, name, buf);
    const int64_t esize = dtype_size(buf->type);
    const int width = static_cast<int>(op_.width.empty() ? esize : op_.width.eval_int(env_));
    const bool is_store = op_.kind == OpKind::shared_store;
    SharedRaceCheck races(cta_, op_, name, base);
    std::vector<BankModel::LaneAccess> accesses;
    for (int lane : lanes) {
        const Expr::IntEnv env = lane_env(lane);
        const int64_t index = op_.index.eval_int(env);
        if (index < 0 || (index + 1) * esize > buf->size_bytes() || (index * esize + width) > buf->size_bytes())
            throw std::out_of_range(fmt::format("{}: thread {} accesses element {} outside {} ({} elements)",
                                                op_title(op_), warp_ * 32 + lane, index, name, buf->num_elements()));
        const int64_t offset = base + index * esize;
        accesses.push_back({lane, offset});
        const int thread = warp_ * 32 + lane;
        check_generic(races, lane, offset, width, is_store);
        if (!is_store) continue;
        uint8_t* data = cta_.smem().data() + base;
        for (int64_t e = index; e < index + width / esize; ++e) store_value(buf->type, data, e, env);
        cta_.tracker().generic_write(thread, offset, width, op_.id);
    }
    return shared_cycles(cta_.run().timing, BankModel::cost(accesses, width), is_store, detail);
}

double ThreadAccess::shared_cycles(const TimingParams& tp, const BankCost& c, bool is_store,
                                   std::map<std::string, std::string>& detail) {
    detail["wavefronts"] = std::to_string(c.wavefronts);
    detail["conflict_ways"] = std::to_string(c.conflict_ways);
    detail["bank_conflicts"] = std::to_string(c.conflicts());
    // A store is posted: the warp goes on once it issued (its wavefronts cost the pipe, not
    // the warp); a load waits for its data, one more pass per extra wavefront.
    if (is_store) return tp.shared_store_cycles;
    return tp.shared_access_cycles + (c.wavefronts - 1) * tp.shared_wavefront_cycles;
}

void ThreadAccess::check_generic(SharedRaceCheck& races, int lane, int64_t offset, int64_t bytes,
                                 bool is_store) const {
    // Against the CTA's async writes and reads, and its peers' DSMEM accesses.
    races.generic(lane_site(lane), warp_ * 32 + lane, offset, bytes, is_store);
}

std::vector<uint8_t> ThreadAccess::snapshot_read(int lane, std::string& display) {
    const SharedBuffer* buf = nullptr;
    const int64_t base = shared_buffer(op_.buffer, display, buf);
    SharedRaceCheck races(cta_, op_, display, base);
    check_generic(races, lane, base, buf->size_bytes(), false);
    const auto first = cta_.smem().begin() + base;
    return std::vector<uint8_t>(first, first + buf->size_bytes());
}

double ThreadAccess::global_access(const std::vector<int>& lanes, std::map<std::string, std::string>& detail) {
    GlobalMemory& g = cta_.run().global;
    const GlobalTensor& t = g.tensor(op_.global);
    const int64_t esize = dtype_size(t.type);
    const int64_t width = op_.width.empty() ? esize : op_.width.eval_int(env_);
    // global.store: every element it covers gets `value`, written into the tensor's image
    // at the issue instant (a posted store: the warp does not wait for it to reach L2).
    const bool is_store = op_takes_key(op_.kind, "value");
    bool resident = true;
    for (int lane : lanes) {
        const int thread = warp_ * 32 + lane;
        const int64_t first = op_.index.eval_int(lane_env(lane)) * esize, last = first + width - 1;
        if (first < 0 || last >= t.size_bytes())
            throw std::out_of_range(fmt::format("{}: thread {} {} bytes {}..{} outside {} ({} bytes)", op_title(op_),
                                                thread, is_store ? "writes" : "reads", first, last, t.name,
                                                t.size_bytes()));
        resident = g.touch(t.name, first, last) && resident;
        if (is_store) {
            const Expr::IntEnv env = lane_env(lane);
            for (int64_t e = first / esize; e <= last / esize; ++e) store_value(t.type, g.bytes(t.name).data(), e, env);
            continue;
        }
        std::string rule;
        if (const BulkStore* s = cta_.bulk_stores().global_race(thread, t.name, first, last, cta_.tracker(), rule)) {
            const std::string what = fmt::format(
                "{}: thread {} reads {} bytes {}..{}, written by {} op #{} (thread {}), whose completion it has "
                "not observed", op_title(op_), thread, t.name, first, last,
                to_string(cta_.run().scenario.find_op(s->op)->kind), s->op, s->issuer);
            cta_.hazard_once(op_, lane_site(lane), rule, HazardRules::message(rule, what),
                             {{"tensor", t.name}, {"thread", std::to_string(thread)}, {"store_op", std::to_string(s->op)}});
        }
    }
    if (is_store) return cta_.run().timing.global_store_cycles;
    detail["l2_hit"] = resident ? "1" : "0";
    return global_load_cycles(cta_, resident);
}

double ThreadAccess::global_load_cycles(CtaModule& cta, bool resident) {
    const TimingParams& tp = cta.run().timing;
    const bool first_load = cta.take_first_global_load();
    if (!cta.run().inputs_in_l2) return resident ? tp.global_load_l2_cycles : tp.global_load_hbm_cycles;
    // Every line is in L2 (the host copy put it there), but a line this launch has not read
    // costs more than one it has, and a CTA's first load more again on the H200
    // (calibrate/global_load_latency: 494-498, 313-364, 297-303 cycles).
    if (first_load) return tp.global_load_first_access_cycles;
    return resident ? tp.global_load_l2_cycles : tp.global_load_first_line_cycles;
}

double ThreadAccess::cp_async(const std::vector<int>& lanes) {
    std::string name;
    const SharedBuffer* buf = nullptr;
    const int64_t base = shared_buffer(op_.dst, name, buf);
    const GlobalTensor& t = cta_.run().global.tensor(op_.global);
    std::vector<CpAsyncArgs> copies;
    for (int lane : lanes) {
        const Expr::IntEnv env = lane_env(lane);
        const int thread = warp_ * 32 + lane;
        CpAsyncArgs a;
        a.lane = lane;
        a.tensor = t.name;
        a.size = op_.size.eval_int(env);
        a.src_size = op_.src_size.empty() ? a.size : op_.src_size.eval_int(env);
        a.from = op_.src_index.eval_int(env) * dtype_size(t.type);
        a.to = base + op_.dst_index.eval_int(env) * dtype_size(buf->type);
        if (a.src_size < 0 || a.src_size > a.size || a.from < 0 || a.from + a.src_size > t.size_bytes() || a.to < base ||
            a.to + a.size > base + buf->size_bytes())
            throw std::out_of_range(fmt::format("{}: thread {} copies {} of {} bytes from {} byte {} to {} byte {}: "
                                                "outside a buffer", op_title(op_), thread, a.src_size, a.size, t.name,
                                                a.from, name, a.to - base));
        copies.push_back(std::move(a));
    }
    return cp_async_copies(copies, name, base);
}

double ThreadAccess::cp_async_copies(const std::vector<CpAsyncArgs>& args, const std::string& name, int64_t base) {
    GlobalMemory& g = cta_.run().global;
    std::vector<CpAsyncCopy> copies;
    bool resident = true;
    SharedRaceCheck races(cta_, op_, name, base);
    Cluster* cluster = cluster_of(cta_);
    for (const CpAsyncArgs& a : args) {
        const int lane = a.lane;
        const int thread = warp_ * 32 + lane;
        const int64_t size = a.size, src_size = a.src_size, from = a.from, to = a.to;
        CpAsyncCopy c;
        c.thread = thread;
        c.smem_offset = to;
        c.payload.assign(size, 0);  // src-size < cp-size: the rest is zero-filled (C20)
        if (src_size > 0) {
            g.read_range(a.tensor, from, src_size, c.payload.data());
            resident = g.touch(a.tensor, from, from + src_size - 1) && resident;
        }
        c.token = cta_.cp_groups().add_copy(thread);
        // The copy writes bytes an async-proxy read may still be reading (C17, C19).
        races.pending_reads(lane_site(lane), thread, to, size);
        races.cp_async_overwrite(lane_site(lane), thread, to, size);
        races.async_write_issue(lane_site(lane), thread, to, size);
        if (cluster) c.cluster_time = cluster->cp_async_issued(cta_, thread, op_.id, to, size);
        AsyncWrite w;
        w.kind = AsyncWrite::Kind::cp_async;
        w.first = to;
        w.last = to + size - 1;
        w.agent = cta_.tracker().cp_agent(thread);
        w.op = op_.id;
        w.issuer = thread;
        w.token = c.token;
        w.cluster_time = c.cluster_time;
        c.write_id = cta_.async_writes().add(w);
        copies.push_back(std::move(c));
    }
    cta_.async_writes().prune(cta_.tracker());
    const TimingParams& tp = cta_.run().timing;
    int64_t latency = whole_cycles(resident ? tp.cp_async_latency_l2_cycles : tp.cp_async_latency_hbm_cycles);
    if (!resident && !cta_.run().inputs_in_l2) {
        // Misses pass the chip's shared HBM channel (DramChannel): with every SM streaming,
        // the channel, not the latency, decides when the bytes are in.
        int64_t bytes = 0;
        for (const CpAsyncCopy& c : copies) bytes += static_cast<int64_t>(c.payload.size());
        const int64_t now = now_cycles();
        latency = std::max(latency, cta_.run().dram.pass(now, bytes) - now + latency);
        latency = std::max(latency, cta_.run().sm_hbm_read_done(cta_.index(), now, bytes) - now +
                                        whole_cycles(tp.cp_async_latency_hbm_cycles));
    }
    cta_.cp_unit().submit(op_, site_, std::move(copies), latency);
    return tp.cp_async_issue_cycles;
}

}  // namespace tmasim::model
