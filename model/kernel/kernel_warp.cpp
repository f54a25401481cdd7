#include "model/kernel/kernel_warp.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/sim_time.h"
#include "model/kernel/unit_dispatch.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

// The kernel floor's half of WarpProcess (declared in warp_process.h): a kernel scenario's warp
// runs the kernel instead of the program.
void WarpProcess::run_kernel() {
    kernel::KernelWarp k(*this, *cta_.run().kernel);
    k.run();
}

namespace kernel {
KernelWarp::~KernelWarp() {
    img_.warp_instructions += executed_;
    img_.thread_instructions += executed_threads_;
}
}  // namespace kernel

}  // namespace tmasim::model

namespace tmasim::model::kernel {
namespace {

// A warp's instructions between two waits: it yields now and then so warps that compute
// without touching a unit still let simulated time, and the other warps, go on.
constexpr uint64_t kInstructionsPerSlice = 4096;
// A kernel still running after this many cycles (100 ms at 2 GHz) is stopped as a hang: a
// spin on a value nothing will change (the try_wait spin blocks instead, unit_mbarrier.cpp).
constexpr int64_t kWatchdogCycles = 200'000'000;

}  // namespace

KernelWarp::KernelWarp(WarpProcess& w, KernelImage& image)
    : w_(w), img_(image), prog_(image.decoded.program), local_bytes_(image.decoded.program.local_bytes) {
    const int threads = w.cta().num_threads();
    lanes_live_ = std::min(32, threads - w.warp() * 32);
    live_mask_ = lanes_live_ >= 32 ? 0xffffffffu : (1u << lanes_live_) - 1;
    regs_.assign(static_cast<size_t>(prog_.slot_count()) * 32, 0);
    local_.assign(static_cast<size_t>(local_bytes_) * 32, 0);
    instances_.assign(w.cta().run().scenario.program.size(), 0);
    init_slots();
}

CtaModule& KernelWarp::cta() { return w_.cta(); }

std::vector<int> KernelWarp::lanes(uint32_t mask) {
    std::vector<int> v;
    for (uint32_t m = mask; m; m &= m - 1) v.push_back(__builtin_ctz(m));
    return v;
}

void KernelWarp::note_threads(int op, uint32_t exec) {
    int& t = img_.op_thread[static_cast<size_t>(op)];  // sized to the ops by KernelImage::make
    if (t == KernelImage::kSeveralThreads) return;
    const int tid = w_.warp() * 32 + __builtin_ctz(exec);
    t = (exec & (exec - 1)) != 0 || (t >= 0 && t != tid) ? KernelImage::kSeveralThreads : tid;
}

void KernelWarp::begin_instance(const Op& op) {
    w_.set_instance(instances_.at(static_cast<size_t>(op.id))++);
    w_.set_current(&op);
}

void KernelWarp::flush() {
    if (pending_ > 0) w_.spend(pending_);
    pending_ = 0;
    since_flush_ = 0;
}

uint64_t KernelWarp::special_value(const std::string& n, int lane) const {
    const Scenario& s = w_.cta().run().scenario;
    const Launch& L = s.launch;
    auto dim = [](const std::vector<int>& v, char axis) -> uint64_t {
        // Launch lists are outermost first: x is the last entry.
        const size_t k = axis == 'x' ? 0 : axis == 'y' ? 1 : 2;
        return k < v.size() ? static_cast<uint64_t>(v[v.size() - 1 - k]) : 1;
    };
    const char axis = n.size() > 2 && n[n.size() - 2] == '.' ? n.back() : 'x';
    const std::string base = n.size() > 2 && n[n.size() - 2] == '.' ? n.substr(0, n.size() - 2) : n;
    const int c = w_.cta().index();
    const int csize = L.cluster_size();
    const int rank = c % csize, cluster = c / csize;
    // CTA c is rank c % size of cluster c / size (the model's clusters are consecutive CTAs):
    // its coordinates are its cluster's, scaled by the cluster's extent, plus its own in it.
    auto coords = [&](int linear, const std::vector<int>& extent, char a) -> uint64_t {
        const uint64_t ex = dim(extent, 'x'), ey = dim(extent, 'y');
        if (a == 'x') return static_cast<uint64_t>(linear) % ex;
        if (a == 'y') return static_cast<uint64_t>(linear) / ex % ey;
        return static_cast<uint64_t>(linear) / (ex * ey);
    };
    std::vector<int> clusters_per_grid;
    for (size_t i = 0; i < L.grid.size(); ++i) {
        const size_t from_inner = L.grid.size() - 1 - i;
        const int cdim = from_inner < L.cluster.size() ? L.cluster[L.cluster.size() - 1 - from_inner] : 1;
        clusters_per_grid.push_back(L.grid[i] / std::max(1, cdim));
    }
    if (base == "%tid") return axis == 'x' ? static_cast<uint64_t>(w_.warp() * 32 + lane) : 0;
    if (base == "%ntid") return axis == 'x' ? static_cast<uint64_t>(L.block) : 1;
    if (base == "%laneid") return static_cast<uint64_t>(lane);
    if (base == "%warpid") return static_cast<uint64_t>(w_.warp());
    if (base == "%nwarpid") return 64;
    if (base == "%ctaid") return coords(cluster, clusters_per_grid, axis) * dim(L.cluster, axis) + coords(rank, L.cluster, axis);
    if (base == "%nctaid") return dim(L.grid, axis);
    if (base == "%clusterid") return coords(cluster, clusters_per_grid, axis);
    if (base == "%nclusterid") return dim(clusters_per_grid, axis);
    if (base == "%cluster_ctaid") return coords(rank, L.cluster, axis);
    if (base == "%cluster_nctaid") return dim(L.cluster, axis);
    if (base == "%cluster_ctarank") return static_cast<uint64_t>(rank);
    if (base == "%cluster_nctarank") return static_cast<uint64_t>(csize);
    if (base == "%is_explicit_cluster") return csize > 1 ? 1 : 0;
    if (base == "%lanemask_eq") return uint64_t(1) << lane;
    if (base == "%lanemask_lt") return (uint64_t(1) << lane) - 1;
    if (base == "%lanemask_le") return (uint64_t(2) << lane) - 1;
    if (base == "%lanemask_gt") return ~((uint64_t(2) << lane) - 1) & 0xffffffffull;
    if (base == "%lanemask_ge") return ~((uint64_t(1) << lane) - 1) & 0xffffffffull;
    if (base == "%smid") return static_cast<uint64_t>(c % static_cast<int>(w_.cta().run().timing.sm_count));
    if (base == "%nsmid") return static_cast<uint64_t>(w_.cta().run().timing.sm_count);
    if (base == "%gridid") return 0;
    if (base == "%dynamic_smem_size") return static_cast<uint64_t>(L.dynamic_shared);
    if (base == "%total_smem_size" || base == "%aggr_smem_size") return static_cast<uint64_t>(img_.layout.shared_bytes);
    if (base.rfind("%envreg", 0) == 0 || base.rfind("%reserved_smem", 0) == 0) return 0;
    throw std::out_of_range(fmt::format("the special register {} is not one the model knows", n));
}

void KernelWarp::init_slots() {
    for (int32_t s = 0; s < prog_.slot_count(); ++s) {
        const SlotInit& init = prog_.slots[static_cast<size_t>(s)];
        uint64_t* lanes = regs_.data() + static_cast<size_t>(s) * 32;
        if (init.kind == SlotInit::Kind::constant)
            for (int l = 0; l < 32; ++l) lanes[l] = init.value;
        else if (init.kind == SlotInit::Kind::special)
            for (int l = 0; l < 32; ++l) lanes[l] = special_value(init.special, l);
    }
}

uint32_t KernelWarp::guard_mask(const DInst& d, uint32_t mask) const {
    if (d.guard < 0) return mask;
    const uint64_t* g = regs_.data() + static_cast<size_t>(d.guard) * 32;
    uint32_t m = 0;
    for (uint32_t b = mask; b; b &= b - 1) {
        const int l = __builtin_ctz(b);
        if (((g[l] & 1) != 0) != d.guard_neg) m |= 1u << l;
    }
    return m;
}

void KernelWarp::fault_here(const DInst& d, const std::string& message) {
    (void)d;
    throw std::runtime_error(message);
}

std::string KernelWarp::place(const DInst& d) const {
    const ptx::Function& f = *img_.bound.functions.at(static_cast<size_t>(d.fn));
    if (d.ins < 0 || static_cast<size_t>(d.ins) >= f.instructions.size()) return img_.bound.module.path;
    const ptx::Instruction& ins = f.instructions[static_cast<size_t>(d.ins)];
    return fmt::format("`{}` at {}", ins.opcode, instruction_place(img_.bound, f, ins));
}

void KernelWarp::run() {
    try {
        loop();
    } catch (const RunAborted&) {
        throw;
    } catch (const std::exception& e) {
        // A run-time value the kernel cannot go on with (an address outside every buffer, a
        // special register the model lacks): a fault at the instruction, as the GPU's would be.
        const std::string where = stack_.done() ? img_.bound.module.path : place(prog_.code[static_cast<size_t>(stack_.top().pc)]);
        w_.kernel_report(Outcome::fault, "model.fault",
                         fmt::format("warp {} of CTA {}: {}: {}", w_.warp(), w_.cta().index(), where, e.what()));
        throw RunAborted{};
    }
}

void KernelWarp::loop() {
    stack_.start(prog_.start, live_mask_);
    while (stack_.settle()) {
        WarpStack::Entry& top = stack_.top();
        const DInst& d = prog_.code[static_cast<size_t>(top.pc)];
        const uint32_t exec = guard_mask(d, top.mask);
        ++executed_;
        executed_threads_ += static_cast<uint64_t>(__builtin_popcount(exec));
        pending_ += 1;  // the issue cycle of an instruction that reaches no unit (per-instruction timing: issue 37)
        if (++since_flush_ >= kInstructionsPerSlice) {
            flush();
            if (RunBudget* budget = w_.cta().run().budget) budget->tick();
            if (now_cycles() > kWatchdogCycles) {
                w_.kernel_report(Outcome::hang, "kernel.watchdog",
                                 fmt::format("warp {} of CTA {} still runs at {} after {} cycles, the model's watchdog "
                                             "(a kernel spinning on something no unit will change)",
                                             w_.warp(), w_.cta().index(), place(d), kWatchdogCycles));
                throw RunAborted{};
            }
        }
        switch (d.op) {
            case Opc::bra:
            case Opc::ret_inline: stack_.branch(exec, d.target, d.reconv); continue;
            case Opc::exit:
                exited_ |= exec;
                stack_.exit(exec);
                if (!stack_.done() && stack_.top().mask) ++stack_.top().pc;
                continue;
            case Opc::trap:
                if (exec) {
                    flush();
                    w_.kernel_report(Outcome::fault, "kernel.trap",
                                     fmt::format("warp {} of CTA {} (lanes {:#x}) executed {}", w_.warp(), w_.cta().index(), exec, place(d)));
                    throw RunAborted{};
                }
                ++top.pc;
                continue;
            case Opc::unit:
                flush();
                run_unit(d, exec);
                break;
            case Opc::ld_private:
            case Opc::st_private: private_access(d, exec); break;
            case Opc::read_clock:
            case Opc::read_globaltimer:
                flush();
                read_clock(d, exec);
                break;
            case Opc::shfl: case Opc::vote: case Opc::match: case Opc::redux: case Opc::elect: case Opc::activemask:
                run_collective(d, regs_.data(), exec);
                break;
            case Opc::bar_warp: warp_sync(d, exec); break;
            case Opc::nop: case Opc::setmaxnreg: break;
            case Opc::nanosleep:
                // The thread sleeps up to the given time; the model takes the whole of it.
                if (exec) pending_ += static_cast<double>(reg(d.src[0], __builtin_ctz(exec)) & 0xffffffffu) *
                                      w_.cta().run().timing.sm_clock_mhz / 1000.0;
                break;
            case Opc::createpolicy:
                for (int l : lanes(exec)) set_reg(d.dst[0], l, 0);
                break;
            case Opc::mapa:
                for (int l : lanes(exec)) {
                    uint64_t a = reg(d.src[0], l);
                    const bool generic = a >= kSharedWindow && a < kSharedWindow + kWindowBytes;
                    if (generic) a -= kSharedWindow;
                    a &= (uint64_t(1) << kClusterRankShift) - 1;
                    a |= ((reg(d.src[1], l) & 0xff) + 1) << kClusterRankShift;
                    set_reg(d.dst[0], l, generic ? a + kSharedWindow : a);
                }
                break;
            case Opc::getctarank:
                for (int l : lanes(exec)) {
                    uint64_t a0 = reg(d.src[0], l);
                    if (a0 >= kSharedWindow && a0 < kSharedWindow + kWindowBytes) a0 -= kSharedWindow;
                    const uint64_t a = a0 >> kClusterRankShift;
                    const int own = w_.cta().index() % w_.cta().run().scenario.launch.cluster_size();
                    set_reg(d.dst[0], l, a == 0 ? static_cast<uint64_t>(own) : a - 1);
                }
                break;
            case Opc::isspacep:
                for (int l : lanes(exec)) {
                    const uint64_t a = reg(d.src[0], l);
                    const auto sp = static_cast<ptx::Space>(d.sub);
                    const uint64_t w = sp == ptx::Space::shared ? kSharedWindow : sp == ptx::Space::local ? kLocalWindow
                                       : sp == ptx::Space::param ? kParamWindow : 0;
                    const bool in = sp == ptx::Space::global ? img_.layout.global_at(a).has_value()
                                                             : a >= w && a < w + kWindowBytes;
                    set_reg(d.dst[0], l, in ? 1 : 0);
                }
                break;
            case Opc::cvta_to:
            case Opc::cvta_from: {
                const auto sp = static_cast<ptx::Space>(d.sub);
                const uint64_t w = sp == ptx::Space::shared ? kSharedWindow : sp == ptx::Space::local ? kLocalWindow
                                   : sp == ptx::Space::param ? kParamWindow : 0;
                const bool wide = ty_bits(d.type) == 64;
                for (int l : lanes(exec)) {
                    const uint64_t a = reg(d.src[0], l);
                    uint64_t r = d.op == Opc::cvta_to ? a - w : a + w;
                    if (!wide) r &= 0xffffffffull;
                    set_reg(d.dst[0], l, r);
                }
                break;
            }
            default: run_alu(d, prog_, regs_.data(), exec, alu_); break;
        }
        ++stack_.top().pc;
    }
    flush();
}

void KernelWarp::read_clock(const DInst& d, uint32_t exec) {
    const int64_t now = now_cycles();
    const double mhz = w_.cta().run().timing.sm_clock_mhz;
    // %globaltimer in ns since the launch; on the GPU it ticks in 32 ns steps (gpu-host facts).
    const uint64_t ns = static_cast<uint64_t>(static_cast<double>(now) * 1000.0 / mhz) / 32 * 32;
    for (int l : lanes(exec)) {
        uint64_t v;
        if (d.op == Opc::read_clock) v = d.sub == 1 ? static_cast<uint64_t>(now) : d.sub == 2 ? static_cast<uint64_t>(now) >> 32
                                                                                               : static_cast<uint64_t>(now) & 0xffffffffull;
        else v = d.sub == 0 ? ns : d.sub == 1 ? ns & 0xffffffffull : ns >> 32;
        set_reg(d.dst[0], l, v);
    }
}

void KernelWarp::private_access(const DInst& d, uint32_t exec) {
    const auto& data = prog_.lists.at(static_cast<size_t>(d.extra));
    const auto space = static_cast<PrivateSpace>(d.space);
    const bool store = d.op == Opc::st_private;
    const bool sgn = ty_signed(d.type);
    for (int l : lanes(exec)) {
        uint64_t a = reg(d.src[0], l) + static_cast<uint64_t>(d.imm);
        uint8_t* base = nullptr;
        int64_t limit = 0;
        bool read_only = false;
        const char* what = "local";
        if (space == PrivateSpace::local) {
            if (a >= kLocalWindow && a < kLocalWindow + kWindowBytes) a -= kLocalWindow;  // a generic local address
            base = local(l);
            limit = local_bytes_;
        } else if (space == PrivateSpace::param) {
            what = "param";
            if (a >= kParamWindow && a < kParamWindow + kWindowBytes) a -= kParamWindow;
            if (a >= kBodyParamBase) {
                a -= kBodyParamBase;
                base = local(l);
                limit = local_bytes_;
            } else {
                base = img_.layout.params.data();
                limit = static_cast<int64_t>(img_.layout.params.size());
                read_only = true;
            }
        } else {
            what = "const";
            const auto place = img_.layout.global_at(a);
            if (!place || place->kind != GlobalPlace::Kind::module_global)
                fault_here(d, fmt::format("ld.const of address {:#x}, which no .const variable holds", a));
            base = img_.module_globals.at(static_cast<size_t>(place->index)).data();
            a = static_cast<uint64_t>(place->offset);
            limit = place->size;
            read_only = true;
        }
        const int64_t bytes = static_cast<int64_t>(d.width) * d.vec;
        if (static_cast<int64_t>(a) < 0 || static_cast<int64_t>(a) + bytes > limit)
            fault_here(d, fmt::format("{} {} of {} bytes at {} {:#x} leaves the {} bytes there", store ? "st" : "ld", what,
                                      bytes, what, a, limit));
        if (store && read_only) fault_here(d, fmt::format("st.{} into the kernel's params, which are read-only", what));
        for (size_t i = 0; i < data.size(); ++i) {
            uint8_t* p = base + a + i * d.width;
            if (store) {
                const uint64_t v = reg(data[i], l);
                std::memcpy(p, &v, d.width);
            } else {
                uint64_t v = 0;
                std::memcpy(&v, p, d.width);
                if (sgn && d.width < 8) {
                    const int sh = 64 - 8 * d.width;
                    v = static_cast<uint64_t>(static_cast<int64_t>(v << sh) >> sh);
                    if (d.width < 4) v &= 0xffffffffull;  // a 32-bit register holds the extended value
                }
                set_reg(data[i], l, v);
            }
        }
    }
}

void KernelWarp::warp_sync(const DInst& d, uint32_t exec) {
    // bar.warp.sync orders memory among the lanes it names (PTX 9.7.13.2): their accesses before
    // it happen before their accesses after it, as a CTA barrier does for its threads
    // (semantics.md C22); __syncwarp between lanes' reads and one lane's fence and TMA load.
    if (exec == 0) return;
    const uint32_t members = exec & static_cast<uint32_t>(reg(d.src[0], __builtin_ctz(exec)));
    if (__builtin_popcount(members) < 2) return;
    std::vector<int> threads;
    for (int l : lanes(members)) threads.push_back(w_.warp() * 32 + l);
    w_.cta().tracker().cta_sync(threads);
}

void KernelWarp::run_unit(const DInst& d, uint32_t exec) {
    const Op& op = w_.cta().run().scenario.program.at(static_cast<size_t>(d.op_id));
    if (exec == 0) return;  // every lane's guard is false: the instruction does nothing
    note_threads(op.id, exec);
    begin_instance(op);
    dispatch_unit(*this, d, img_.decoded.units.at(static_cast<size_t>(d.extra)), op, exec);
}

}  // namespace tmasim::model::kernel
