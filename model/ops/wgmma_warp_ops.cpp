#include "model/ops/wgmma_warp_ops.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/sm/shared_race_check.h"
#include "model/core/sim_time.h"
#include "model/sm/warp_process.h"
#include "model/copy/wgmma_compute.h"
#include "model/copy/wgmma_layout.h"
#include "model/state/wgmma_state.h"
#include "scenarios/values.h"

namespace tmasim::model {

namespace {

const SharedBuffer& buffer_of(CtaModule& cta, const Op& op, const Ref& ref) {
    const SharedBuffer* b = cta.run().scenario.find_shared(ref.name);
    if (!b) throw std::out_of_range(fmt::format("{}: unknown shared buffer '{}'", op_title(op), ref.name));
    return *b;
}

// The 16-byte chunks of a [rows, K] operand that the slice at column k0 occupies: each
// row's 16 elements are two chunks (8 contiguous elements each, in every layout).
std::vector<int64_t> slice_chunks(Swizzle mode, int64_t rows, int64_t k_total, int64_t k0) {
    std::vector<int64_t> chunks;
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = k0; k < k0 + kWgmmaK; k += 8) chunks.push_back(wgmma_operand_offset(mode, k_total, r, k));
    std::sort(chunks.begin(), chunks.end());
    return chunks;
}

// Adjacent 16-byte chunks merged into [first, last] byte ranges.
std::vector<std::pair<int64_t, int64_t>> chunk_ranges(const std::vector<int64_t>& chunks) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (int64_t c : chunks) {
        if (!out.empty() && out.back().second + 1 == c)
            out.back().second = c + 15;
        else
            out.push_back({c, c + 15});
    }
    return out;
}

std::string op_name(const Scenario& s, int id) {
    const Op* o = s.find_op(id);
    std::string what = o ? to_string(o->kind) : "op";
    if (o && !o->label.empty()) what += " '" + o->label + "'";
    return fmt::format("{}, op #{}", what, id);
}

}  // namespace

WgmmaWarpOps::WgmmaWarpOps(WarpProcess& warp)
    : w_(warp),
      cta_(warp.cta()),
      state_(warp.cta().wgmma(warp.warp() / WgmmaState::kWarps)),
      warp_in_group_(warp.warp() % WgmmaState::kWarps),
      tp_(warp.cta().run().timing) {}

int WgmmaWarpOps::group() const { return w_.warp() / WgmmaState::kWarps; }

void WgmmaWarpOps::exec(const Op& op, const std::vector<int>& lanes) {
    if (op.kind == OpKind::wgmma_wait_group) {
        wait(op, lanes);
        return;
    }
    const std::vector<int> ev = w_.event_lanes(op, lanes);
    w_.emit(op, ev, EventKind::issue);
    double cost = tp_.issue_cycles;
    switch (op.kind) {
        case OpKind::wgmma_fence: state_.fence(warp_in_group_); break;
        case OpKind::wgmma_commit_group:
            state_.commit(warp_in_group_);
            cost = tp_.wgmma_commit_cycles;
            break;
        case OpKind::wgmma_mma_async: cost = mma(op, lanes); break;
        case OpKind::wgmma_acc_fill: fill(op); break;
        case OpKind::wgmma_acc_store: cost = store(op, lanes); break;
        default: throw std::logic_error(fmt::format("model: {} is not a wgmma op", op_title(op)));
    }
    w_.spend(cost);
    w_.emit(op, ev, EventKind::complete);
}

void WgmmaWarpOps::check_fence(const Op& op) {
    const auto gap = state_.fence_gap(warp_in_group_, op.acc);
    if (!gap) return;
    const std::string why =
        gap->never_fenced
            ? "it has issued no wgmma.fence before its first wgmma.mma_async"
            : fmt::format("{} accessed the registers of {} after its last wgmma.fence",
                          op_name(cta_.run().scenario, gap->access_op), op.acc);
    cta_.hazard_once(op, w_.site(op, 0), "wgmma.missing_fence",
                     HazardRules::message("wgmma.missing_fence",
                                          fmt::format("{}: warp {} issues it on accumulator {}, but {}", op_title(op),
                                                      w_.warp(), op.acc, why)),
                     {{"warp", std::to_string(w_.warp())}, {"accumulator", op.acc},
                      {"access_op", std::to_string(gap->access_op)}});
}

