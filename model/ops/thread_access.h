#pragma once
// The per-thread ops of one warp (scenarios/FORMAT.md): shared.load, shared.store,
// global.load and cp.async. Every executing lane evaluates the op's expressions with its
// own tid, lane and warp; the warp's accesses are then costed together (bank wavefronts
// for shared memory, L2 or HBM latency for global lines) and checked for races
// (SharedRaceCheck, BulkStoreRegistry). shared.* are generic accesses of the thread;
// cp.async copies are generic writes of the thread's cp.async unit, landing later.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/core/arch_config.h"
#include "model/core/event_log.h"
#include "model/state/bank_model.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;
class SharedRaceCheck;

// One lane's cp.async, resolved: `size` bytes into CTA offset `to`, the first `src_size` of
// them from byte `from` of `tensor` (the rest zero-filled).
struct CpAsyncArgs {
    int lane = 0;
    int64_t to = 0;
    std::string tensor;
    int64_t from = 0;
    int64_t size = 0;
    int64_t src_size = 0;
};

// The expression environment of one thread: `env` (loop variables, cta, rank) plus its tid,
// lane and warp.
Expr::IntEnv thread_env(const Expr::IntEnv& env, int warp, int lane);

class ThreadAccess {
public:
    // `site` is the op instance's event site; the lane is filled in per access.
    ThreadAccess(CtaModule& cta, const Op& op, const Expr::IntEnv& env, int warp, EventSite site);

    // Each returns the op's modelled cycles and fills `detail` for its trace events.
    double shared_access(const std::vector<int>& lanes, std::map<std::string, std::string>& detail);
    double global_access(const std::vector<int>& lanes, std::map<std::string, std::string>& detail);
    double cp_async(const std::vector<int>& lanes);
    // The copies of cp_async, their operands resolved (by an op's expressions or a kernel's
    // registers), into shared buffer `buffer` at CTA offset `base` (for messages).
    double cp_async_copies(const std::vector<CpAsyncArgs>& copies, const std::string& buffer, int64_t base);
    // shared.snapshot: `lane` reads every byte of the op's buffer (this CTA's copy), checked
    // exactly like a shared.load of those bytes. Returns the bytes as shared memory holds
    // them now; `display` gets the buffer's name ("stage[1]").
    std::vector<uint8_t> snapshot_read(int lane, std::string& display);

    // What a warp's access costs it, for any front end: a shared access of the bank cost `c`
    // (its wavefronts and conflicts go into `detail`), and a global load whose lines were
    // resident (or not) in L2.
    static double shared_cycles(const TimingParams& tp, const BankCost& c, bool is_store,
                                std::map<std::string, std::string>& detail);
    static double global_load_cycles(CtaModule& cta, bool resident);

private:
    Expr::IntEnv lane_env(int lane) const;
    EventSite lane_site(int lane) const;
    int64_t shared_buffer(const Ref& ref, std::string& display, const SharedBuffer*& decl) const;
    // The race checks of one generic access by `lane` to bytes [offset, offset + bytes) of
    // the checked buffer (CTA offsets): async writes (SharedRaceCheck) and other CTAs' accesses.
    void check_generic(SharedRaceCheck& races, int lane, int64_t offset, int64_t bytes, bool is_store) const;
    // Writes `value` into element `element` of `data`, an array of `type` elements.
    void store_value(DType type, uint8_t* data, int64_t element, const Expr::IntEnv& env) const;

    CtaModule& cta_;
    const Op& op_;
    const Expr::IntEnv& env_;
    int warp_;
    EventSite site_;
};

}  // namespace tmasim::model
