#pragma once
// Turns one thread's tma.load / tma.store / bulk.load / bulk.store / tma.prefetch /
// bulk.prefetch / bulk.reduce / tma.reduce / tma.gather4 / tma.scatter4 into a TmaRequest,
// checking at issue what PTX checks or leaves undefined: alignment (D22, D25), a
// negative store coordinate (D26), gather4/scatter4 traps (G35), ranges that leave their buffer (a fault), and, for
// reads of shared memory by the async proxy, the proxy fence rule (B12). Loads are
// registered as asynchronous writes (races with generic accesses, C17); stores, reduces
// and scatters as sources and global results to protect until their group waits (C19).
#include <cstdint>
#include <optional>
#include <string>

#include "model/core/arch_config.h"
#include "model/core/event_log.h"
#include "model/sm/tma_engine.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class CopyIssuer {
public:
    CopyIssuer(CtaModule& cta, const Op& op, const Expr::IntEnv& env);
    void issue(const EventSite& site, int thread);
    // A kernel's copy, its operands already resolved from its registers: the shared buffer it
    // reads or writes (display name, CTA offset) here, the rest in the request (kind, map
    // fields, tensor, coordinates or offsets, shared offset, bytes, barrier), checked and
    // submitted as an op's request is; `multicast_mask` for .multicast::cluster loads.
    CopyIssuer(CtaModule& cta, const Op& op, std::string buffer, int64_t buffer_base);
    void issue_resolved(TmaRequest r, const EventSite& site, int thread, std::optional<int64_t> multicast_mask);
    // What issuing an op of `kind` costs the warp (the arch config's *_issue_cycles).
    static double issue_cycles(OpKind kind, const TimingParams& tp);

private:
    TmaRequest tensor_request(const EventSite& site, int thread);
    TmaRequest bulk_request(const EventSite& site, int thread);
    TmaRequest row_request(const EventSite& site, int thread);
    // What PTX checks or leaves undefined at issue, for a tensor or a bulk request (alignment,
    // a store's negative coordinates, the proxy fence of its shared-memory read).
    void check_tensor(const EventSite& site, int thread, const TmaRequest& r);
    void check_bulk(const EventSite& site, int thread, const TmaRequest& r);
    void check_rows(const EventSite& site, int thread, const TmaRequest& r);
    void submit_checked(TmaRequest r, const EventSite& site, int thread, std::optional<int64_t> multicast_mask);
    int barrier_of_op() const;
    // Reports a fault under `rule` and ends the run (the GPU traps).
    [[noreturn]] void trap(const EventSite& site, const std::string& rule, const std::string& what);
    void register_request(TmaRequest& r, int thread);
    int64_t buffer_offset(const Ref& ref, std::string& display) const;
    void check_alignment(const EventSite& site, const std::string& what, int64_t value,
                         int64_t align);
    void check_proxy_fence(const EventSite& site, int thread, int64_t first, int64_t last);
    int64_t eval(const Expr& e, int64_t fallback) const;

    CtaModule& cta_;
    const Op& op_;
    const Expr::IntEnv& env_;
    std::string buffer_;         // display name of the shared buffer ("stage[1]")
    int64_t buffer_base_ = 0;
};

}  // namespace tmasim::model
