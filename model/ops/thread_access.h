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

#include "model/core/event_log.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;
class SharedRaceCheck;

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
    // shared.snapshot: `lane` reads every byte of the op's buffer (this CTA's copy), checked
    // exactly like a shared.load of those bytes. Returns the bytes as shared memory holds
    // them now; `display` gets the buffer's name ("stage[1]").
    std::vector<uint8_t> snapshot_read(int lane, std::string& display);

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
