// ld / st / atom / red of a kernel on shared memory (its own CTA's, or a peer's through
// shared::cluster), global memory (the scenario's tensors and the module's .global
// variables), and generic addresses (which name one of those, or the thread's local bytes or
// the params). Shared accesses go through the same checks as the op scenarios' per-thread ops
// (SharedRaceCheck: async writes not yet observed, async reads in flight, other warps'
// accesses; the proxy tracker; the bank model), global ones through GlobalMemory's L2
// residency and the bulk stores still writing (race.global_*). ldmatrix / stmatrix move
// 16-byte rows that their lanes name. Values move when the instruction issues.
#include <cstring>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/kernel/alu.h"
#include "model/kernel/unit_families.h"
#include "model/ops/thread_access.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/sm/shared_race_check.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

int vector_count(const ptx::Instruction& ins) {
    return ins.has("v2") ? 2 : ins.has("v4") ? 4 : ins.has("v8") ? 8 : 1;
}

// One lane's data as the instruction's operand lists it: a vector's registers, or one.
std::vector<int32_t> data_slots(const UnitOperand& o) {
    if (o.kind == UnitOperand::Kind::vector) return o.elems;
    return {o.slot};
}

// What a warp's accesses of one instruction cost and report, over its lanes.
struct AccessCost {
    std::vector<BankModel::LaneAccess> shared;
    int remote = 0;
    bool global = false, resident = true;
    int64_t width = 0;
};

class MemoryInstruction {
public:
    explicit MemoryInstruction(UnitCall& c)
        : c_(c), cta_(c.kw.cta()), store_(c.op.kind == OpKind::shared_store || c.op.kind == OpKind::global_store ||
                                         c.op.kind == OpKind::st),
          atomic_(c.op.kind == OpKind::atom) {}

    void run() {
        const std::string& head = c_.ins().parts.at(0);
        if (head == "ldmatrix" || head == "stmatrix") return matrix(head == "stmatrix");
        const Ty t = instruction_type(c_.ins());
        const int vec = vector_count(c_.ins());
        width_ = static_cast<int64_t>(ty_bits(t) / 8) * vec;
        if (width_ <= 0) throw std::out_of_range(fmt::format("`{}` has no access type", c_.ins().opcode));
        type_ = t;
        cost_.width = width_;
        std::map<std::string, std::string> detail;
        for (int l : c_.lanes) lane_access(l);
        finish(detail);
    }

private:
    void lane_access(int lane) {
        // ld d, [a]; st [a], v; atom d, [a], b[, c]; red [a], b.
        const bool red = c_.ins().parts[0] == "red";
        const size_t addr_i = store_ || red ? 0 : 1;
        const uint64_t a = c_.address(addr_i, lane);
        const MemPlace p = c_.place(a, lane, width_);
        std::vector<uint8_t> bytes(static_cast<size_t>(width_));
        if (store_) {
            const std::vector<int32_t> slots = data_slots(c_.operand(1));
            const int64_t each = width_ / static_cast<int64_t>(slots.size());
            for (size_t i = 0; i < slots.size(); ++i) {
                const uint64_t v = c_.kw.reg(slots[i], lane);
                std::memcpy(bytes.data() + i * static_cast<size_t>(each), &v, static_cast<size_t>(each));
            }
            write(p, lane, bytes);
            return;
        }
        read(p, lane, bytes);
        if (atomic_) {
            atomic(p, lane, bytes, red);
            return;
        }
        const std::vector<int32_t> slots = data_slots(c_.operand(0));
        const int64_t each = width_ / static_cast<int64_t>(slots.size());
        const bool sgn = ty_signed(type_);
        for (size_t i = 0; i < slots.size(); ++i) {
            uint64_t v = 0;
            std::memcpy(&v, bytes.data() + i * static_cast<size_t>(each), static_cast<size_t>(each));
            if (sgn && each < 8) {
                const int sh = 64 - 8 * static_cast<int>(each);
                v = static_cast<uint64_t>(static_cast<int64_t>(v << sh) >> sh);
                if (each < 4) v &= 0xffffffffull;
            }
            c_.kw.set_reg(slots[i], lane, v);
        }
    }