void WgmmaWarpOps::check_not_pending(const Op& op) {
    const WgmmaMma* m = state_.pending_writer(warp_in_group_, op.acc);
    if (!m) return;
    const std::string verb = op.kind == OpKind::wgmma_acc_store ? "reads" : "writes";
    cta_.hazard_once(op, w_.site(op, 0), "wgmma.acc_before_wait",
                     HazardRules::message("wgmma.acc_before_wait",
                                          fmt::format("{}: warp {} {} the registers of accumulator {} while {} "
                                                      "writes them and no wgmma.wait_group has retired it",
                                                      op_title(op), w_.warp(), verb, op.acc,
                                                      op_name(cta_.run().scenario, m->op))),
                     {{"warp", std::to_string(w_.warp())}, {"accumulator", op.acc},
                      {"mma_op", std::to_string(m->op)}});
}

std::optional<WgmmaWarpOps::UnfencedRead> WgmmaWarpOps::check_operand_read(const Op& op, const Ref& ref,
                                                                         const std::vector<int64_t>& chunks,
                                                                         const std::vector<int>& lanes) {
    const SharedBuffer& buf = buffer_of(cta_, op, ref);
    const int64_t base = cta_.run().layout.offset_of(buf.name, 0);
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const auto& [first, last] : chunk_ranges(chunks)) ranges.push_back({base + first, base + last});
    return check_read(cta_, op, w_, buf.name, base, ranges, lanes);
}

std::optional<WgmmaWarpOps::UnfencedRead> WgmmaWarpOps::check_read(CtaModule& cta, const Op& op, WarpProcess& w,
                                                                 const std::string& buffer, int64_t base,
                                                                 const std::vector<std::pair<int64_t, int64_t>>& ranges,
                                                                 const std::vector<int>& lanes) {
    SharedRaceCheck races(cta, op, buffer, base);
    Cluster* cluster = cluster_of(cta);
    const int threads = cta.tracker().num_threads();
    std::optional<UnfencedRead> out;
    for (int l : lanes) {
        const int thread = w.thread(l);
        const EventSite site = w.site(op, l);
        for (const auto& [first, last] : ranges) {
            // wgmma reads the bytes a TMA load writes: the same completion rule as a generic
            // read (C17); and generic writes there need a proxy fence (B12, B14).
            races.access(site, thread, first, last - first + 1, false);
            if (cluster) cluster->check_async_read(cta, op, site, thread, buffer, base, first, last);
            const auto v = cta.tracker().check_async_read(thread, first, last - first + 1);
            if (!v) continue;
            if (!out) out = UnfencedRead{buffer, v->first_byte - base, v->last_byte - base, {}, {}};
            out->first = std::min(out->first, v->first_byte - base);
            out->last = std::max(out->last, v->last_byte - base);
            // A cp.async agent's writes are its thread's (ProxyTracker::cp_agent).
            for (int t : v->threads) out->writers.insert(t >= threads ? t - threads : t);
            out->ops.insert(v->ops.begin(), v->ops.end());
        }
    }
    return out;
}

void WgmmaWarpOps::report_unfenced(CtaModule& cta, const Op& op, WarpProcess& w, const std::vector<UnfencedRead>& reads) {
    if (reads.empty()) return;
    std::string what, first_threads;
    std::set<int> ops;
    for (const UnfencedRead& r : reads) {
        const std::string threads = format_id_ranges(std::vector<int>(r.writers.begin(), r.writers.end()));
        if (first_threads.empty()) first_threads = threads;
        what += fmt::format("{}{}[{}..{}] (written by threads {})", what.empty() ? "" : " and ", r.buffer, r.first,
                            r.last, threads);
        ops.insert(r.ops.begin(), r.ops.end());
    }
    std::string wrote;
    for (int id : ops) wrote += (wrote.empty() ? "" : "; ") + op_name(cta.run().scenario, id);
    cta.hazard_once(op, w.site(op, 0), "proxy.generic_to_async",
                     fmt::format("{} reads {} through the async proxy, but generic stores ({}) wrote them with no "
                                 "fence.proxy.async on the causality path {}",
                                 op_title(op), what, wrote, HazardRules::cite("proxy.generic_to_async")),
                     {{"buffer", reads.front().buffer}, {"first_byte", std::to_string(reads.front().first)},
                      {"last_byte", std::to_string(reads.front().last)}, {"writer_threads", first_threads}});
}

