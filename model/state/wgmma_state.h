#pragma once
// The wgmma state of one warpgroup (PTX 9.7.15.5.2, 9.7.15.7; semantics.md B13, F32).
//
// Each of the four warps executes the warpgroup's wgmma ops in program order and holds
// its own registers: rows 16w..16w+15 of every accumulator (wgmma_fragment_coord). So
// the state is kept per warp of the group:
//   - fences: whether the warp has issued wgmma.fence at all, and the register accesses
//     (acc_fill / acc_store) of each accumulator since its latest fence. An mma_async
//     needs both covered (F32); mma-to-mma accumulator chains need no fence.
//   - mmas: issued but not committed, then committed groups in commit order. A group
//     completes when all its mmas do, and groups complete in order: wait_group n retires
//     the oldest groups until at most n are pending, and only then do their results land
//     in the registers (B13). Until then the registers hold what they held before.
//   - each mma's result is computed at issue (the operands must not change before it
//     completes), from the accumulator value the mma chain has reached at that point.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

struct WgmmaMma {
    int op = -1;
    std::string acc;
    std::vector<float> result;  // the warp's 16 rows x N, row-major
    int64_t complete_at = 0;    // cycle the result is in the registers
    int64_t seq = -1;           // the warp's issue count before it (set by issue)
};

// Why an mma_async breaks the fence rule, for the report.
struct WgmmaFenceGap {
    bool never_fenced = false;  // no wgmma.fence by the warp before its first mma
    int access_op = -1;         // else: the latest register access after the latest fence
};

class WgmmaState {
public:
    static constexpr int kWarps = 4;
    static constexpr int kRowsPerWarp = 16;

    explicit WgmmaState(const std::vector<AccumulatorDecl>& accumulators);

    void fence(int warp);
    std::optional<WgmmaFenceGap> fence_gap(int warp, const std::string& acc) const;
    // acc_fill (write) or acc_store (read) of `acc`'s registers by `op`.
    void register_access(int warp, const std::string& acc, int op);

    // The value the next mma on `acc` adds to with scale_d 1: the newest issued mma's
    // result, or the registers when none is in flight.
    const std::vector<float>& chain_value(int warp, const std::string& acc) const;
    // Numbers the mma (its seq: the warp's count of mmas issued before it, the same for
    // every warp of the group at one instruction) and returns that number.
    int64_t issue(int warp, WgmmaMma mma);
    void commit(int warp);
    // wait_group n: retires the oldest groups until at most n remain and writes their
    // results to the registers. Returns the cycle the last retired mma completes (or
    // `now` when nothing was retired, or it has completed already).
    int64_t wait(int warp, int n, int64_t now);
    // The oldest mma of the warp not yet retired (committed or not) that writes `acc`.
    const WgmmaMma* pending_writer(int warp, const std::string& acc) const;
    // Every mma of the warp with seq below this has been retired by a wait.
    int64_t retired_end(int warp) const { return warps_.at(warp).retired_end; }

    std::vector<float>& registers(int warp, const std::string& acc);
    int accumulator_n(const std::string& acc) const;
    size_t pending_groups(int warp) const { return warps_.at(warp).groups.size(); }
    size_t uncommitted(int warp) const { return warps_.at(warp).open.size(); }
    // The warp's tensor-core pipe is busy until this cycle (issue order).
    int64_t& pipe_free(int warp) { return warps_.at(warp).pipe_free; }

private:
    struct Warp {
        bool fenced = false;
        std::map<std::string, int> access_since_fence;  // acc -> op id
        std::map<std::string, std::vector<float>> registers;
        std::vector<WgmmaMma> open;                     // issued, not committed
        std::deque<std::vector<WgmmaMma>> groups;       // committed, oldest first
        int64_t pipe_free = 0;
        int64_t issued = 0;
        int64_t retired_end = 0;
    };
    const std::vector<float>& newest_result(const Warp& w, const std::string& acc) const;

    std::map<std::string, int> n_of_;
    std::vector<Warp> warps_;
};

}  // namespace tmasim::model
