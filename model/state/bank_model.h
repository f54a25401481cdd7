#pragma once
// Shared-memory bank conflicts of one warp-wide ld/st.shared (semantics.md E30).
//
// Shared memory has 32 banks of 4 bytes: word w (byte address / 4) lives in bank w % 32,
// and one wavefront serves at most one word per bank, 128 bytes in all. The rule we
// implement, after the CUDA C++ Programming Guide's shared-memory section for compute
// capability 5.x and later (which Hopper keeps) and Nsight Compute's "wavefronts" metric:
//   * The warp's access is split into phases by access width, so that one phase asks for
//     at most 128 bytes: 1-, 2- and 4-byte accesses are one phase of 32 lanes; 8-byte
//     accesses two half-warp phases (lanes 0-15, 16-31); 16-byte accesses four
//     quarter-warp phases (lanes 0-7, 8-15, ...).
//   * A phase needs as many wavefronts as the most distinct words any one bank holds.
//     Lanes that touch the same word share it (broadcast on loads; one write wins on
//     stores), so identical addresses never conflict.
//   * The access costs the sum over phases; the conflict ways are the worst phase's
//     wavefronts (1 = conflict-free).
// Not modelled: merging two phases that ask for the same 128 bytes (the hardware may
// serve a broadcast 8-byte load in one wavefront), and inactive-lane compaction.
// hopper-figures.md (GH-09) confirms the cost side: a 4-byte stride of k words gives
// 128/k B/clk, one more 128-byte pass per extra way.
#include <cstdint>
#include <vector>

namespace tmasim::model {

struct BankCost {
    int64_t wavefronts = 0;     // 128-byte passes the access needs in all
    int64_t conflict_ways = 0;  // the worst phase's wavefronts; 1 = no conflict
    int64_t ideal_wavefronts = 0;  // one per phase with an active lane
    // Nsight Compute's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}: the
    // wavefronts beyond the ideal ones (equal on the H200 for strides 1-33 and swizzled
    // 16-byte reads: traces/recorded/NVIDIA-H200/ncu/bank_conflicts.json).
    int64_t conflicts() const { return wavefronts - ideal_wavefronts; }
};

class BankModel {
public:
    static constexpr int kBanks = 32;
    static constexpr int kBankBytes = 4;

    // One lane's access: its byte address in shared memory. Lanes that do not take part
    // are left out; `lane` (0..31) decides the phase the access belongs to.
    struct LaneAccess {
        int lane = 0;
        int64_t address = 0;
    };

    // `width` is the bytes each lane accesses (1, 2, 4, 8 or 16).
    static BankCost cost(const std::vector<LaneAccess>& lanes, int width);
    // Lanes per phase for an access width: 32, 16 or 8.
    static int lanes_per_phase(int width);
};

}  // namespace tmasim::model