double WgmmaWarpOps::mma(const Op& op, const std::vector<int>& lanes) {
    check_fence(op);
    const SharedBuffer& a = buffer_of(cta_, op, op.a);
    const SharedBuffer& b = buffer_of(cta_, op, op.b);
    const int n = state_.accumulator_n(op.acc);
    WgmmaOperands in;
    in.smem = cta_.smem().data();
    in.type = a.type;
    in.swizzle = op.swizzle;
    in.a_base = cta_.run().layout.offset_of(a.name, 0);
    in.b_base = cta_.run().layout.offset_of(b.name, 0);
    in.k_total = a.shape.at(1);
    in.n = n;
    in.k0 = op.k.empty() ? 0 : op.k.eval_int(w_.env());
    const bool scale_d = op.scale_d.empty() || op.scale_d.eval_int(w_.env()) != 0;
    std::vector<UnfencedRead> unfenced;
    std::vector<std::pair<int64_t, int64_t>> operand_bytes;  // CTA offsets, for the reuse rule
    for (const auto& [ref, rows] : {std::pair<const Ref*, int64_t>{&op.a, kWgmmaM}, {&op.b, n}}) {
        const std::vector<int64_t> chunks = slice_chunks(op.swizzle, rows, in.k_total, in.k0);
        if (auto r = check_operand_read(op, *ref, chunks, lanes)) unfenced.push_back(std::move(*r));
        const int64_t base = ref == &op.a ? in.a_base : in.b_base;
        for (const auto& [first, last] : chunk_ranges(chunks)) operand_bytes.push_back({base + first, base + last});
    }
    report_unfenced(cta_, op, w_, unfenced);

    WgmmaMma m;
    m.op = op.id;
    m.acc = op.acc;
    m.result = wgmma_warp_rows(in, warp_in_group_, scale_d, state_.chain_value(warp_in_group_, op.acc));
    // Each warp's quarter of the instruction runs on its own SM sub-partition's tensor
    // core (a quarter of the SM's rate), after the warp's earlier mmas (issue order).
    const int64_t issued = now_cycles() + whole_cycles(tp_.wgmma_issue_cycles);
    const int64_t busy = whole_cycles(2.0 * kWgmmaM * n * kWgmmaK / tp_.wgmma_flops_per_cycle);
    int64_t& pipe = state_.pipe_free(warp_in_group_);
    pipe = std::max(pipe, issued) + busy;
    m.complete_at = pipe + whole_cycles(tp_.wgmma_latency_cycles);
    cta_.run().log.add_model_only(w_.site(op, 0), "wgmma_complete", m.complete_at,
                                  {{"accumulator", op.acc}, {"warp", std::to_string(w_.warp())}});
    const int64_t seq = state_.issue(warp_in_group_, std::move(m));
    // The operands are read asynchronously until a wait retires the mma: writes there
    // before that race with the read (C17; BulkStoreRegistry).
    cta_.bulk_stores().wgmma_issue(group(), seq, warp_in_group_, op.id, w_.thread(lanes.front()), operand_bytes);
    cta_.bulk_stores().prune(cta_.tracker());
    return tp_.wgmma_issue_cycles;
}

