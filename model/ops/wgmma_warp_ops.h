#pragma once
// What one warp does for the wgmma ops of scenarios/FORMAT.md "wgmma": wgmma.fence,
// mma_async, commit_group, wait_group, acc_fill and acc_store, on its share of the
// warpgroup's state (WgmmaState, held by the CTA). WarpProcess hands these ops here whole:
// events, costs and waits.
//
// mma_async checks, at issue: the fence rule (wgmma.missing_fence, F32); the operands'
// bytes as an async-proxy read by every executing thread (proxy.generic_to_async for
// generic writes without a fence on the causality path, B12/B14; the race rules for
// bytes an async copy still writes, C17); then computes the warp's rows of the result.
// The operand bytes stay an in-flight async read until a wgmma.wait_group retires the
// mma (BulkStoreRegistry): writes there before that are race.wgmma_operand_overwrite.
// acc_fill / acc_store of an accumulator that an mma not yet retired by wait_group
// writes is wgmma.acc_before_wait; acc_store's stores are generic writes.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/state/bank_model.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;
class WarpProcess;
class WgmmaState;
struct TimingParams;

class WgmmaWarpOps {
public:
    explicit WgmmaWarpOps(WarpProcess& warp);

    // Runs `op` on the warp's executing `lanes` (the whole warp: wgmma needs warpgroups).
    void exec(const Op& op, const std::vector<int>& lanes);

    // Generic writes an operand read finds unfenced: buffer bytes, writer threads, ops.
    struct UnfencedRead {
        std::string buffer;
        int64_t first = 0, last = 0;
        std::set<int> writers, ops;
    };
    // The async-proxy read of an mma's operand bytes `ranges` (CTA offsets, in shared buffer
    // `buffer` at `base`) by every executing lane of warp `w`: race reports go out at once,
    // unfenced writes come back (for report_unfenced, one report per mma). For both front ends.
    static std::optional<UnfencedRead> check_read(CtaModule& cta, const Op& op, WarpProcess& w, const std::string& buffer,
                                                  int64_t base, const std::vector<std::pair<int64_t, int64_t>>& ranges,
                                                  const std::vector<int>& lanes);
    static void report_unfenced(CtaModule& cta, const Op& op, WarpProcess& w, const std::vector<UnfencedRead>& reads);

private:
    double mma(const Op& op, const std::vector<int>& lanes);
    void wait(const Op& op, const std::vector<int>& lanes);
    void fill(const Op& op);
    double store(const Op& op, const std::vector<int>& lanes);
    double store_cycles(const std::vector<std::vector<BankModel::LaneAccess>>& per_register) const;
    void check_fence(const Op& op);
    void check_not_pending(const Op& op);
    // The async-proxy read of operand `ref` (chunks: its 16-byte offsets the slice reads)
    // by every executing thread: race reports go out at once, unfenced writes come back.
    std::optional<UnfencedRead> check_operand_read(const Op& op, const Ref& ref, const std::vector<int64_t>& chunks,
                                                   const std::vector<int>& lanes);
    int group() const;

    WarpProcess& w_;
    CtaModule& cta_;
    WgmmaState& state_;
    int warp_in_group_;
    const TimingParams& tp_;
};

}  // namespace tmasim::model
