#pragma once
// One warp running a kernel's PTX: its register file and lanes' local memory, the SIMT stack
// of its diverged paths, the time its instructions take, and the dispatch of every instruction
// the units see to its family's handler (model/kernel/unit_*.cpp), through the same CTA state
// (CtaModule, its units and rules) the op scenarios use. The warp's SystemC thread is its
// WarpProcess; this is what WarpProcess::run_kernel runs.
//
// Time: an ALU or control instruction costs the warp one issue cycle, added up and spent in
// one wait before the next instruction that reaches a unit (or reads a clock), so a warp
// computing does not switch SystemC threads per instruction; the units' instructions cost what
// the arch config says for the op they are.
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "model/kernel/alu.h"
#include "model/kernel/kernel_image.h"
#include "model/kernel/simt_stack.h"

namespace tmasim::model {
class WarpProcess;
class CtaModule;
}  // namespace tmasim::model

namespace tmasim::model::kernel {

class KernelWarp {
public:
    KernelWarp(WarpProcess& w, KernelImage& image);
    ~KernelWarp();  // adds its instructions to the image's count, also when the run aborts
    KernelWarp(const KernelWarp&) = delete;
    KernelWarp& operator=(const KernelWarp&) = delete;
    void run();

    // --- for the unit handlers ---
    WarpProcess& warp() { return w_; }
    CtaModule& cta();
    KernelImage& image() { return img_; }
    const KernelLayout& layout() const { return img_.layout; }
    uint64_t reg(int32_t slot, int lane) const { return regs_[static_cast<size_t>(slot) * 32 + static_cast<size_t>(lane)]; }
    void set_reg(int32_t slot, int lane, uint64_t v) { regs_[static_cast<size_t>(slot) * 32 + static_cast<size_t>(lane)] = v; }
    // An address operand's value in `lane`: its base register (or symbol) plus its offset.
    uint64_t address(const UnitOperand& o, int lane) const {
        return (o.slot >= 0 ? reg(o.slot, lane) : 0) + static_cast<uint64_t>(o.offset);
    }
    uint8_t* local(int lane) { return local_.data() + static_cast<size_t>(lane) * static_cast<size_t>(local_bytes_); }
    int64_t local_bytes() const { return local_bytes_; }
    // Spends the instructions' cycles run since the last unit instruction.
    void flush();
    // The lanes of `mask`, ascending; the lane that logs an instance's events (its lowest).
    static std::vector<int> lanes(uint32_t mask);
    // Starts an instance of `op`: its number among this warp's (the events' loop index).
    void begin_instance(const Op& op);
    // Which threads run unit op `op` (KernelImage::op_thread).
    void note_threads(int op, uint32_t exec);
    // What the warp did that another thread could see, for the spin rule (unit_mbarrier.cpp):
    // a try_wait that fails twice on the same phase with nothing else between blocks until
    // the barrier changes, as the kernel's own loop would poll it until then.
    uint64_t visible_actions() const { return visible_actions_; }
    void note_visible_action() { ++visible_actions_; }
    struct FailedPoll {
        int op = -1, cta = -1, barrier = -1;
        int64_t parity = -1;
        uint64_t actions = 0;
        bool valid = false;
    };
    FailedPoll& last_failed_poll() { return failed_poll_; }
    int lane_count() const { return lanes_live_; }
    // The warp's wgmma state (model/kernel/unit_wgmma.cpp): whether it fenced, its mmas in
    // their commit groups, its tensor-core pipe.
    struct Wgmma {
        struct Mma {
            int64_t seq = 0;
            int64_t complete_at = 0;
        };
        bool fenced = false;
        std::vector<Mma> open;
        std::deque<std::vector<Mma>> groups;
        int64_t retired_end = 0;
        int64_t next_seq = 0;
        int64_t pipe_free = 0;
    };
    Wgmma& wgmma() { return wgmma_; }
    // The warp's lanes that have not exited.
    uint32_t alive_mask() const { return live_mask_ & ~exited_; }

private:
    void loop();
    std::string place(const DInst& d) const;  // "`opcode` at k.ptx:12:3 (k.cu:4:5)"
    void init_slots();
    uint64_t special_value(const std::string& name, int lane) const;
    void step();
    void private_access(const DInst& d, uint32_t exec);
    void read_clock(const DInst& d, uint32_t exec);
    void run_unit(const DInst& d, uint32_t exec);
    void warp_sync(const DInst& d, uint32_t exec);
    [[noreturn]] void fault_here(const DInst& d, const std::string& message);
    uint32_t guard_mask(const DInst& d, uint32_t mask) const;

    WarpProcess& w_;
    KernelImage& img_;
    const DecodedProgram& prog_;
    std::vector<uint64_t> regs_;
    std::vector<uint8_t> local_;
    int64_t local_bytes_ = 0;
    WarpStack stack_;
    AluState alu_;
    int lanes_live_ = 32;
    uint32_t live_mask_ = 0;
    uint32_t exited_ = 0;
    double pending_ = 0;
    uint64_t since_flush_ = 0;
    uint64_t executed_ = 0, executed_threads_ = 0;
    std::vector<int64_t> instances_;  // per op id: this warp's instances so far
    uint64_t visible_actions_ = 0;
    FailedPoll failed_poll_;
    Wgmma wgmma_;
};

}  // namespace tmasim::model::kernel
