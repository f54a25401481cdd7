#include "model/ops/layout_warp_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/sm/cta_module.h"
#include "model/sm/shared_race_check.h"
#include "model/sm/warp_process.h"
#include "model/state/bank_model.h"
#include "scenarios/layout_reduce.h"
#include "scenarios/values.h"

namespace tmasim::model {

namespace {

void add(std::map<std::string, std::string>& detail, const std::string& key, int64_t v) {
    auto it = detail.find(key);
    detail[key] = std::to_string((it == detail.end() ? 0 : std::stoll(it->second)) + v);
}

}  // namespace

const LayoutOpView& LayoutWarpOps::view(const Op& op, bool to_side) {
    auto& views = w_.cta().run().layout_views;
    auto it = views.find({op.id, to_side});
    if (it == views.end()) it = views.emplace(std::make_pair(op.id, to_side), layout_op_view(w_.cta().run().scenario, op, to_side)).first;
    return it->second;
}

std::vector<uint8_t>& LayoutWarpOps::tile(const std::string& name) {
    std::vector<uint8_t>& regs = w_.tile_registers(name);
    if (regs.empty()) {
        const TileDecl& t = *w_.cta().run().scenario.find_tile(name);
        regs.assign(size_t(t.num_elements() * dtype_size(t.type)), 0);
    }
    return regs;
}

void LayoutWarpOps::exec(const Op& op) {
    const std::vector<int> ev{0};
    std::map<std::string, std::string> detail;
    if (op.kind == OpKind::convert_layout) {
        convert(op);
        return;
    }
    if (op.kind == OpKind::layout_reduce) {
        reduce(op);
        return;
    }
    double cost = 0;
    if (!op.global.empty()) cost = global_access(op, detail);
    else cost = shared_access(op, false, op.kind == OpKind::layout_shared_store, detail);
    w_.emit(op, ev, EventKind::issue, detail);
    w_.spend(cost);
    w_.emit(op, ev, EventKind::complete, detail);
}

double LayoutWarpOps::global_access(const Op& op, std::map<std::string, std::string>& detail) {
    RunContext& run = w_.cta().run();
    const LayoutOpView& v = view(op, false);
    const LinearLayout& l = v.layout;
    const GlobalTensor& t = run.global.tensor(op.global);
    const bool is_store = op.kind == OpKind::layout_global_store;
    // Only a store asks for writable bytes: a tensor only loaded keeps its declared init.
    uint8_t* const store_base = is_store ? run.global.bytes(t.name).data() : nullptr;
    const uint8_t* const load_base = run.global.read_bytes(t.name).data();
    std::vector<uint8_t>& regs = tile(op.tile);
    const int64_t base = w_.eval(op.base, 0), esize = v.esize, vec = v.plan.vec, warp = w_.warp();
    Expr::IntEnv env = w_.env();
    int64_t& i0 = env["i0"];
    int64_t& i1 = env["i1"];
    int64_t& off_var = env["off"];
    int64_t requests = 0, sectors = 0, lines = 0;
    std::set<int64_t> fetched;  // sectors this op instance already moved: one DRAM transfer each
    bool resident = true;
    for (int64_t k = 0; k < v.plan.per_thread; ++k) {
        std::vector<int64_t> addresses;
        for (int64_t lane = 0; lane < l.num_lanes(); ++lane) {
            if (is_store && !v.plan.thread_stores(warp, lane, l.num_lanes(), k)) continue;
            int active = -1;  // the vector's mask: one value for all its elements
            int64_t first = 0;
            for (int64_t j = 0; j < vec; ++j) {
                const Coords c = l.element(k * vec + j, lane, warp);
                const int64_t off = base + v.offset(c);
                if (j == 0) first = off;
                int on = 1;
                if (!op.mask.empty()) {
                    i0 = c[0];
                    i1 = c.size() > 1 ? c[1] : 0;
                    off_var = off;
                    on = op.mask.eval_int(env) != 0;
                }
                if (active >= 0 && on != active)
                    throw std::out_of_range(fmt::format(
                        "{}: the mask \"{}\" differs within thread {}'s {}-byte vector at element {} of {}; the layout "
                        "moves whole vectors, so allowed: a mask constant over each run of {} elements",
                        op_title(op), op.mask.text(), warp * 32 + lane, v.plan.vec_bytes, first, t.name, vec));
                active = on;
                uint8_t* reg = regs.data() + l.flat(c) * esize;
                if (!on) {
                    if (!is_store) std::memset(reg, 0, size_t(esize));  // a masked load yields 0
                    continue;
                }
                if (off < 0 || off >= t.num_elements())
                    throw std::out_of_range(fmt::format("{}: thread {} {} element {} outside {} ({} elements)", op_title(op),
                                                        warp * 32 + lane, is_store ? "writes" : "reads", off, t.name,
                                                        t.num_elements()));
                if (is_store) std::memcpy(store_base + off * esize, reg, size_t(esize));
                else std::memcpy(reg, load_base + off * esize, size_t(esize));
            }
            if (active == 1) {
                addresses.push_back(first * esize);
                resident = run.global.touch(t.name, first * esize, first * esize + v.plan.vec_bytes - 1) && resident;
            }
        }
        if (addresses.empty()) continue;  // every lane masked off: the instruction moves nothing
        ++requests;
        const SectorCount c = count_sectors(addresses, v.plan.vec_bytes);
        sectors += c.sectors;
        lines += c.lines;
        for (int64_t a : addresses) fetched.insert(a / 32);
    }
    const std::string prefix = is_store ? "gst_" : "gld_";
    add(detail, prefix + "requests", requests);
    add(detail, prefix + "sectors", sectors);
    add(detail, prefix + "lines", lines);
    detail["vector_bytes"] = std::to_string(v.plan.vec_bytes);
    const int64_t dram_bytes = int64_t(fetched.size()) * 32;
    detail["dram_bytes"] = std::to_string(dram_bytes);
    const TimingParams& tp = run.timing;
    const double issue = double(v.plan.per_thread) * tp.issue_cycles;
    const int64_t now = now_cycles();
    // Every sector passes the HBM channel: the model keeps no L2 reuse between op
    // instances, as for the tutorial's tensors (8 GB, far beyond L2). Each instruction's
    // line requests pass the chip's L2 request path meanwhile; a load waits for the later of
    // the two. A store is posted: its bytes and requests occupy both, the warp goes on.
    const int64_t bytes_done = dram_bytes > 0 ? run.dram.pass(now, dram_bytes) : now;
    const int64_t through = std::max(bytes_done, run.l2_requests.pass(now, lines, sectors)) - now;
    if (is_store) return issue;
    detail["l2_hit"] = resident ? "1" : "0";
    return issue + (resident ? tp.global_load_l2_cycles : tp.global_load_hbm_cycles) + double(through);
}

double LayoutWarpOps::shared_access(const Op& op, bool to_side, bool is_store,
                                    std::map<std::string, std::string>& detail) {
    CtaModule& cta = w_.cta();
    RunContext& run = cta.run();
    const LayoutOpView& v = view(op, to_side);
    const LinearLayout& l = v.layout;
    const int64_t index = op.buffer.index.empty() ? 0 : w_.eval(op.buffer.index, 0);
    const std::string display = op.buffer.index.empty() ? op.buffer.name : fmt::format("{}[{}]", op.buffer.name, index);
    const int64_t base = run.layout.offset_of(op.buffer.name, index);
    std::vector<uint8_t>& regs = tile(to_side ? op.to_tile : op.tile);
    const int64_t esize = v.esize, vec = v.plan.vec, warp = w_.warp();
    SharedRaceCheck races(cta, op, display, base);
    int64_t wavefronts = 0, conflicts = 0, requests = 0;
    for (int64_t k = 0; k < v.plan.per_thread; ++k) {
        std::vector<BankModel::LaneAccess> accesses;
        for (int64_t lane = 0; lane < l.num_lanes(); ++lane) {
            if (is_store && !v.plan.thread_stores(warp, lane, l.num_lanes(), k)) continue;
            const int thread = int(warp * 32 + lane);
            const int64_t first = base + v.offset(l.element(k * vec, lane, warp)) * esize;
            races.generic(w_.site(op, int(lane)), thread, first, v.plan.vec_bytes, is_store);
            for (int64_t j = 0; j < vec; ++j) {
                uint8_t* reg = regs.data() + l.flat(l.element(k * vec + j, lane, warp)) * esize;
                uint8_t* cell = cta.smem().data() + first + j * esize;
                if (is_store) std::memcpy(cell, reg, size_t(esize));
                else std::memcpy(reg, cell, size_t(esize));
            }
            if (is_store) cta.tracker().generic_write(thread, first, v.plan.vec_bytes, op.id);
            accesses.push_back({int(lane), first});
        }
        if (accesses.empty()) continue;
        ++requests;
        const BankCost c = BankModel::cost(accesses, int(v.plan.vec_bytes));
        wavefronts += c.wavefronts;
        conflicts += c.conflicts();
    }
    const std::string prefix = is_store ? "st_" : "ld_";
    add(detail, prefix + "requests", requests);
    add(detail, prefix + "wavefronts", wavefronts);
    add(detail, prefix + "bank_conflicts", conflicts);
    detail[prefix + "vector_bytes"] = std::to_string(v.plan.vec_bytes);
    // Issued back to back: a store is posted, each further wavefront of a conflict holds
    // the pipe; a load waits for its data, one pass per wavefront after the first.
    const TimingParams& tp = run.timing;
    if (is_store)
        return double(requests) * tp.shared_store_cycles + double(wavefronts - requests) * tp.shared_wavefront_cycles;
    if (requests == 0) return tp.issue_cycles;
    return tp.shared_access_cycles + double(wavefronts - 1) * tp.shared_wavefront_cycles;
}

void LayoutWarpOps::convert(const Op& op) {
    const std::vector<int> ev{0};
    const Scenario& sc = w_.cta().run().scenario;
    std::map<std::string, std::string> detail;
    if (conversion_is_trivial(sc, op)) {
        // The same elements in every thread: a register rename, no shared memory, no barrier.
        const LinearLayout a = sc.tile_layout(op.tile), b = sc.tile_layout(op.to_tile);
        std::vector<uint8_t>& from = tile(op.tile);
        std::vector<uint8_t>& to = tile(op.to_tile);
        const int64_t esize = dtype_size(sc.find_tile(op.tile)->type);
        for (int64_t lane = 0; lane < b.num_lanes(); ++lane)
            for (int64_t r = 0; r < b.num_regs(); ++r) {
                const int64_t e = b.flat(b.element(r, lane, w_.warp()));
                std::memcpy(to.data() + e * esize, from.data() + e * esize, size_t(esize));
            }
        detail["trivial"] = "1";
        w_.emit(op, ev, EventKind::issue, detail);
        w_.spend(w_.cta().run().timing.issue_cycles);
        w_.emit(op, ev, EventKind::complete, detail);
        return;
    }
    // Through the scratch buffer: every warp stores its registers, a barrier, every warp
    // loads the destination layout's, and a barrier before the scratch can be reused.
    std::map<std::string, std::string> load_detail;
    const double store_cost = shared_access(op, false, true, detail);
    w_.emit(op, ev, EventKind::issue, detail);
    w_.spend(store_cost);
    w_.op_sync(op, false);
    const double load_cost = shared_access(op, true, false, load_detail);
    w_.spend(load_cost);
    w_.op_sync(op, false);
    for (const auto& [k, val] : load_detail) detail[k] = val;
    w_.emit(op, ev, EventKind::complete, detail);
}

// layout.reduce (scenarios/layout_reduce.h), with the device's order of combination: a
// thread's registers in increasing order, then one butterfly round per lane bit along the
// axis (own value first), then the partials of the warps along the axis in increasing warp
// order through `scratch` between two barriers.
void LayoutWarpOps::reduce(const Op& op) {
    CtaModule& cta = w_.cta();
    RunContext& run = cta.run();
    const ReducePlan p = plan_reduce(run.scenario, op);
    const int64_t warp = w_.warp(), lanes = p.src.num_lanes(), groups = int64_t(p.groups.size());
    const auto f = [&](float a, float b) { return op.combine_max ? std::fmax(a, b) : a + b; };
    std::vector<uint8_t>& from = tile(op.tile);
    std::vector<uint8_t>& to = tile(op.to_tile);
    auto reg_value = [&](int64_t r, int64_t lane) {
        float v;
        std::memcpy(&v, from.data() + p.src.flat(p.src.element(r, lane, warp)) * 4, 4);
        return v;
    };
    std::vector<std::vector<float>> acc(static_cast<size_t>(lanes), std::vector<float>(static_cast<size_t>(groups)));
    int64_t combines = 0;
    for (int64_t lane = 0; lane < lanes; ++lane)
        for (int64_t g = 0; g < groups; ++g) {
            const std::vector<int64_t>& regs = p.groups[size_t(g)];
            float a = reg_value(regs[0], lane);
            for (size_t i = 1; i < regs.size(); ++i) a = f(a, reg_value(regs[i], lane));
            acc[size_t(lane)][size_t(g)] = a;
            if (lane == 0) combines += int64_t(regs.size()) - 1;
        }
    for (int bit : p.lane_bits) {
        std::vector<std::vector<float>> next = acc;
        for (int64_t lane = 0; lane < lanes; ++lane)
            for (int64_t g = 0; g < groups; ++g)
                next[size_t(lane)][size_t(g)] = f(acc[size_t(lane)][size_t(g)], acc[size_t(lane ^ (int64_t(1) << bit))][size_t(g)]);
        acc = next;
    }
    const TimingParams& tp = run.timing;
    std::map<std::string, std::string> detail;
    detail["shuffles"] = std::to_string(int64_t(p.lane_bits.size()) * groups);
    const std::vector<int> ev{0};
    double cost = double(combines) * tp.issue_cycles +
                  double(p.lane_bits.size()) * (double(groups) * tp.issue_cycles + tp.shared_access_cycles);
    auto element = [&](int64_t g, int64_t lane) { return p.dst.element(g, lane, warp)[0]; };
    if (p.warp_bits.empty()) {
        for (int64_t lane = 0; lane < lanes; ++lane)
            for (int64_t g = 0; g < groups; ++g) std::memcpy(to.data() + element(g, lane) * 4, &acc[size_t(lane)][size_t(g)], 4);
        w_.emit(op, ev, EventKind::issue, detail);
        w_.spend(cost);
        w_.emit(op, ev, EventKind::complete, detail);
        return;
    }
    // Partials through shared memory: scratch[warp * n + e], one 4-byte store per group.
    const int64_t index = op.buffer.index.empty() ? 0 : w_.eval(op.buffer.index, 0);
    const std::string display = op.buffer.index.empty() ? op.buffer.name : fmt::format("{}[{}]", op.buffer.name, index);
    const int64_t base = run.layout.offset_of(op.buffer.name, index);
    SharedRaceCheck races(cta, op, display, base);
    int64_t st_wavefronts = 0, st_conflicts = 0, ld_wavefronts = 0, ld_conflicts = 0;
    for (int64_t g = 0; g < groups; ++g) {
        std::vector<BankModel::LaneAccess> accesses;
        for (int64_t lane = 0; lane < lanes; ++lane) {
            const int64_t at = base + (warp * p.out_elements + element(g, lane)) * 4;
            races.generic(w_.site(op, int(lane)), int(warp * 32 + lane), at, 4, true);
            std::memcpy(cta.smem().data() + at, &acc[size_t(lane)][size_t(g)], 4);
            cta.tracker().generic_write(int(warp * 32 + lane), at, 4, op.id);
            accesses.push_back({int(lane), at});
        }
        const BankCost c = BankModel::cost(accesses, 4);
        st_wavefronts += c.wavefronts;
        st_conflicts += c.conflicts();
    }
    w_.emit(op, ev, EventKind::issue, detail);
    w_.spend(cost + double(groups) * tp.shared_store_cycles + double(st_wavefronts - groups) * tp.shared_wavefront_cycles);
    w_.op_sync(op, false);
    SharedRaceCheck after(cta, op, display, base);  // its view of the other warps is taken after the barrier
    const std::vector<int64_t> peers = p.warp_group(warp);
    for (int64_t g = 0; g < groups; ++g)
        for (size_t k = 0; k < peers.size(); ++k) {
            std::vector<BankModel::LaneAccess> accesses;
            for (int64_t lane = 0; lane < lanes; ++lane) {
                const int64_t at = base + (peers[k] * p.out_elements + element(g, lane)) * 4;
                after.generic(w_.site(op, int(lane)), int(warp * 32 + lane), at, 4, false);
                float v;
                std::memcpy(&v, cta.smem().data() + at, 4);
                float& a = acc[size_t(lane)][size_t(g)];
                a = k == 0 ? v : f(a, v);
                accesses.push_back({int(lane), at});
            }
            const BankCost c = BankModel::cost(accesses, 4);
            ld_wavefronts += c.wavefronts;
            ld_conflicts += c.conflicts();
        }
    for (int64_t lane = 0; lane < lanes; ++lane)
        for (int64_t g = 0; g < groups; ++g) std::memcpy(to.data() + element(g, lane) * 4, &acc[size_t(lane)][size_t(g)], 4);
    w_.spend(tp.shared_access_cycles + double(ld_wavefronts - 1) * tp.shared_wavefront_cycles +
             double(groups * int64_t(peers.size())) * tp.issue_cycles);
    w_.op_sync(op, false);
    detail["st_requests"] = std::to_string(groups);
    detail["st_wavefronts"] = std::to_string(st_wavefronts);
    detail["st_bank_conflicts"] = std::to_string(st_conflicts);
    detail["ld_requests"] = std::to_string(groups * int64_t(peers.size()));
    detail["ld_wavefronts"] = std::to_string(ld_wavefronts);
    detail["ld_bank_conflicts"] = std::to_string(ld_conflicts);
    w_.emit(op, ev, EventKind::complete, detail);
}

}  // namespace tmasim::model