void WgmmaWarpOps::wait(const Op& op, const std::vector<int>& lanes) {
    const std::vector<int> ev = w_.event_lanes(op, lanes);
    w_.emit(op, ev, EventKind::wait_begin);
    const int64_t now = now_cycles();
    const int n = static_cast<int>(op.n.empty() ? 0 : op.n.eval_int(w_.env()));
    const int64_t done = state_.wait(warp_in_group_, n, now);
    // Each lane's wait observes the retired mmas complete: a write ordered after it may
    // change their operands.
    std::vector<std::pair<int, uint32_t>> waits, cluster_waits;
    Cluster* cluster = cluster_of(cta_);
    for (int l : lanes) {
        waits.push_back({w_.thread(l), cta_.tracker().advance(w_.thread(l))});
        if (cluster && cluster->tracking()) {
            const int a = cluster->agent(cta_, w_.thread(l));
            cluster_waits.push_back({a, cluster->clock().tick(a)});
        }
    }
    cta_.bulk_stores().wgmma_retired(group(), state_.retired_end(warp_in_group_), warp_in_group_, waits,
                                     cluster_waits);
    // The results are in the registers from `done` on; the warp resumes after that (a wait
    // on completed groups costs the resume alone).
    w_.spend(static_cast<double>(std::max<int64_t>(done - now, 0)) + tp_.wgmma_wait_resume_cycles);
    w_.emit(op, ev, EventKind::wait_end);
}

void WgmmaWarpOps::fill(const Op& op) {
    check_not_pending(op);
    const float v = op.value.eval_float({});
    std::vector<float>& regs = state_.registers(warp_in_group_, op.acc);
    std::fill(regs.begin(), regs.end(), v);
    state_.register_access(warp_in_group_, op.acc, op.id);
}

double WgmmaWarpOps::store(const Op& op, const std::vector<int>& lanes) {
    check_not_pending(op);
    const SharedBuffer& buf = buffer_of(cta_, op, op.buffer);
    const int64_t base = cta_.run().layout.offset_of(buf.name, 0);
    const int n = state_.accumulator_n(op.acc);
    const std::vector<float>& regs = state_.registers(warp_in_group_, op.acc);
    SharedRaceCheck races(cta_, op, buf.name, base);
    uint8_t* data = cta_.smem().data() + base;
    std::vector<std::vector<BankModel::LaneAccess>> per_register(static_cast<size_t>(n / 2));
    for (int l : lanes) {
        const int thread = w_.thread(l);
        const EventSite site = w_.site(op, l);
        for (int i = 0; i < n / 2; ++i) {
            const auto [row, col] = wgmma_fragment_coord(warp_in_group_, l, i);
            const int64_t e = static_cast<int64_t>(row) * n + col;
            races.generic(site, thread, base + e * 4, 4, true);
            store_element_float(data, DType::f32, e, regs.at((row - 16 * warp_in_group_) * n + col));
            cta_.tracker().generic_write(thread, base + e * 4, 4, op.id);
            per_register[static_cast<size_t>(i)].push_back({l, base + e * 4});
        }
    }
    state_.register_access(warp_in_group_, op.acc, op.id);
    return store_cycles(per_register);
}

// One posted st.shared.b32 per register, unrolled on the device (its SASS: one STS each).
// Posted stores cost the warp their issue until the warpgroup's queued wavefronts pass
// wgmma_store_queue_wavefronts; past that the four warps (whole warpgroups store together)
// wait on the SM's shared-memory pipe, 128 bytes a wavefront at smem_port_bytes_per_cycle.
// The fragment rows of an [64, N] f32 buffer lie N words apart: for N a multiple of 32 each
// register's store is an 8-way bank conflict, which is what makes wide accumulators' stores
// slow (H200: N=64 997 cycles, N=256 3650, where the per-register line gives 149 and 533).
double WgmmaWarpOps::store_cycles(const std::vector<std::vector<BankModel::LaneAccess>>& per_register) const {
    int64_t wavefronts = 0;
    for (const auto& accesses : per_register) wavefronts += BankModel::cost(accesses, 4).wavefronts;
    const double issue = tp_.wgmma_store_base_cycles + double(per_register.size()) * tp_.wgmma_store_register_cycles;
    const double group_wavefronts = double(WgmmaState::kWarps * wavefronts);
    const double wavefront_bytes = BankModel::kBanks * BankModel::kBankBytes;
    const double wavefronts_per_cycle = tp_.smem_port_bytes_per_cycle / wavefront_bytes;
    const double drain = tp_.wgmma_store_base_cycles +
                         std::max(0.0, group_wavefronts - tp_.wgmma_store_queue_wavefronts) / wavefronts_per_cycle;
    return std::max(issue, drain);
}

}  // namespace tmasim::model