    SharedRaceCheck& races_for(int64_t offset) {
        const auto [name, base] = c_.buffer_at(offset);
        auto it = races_.find(base);
        if (it == races_.end()) it = races_.emplace(base, SharedRaceCheck(cta_, c_.op, name, base)).first;
        return it->second;
    }

    void read(const MemPlace& p, int lane, std::vector<uint8_t>& out) {
        const int64_t n = static_cast<int64_t>(out.size());
        const int thread = c_.thread(lane);
        switch (p.kind) {
            case MemPlace::Kind::shared:
                // An atomic's read-modify-write is one access that other atomics do not race with;
                // only the async checks apply to it (the write below checks nothing twice).
                if (atomic_) races_for(p.offset).access(c_.site(lane), thread, p.offset, n, true);
                else races_for(p.offset).generic(c_.site(lane), thread, p.offset, n, false);
                std::memcpy(out.data(), cta_.smem().data() + p.offset, static_cast<size_t>(n));
                cost_.shared.push_back({lane, p.offset});
                return;
            case MemPlace::Kind::dsmem: {
                Cluster& cl = cluster();
                const EventSite site = c_.site(lane);
                ++cost_.remote;
                if (!cl.enter_peer(cta_, c_.op, site, thread, p.rank)) return;
                const auto [name, base] = c_.buffer_at(p.offset);
                cl.generic_access(cta_, c_.op, site, thread, p.rank, name, base, p.offset, n, atomic_);
                std::memcpy(out.data(), cl.at_rank(p.rank).smem().data() + p.offset, static_cast<size_t>(n));
                return;
            }
            case MemPlace::Kind::tensor: {
                GlobalMemory& g = cta_.run().global;
                cost_.global = true;
                cost_.resident = g.touch(p.tensor, p.offset, p.offset + n - 1) && cost_.resident;
                std::string rule;
                if (const BulkStore* s = cta_.bulk_stores().global_race(thread, p.tensor, p.offset, p.offset + n - 1,
                                                                        cta_.tracker(), rule)) {
                    const std::string what = fmt::format(
                        "{}: thread {} reads {} bytes {}..{}, written by op #{} (thread {}), whose completion it has not observed",
                        op_title(c_.op), thread, p.tensor, p.offset, p.offset + n - 1, s->op, s->issuer);
                    cta_.hazard_once(c_.op, c_.site(lane), rule, HazardRules::message(rule, what),
                                     {{"tensor", p.tensor}, {"thread", std::to_string(thread)}, {"store_op", std::to_string(s->op)}});
                }
                g.read_range(p.tensor, p.offset, n, out.data());
                return;
            }
            case MemPlace::Kind::module_global:
                std::memcpy(out.data(), c_.kw.image().module_globals.at(static_cast<size_t>(p.index)).data() + p.offset,
                            static_cast<size_t>(n));
                return;
            case MemPlace::Kind::local: std::memcpy(out.data(), c_.kw.local(lane) + p.offset, static_cast<size_t>(n)); return;
            case MemPlace::Kind::param:
                std::memcpy(out.data(), c_.kw.layout().params.data() + p.offset, static_cast<size_t>(n));
                return;
        }
    }

    void write(const MemPlace& p, int lane, const std::vector<uint8_t>& in) {
        const int64_t n = static_cast<int64_t>(in.size());
        const int thread = c_.thread(lane);
        switch (p.kind) {
            case MemPlace::Kind::shared:
                if (!atomic_) races_for(p.offset).generic(c_.site(lane), thread, p.offset, n, true);
                std::memcpy(cta_.smem().data() + p.offset, in.data(), static_cast<size_t>(n));
                cta_.tracker().generic_write(thread, p.offset, n, c_.op.id);
                if (!atomic_) cost_.shared.push_back({lane, p.offset});
                return;
            case MemPlace::Kind::dsmem: {
                Cluster& cl = cluster();
                const EventSite site = c_.site(lane);
                if (!atomic_) ++cost_.remote;
                if (!cl.enter_peer(cta_, c_.op, site, thread, p.rank)) return;
                const auto [name, base] = c_.buffer_at(p.offset);
                if (!atomic_) cl.generic_access(cta_, c_.op, site, thread, p.rank, name, base, p.offset, n, true);
                std::memcpy(cl.at_rank(p.rank).smem().data() + p.offset, in.data(), static_cast<size_t>(n));
                return;
            }
            case MemPlace::Kind::tensor: {
                GlobalMemory& g = cta_.run().global;
                cost_.global = true;
                g.touch(p.tensor, p.offset, p.offset + n - 1);
                std::memcpy(g.bytes(p.tensor).data() + p.offset, in.data(), static_cast<size_t>(n));
                return;
            }
            case MemPlace::Kind::module_global:
                std::memcpy(c_.kw.image().module_globals.at(static_cast<size_t>(p.index)).data() + p.offset, in.data(),
                            static_cast<size_t>(n));
                return;
            case MemPlace::Kind::local: std::memcpy(c_.kw.local(lane) + p.offset, in.data(), static_cast<size_t>(n)); return;
            case MemPlace::Kind::param:
                throw std::out_of_range("a store into the kernel's params, which are read-only");
        }
    }

    // atom.op d, [a], b[, c] / red.op [a], b: the old value to d, the new one stored.
    void atomic(const MemPlace& p, int lane, std::vector<uint8_t>& old, bool red) {
        const ptx::Instruction& ins = c_.ins();
        uint64_t o = 0;
        std::memcpy(&o, old.data(), old.size());
        const size_t first = red ? 1 : 2;
        const uint64_t b = c_.value(first, lane);
        const int bits = ty_bits(type_);
        const uint64_t m = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
        const bool sgn = ty_signed(type_);
        auto sx = [&](uint64_t v) { return bits >= 64 ? static_cast<int64_t>(v) : static_cast<int64_t>(v << (64 - bits)) >> (64 - bits); };
        uint64_t r;
        if (ins.has("cas")) r = (o & m) == (b & m) ? c_.value(first + 1, lane) : o;
        else if (ins.has("exch")) r = b;
        else if (ins.has("add") && ty_float(type_)) {
            DInst f;
            f.op = Opc::fadd;
            f.type = type_;
            uint64_t regs[3 * 32] = {};
            regs[32] = o;
            regs[64] = b;
            f.ndst = 1;
            f.dst[0] = 0;
            f.nsrc = 2;
            f.src[0] = 1;
            f.src[1] = 2;
            AluState st;
            DecodedProgram none;
            run_alu(f, none, regs, 1u, st);
            r = regs[0];
        } else if (ins.has("add")) r = o + b;
        else if (ins.has("and")) r = o & b;
        else if (ins.has("or")) r = o | b;
        else if (ins.has("xor")) r = o ^ b;
        else if (ins.has("min")) r = sgn ? (sx(o) < sx(b) ? o : b) : ((o & m) < (b & m) ? o : b);
        else if (ins.has("max")) r = sgn ? (sx(o) > sx(b) ? o : b) : ((o & m) > (b & m) ? o : b);
        else if (ins.has("inc")) r = (o & m) >= (b & m) ? 0 : o + 1;
        else if (ins.has("dec")) r = ((o & m) == 0 || (o & m) > (b & m)) ? b : o - 1;
        else throw std::out_of_range(fmt::format("`{}`: an atomic operation the model does not know", ins.opcode));
        r &= m;
        std::vector<uint8_t> out(old.size());
        std::memcpy(out.data(), &r, out.size());
        write(p, lane, out);
        if (!red) c_.set(0, lane, o & m);
    }

    // ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 d, [a] / stmatrix ... [a], d: N 8x8 matrices
    // of b16, each row 16 bytes at the address lane 8i+r gives; thread t holds in register i the
    // two elements of row t/4 at columns 2(t%4), 2(t%4)+1 (transposed: of column t/4). PTX 9.7.15.4.x.
    void matrix(bool store) {
        const ptx::Instruction& ins = c_.ins();
        const int n = ins.has("x4") ? 4 : ins.has("x2") ? 2 : 1;
        const bool trans = ins.has("trans");
        if (!ins.has("m8n8") || !ins.has("b16"))
            throw std::out_of_range(fmt::format("`{}`: only the m8n8 b16 shape is modelled", ins.opcode));
        if (c_.exec != 0xffffffffu)
            throw std::out_of_range(fmt::format("`{}` is .sync.aligned: every lane of the warp must execute it (lanes {:#x} do)",
                                                ins.opcode, c_.exec));
        const UnitOperand& regs = c_.operand(store ? 1 : 0);
        const std::vector<int32_t> slots = data_slots(regs);
        if (static_cast<int>(slots.size()) != n) throw std::out_of_range(fmt::format("`{}` needs {} registers", ins.opcode, n));
        width_ = 16;
        cost_.width = 16;
        uint16_t m[4][8][8];
        if (store) {
            for (int i = 0; i < n; ++i)
                for (int t = 0; t < 32; ++t) {
                    const uint32_t v = static_cast<uint32_t>(c_.kw.reg(slots[static_cast<size_t>(i)], t));
                    const int r = t / 4, col = 2 * (t % 4);
                    for (int e = 0; e < 2; ++e) {
                        const uint16_t h = static_cast<uint16_t>(v >> (16 * e));
                        if (trans) m[i][col + e][r] = h;
                        else m[i][r][col + e] = h;
                    }
                }
        }
        for (int i = 0; i < n; ++i)
            for (int r = 0; r < 8; ++r) {
                const int lane = 8 * i + r;
                const MemPlace p = c_.place(c_.address(store ? 0 : 1, lane), lane, 16);
                if (p.kind != MemPlace::Kind::shared)
                    throw std::out_of_range(fmt::format("`{}`: lane {}'s row is not in the CTA's shared memory", ins.opcode, lane));
                std::vector<uint8_t> row(16);
                if (store) {
                    std::memcpy(row.data(), m[i][r], 16);
                    write(p, lane, row);
                } else {
                    read(p, lane, row);
                    std::memcpy(m[i][r], row.data(), 16);
                }
            }
        if (!store)
            for (int i = 0; i < n; ++i)
                for (int t = 0; t < 32; ++t) {
                    const int r = t / 4, col = 2 * (t % 4);
                    const uint32_t lo = trans ? m[i][col][r] : m[i][r][col];
                    const uint32_t hi = trans ? m[i][col + 1][r] : m[i][r][col + 1];
                    c_.kw.set_reg(slots[static_cast<size_t>(i)], t, lo | (hi << 16));
                }
        std::map<std::string, std::string> detail;
        finish(detail);
    }

    void finish(std::map<std::string, std::string>& detail) {
        const TimingParams& tp = cta_.run().timing;
        double cost = tp.issue_cycles;
        if (!cost_.shared.empty())
            cost = std::max(cost, ThreadAccess::shared_cycles(tp, BankModel::cost(cost_.shared, static_cast<int>(cost_.width)),
                                                              store_, detail));
        if (cost_.remote > 0) {
            const int64_t pieces = (static_cast<int64_t>(cost_.remote) * cost_.width + 127) / 128;
            cost = std::max(cost, store_ ? tp.dsmem_store_cycles
                                         : tp.dsmem_load_cycles + static_cast<double>(std::max<int64_t>(pieces - 1, 0)) *
                                                                      tp.dsmem_load_wavefront_cycles);
            detail["remote_lanes"] = std::to_string(cost_.remote);
        }
        if (cost_.global) {
            detail["l2_hit"] = cost_.resident ? "1" : "0";
            cost = std::max(cost, store_ ? tp.global_store_cycles : ThreadAccess::global_load_cycles(cta_, cost_.resident));
        }
        c_.kw.note_visible_action();
        c_.emit(EventKind::issue, detail);
        c_.spend(cost);
        c_.emit(EventKind::complete, detail);
    }

    Cluster& cluster() {
        Cluster* cl = cluster_of(cta_);
        if (!cl) throw std::logic_error("model: a shared::cluster access in a run built without a cluster fabric");
        return *cl;
    }

    UnitCall& c_;
    CtaModule& cta_;
    bool store_;
    bool atomic_;
    Ty type_ = Ty::b32;
    int64_t width_ = 0;
    AccessCost cost_;
    std::map<int64_t, SharedRaceCheck> races_;
};

}  // namespace

void unit_memory(UnitCall& c) {
    if (c.op.kind == OpKind::fence_memory) return unit_fence(c);
    if (c.op.kind == OpKind::red_async) return unit_st_async(c);
    MemoryInstruction(c).run();
}

}  // namespace tmasim::model::kernel
