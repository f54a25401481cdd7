#pragma once
// The race checks of one generic access to shared memory (ld/st.shared, compute's
// elements, per-thread shared.load/store): against asynchronous writes still unobserved
// by the thread (TMA loads, cp.async: C17, C20) and, for writes, against async-proxy reads
// still in flight (BulkStoreRegistry): bulk/TMA store sources not yet released by a
// wait_group.read (C19), wgmma operands not yet retired by a wgmma.wait_group (C17).
// The same pending reads are checked for an async copy's write at its issue. Each broken
// rule is reported once per op instance (CtaModule::hazard_once), naming the op, the
// buffer bytes and the async op it races with. generic() also compares the access with
// the other warps' generic accesses of the same bytes (SharedAccessHistory, C22).
#include <cstdint>
#include <string>

#include "model/core/event_log.h"
#include "model/state/shared_access_history.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class SharedRaceCheck {
public:
    // `buffer` names the accessed buffer ("tile", "stage[1]") at CTA offset `buffer_base`.
    SharedRaceCheck(CtaModule& cta, const Op& op, std::string buffer, int64_t buffer_base);

    // Thread `thread`'s access of bytes [offset, offset + bytes) (CTA offsets).
    void access(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write);
    // access(), and the cluster's check against peers' DSMEM accesses of these bytes
    // (Cluster::generic_access): every generic access of the CTA's own shared memory.
    void generic(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write);
    // A write of [offset, offset + bytes) by `thread` (a generic store, or an async copy it
    // issues) against the async-proxy reads still in flight there.
    void pending_reads(const EventSite& site, int thread, int64_t offset, int64_t bytes);
    // A cp.async of `thread` into [offset, offset + bytes) against earlier cp.async copies
    // still writing there, unobserved by the thread (write after write, C20).
    // An async copy's write into [offset, offset + bytes), issued by `thread`, against the
    // other warps' generic accesses not ordered before the issue (C22: a TMA load refilling
    // a stage its consumers still read).
    void async_write_issue(const EventSite& site, int thread, int64_t offset, int64_t bytes);
    void cp_async_overwrite(const EventSite& site, int thread, int64_t offset, int64_t bytes);
    // An async-proxy write (TMA/bulk load, a multicast delivery into this CTA) issued by
    // `thread` into [offset, offset + bytes): the generic reads and writes of these bytes
    // ordered before it need fence.proxy.async on the path (B12, write after read), and no
    // other async write may still be pending there unobserved (C17, async after async).
    void async_proxy_write(const EventSite& site, int thread, int64_t offset, int64_t bytes);
    // An async-proxy read (a TMA/bulk store's or reduce's source) issued by `thread`: no async
    // write into those bytes may still be pending unobserved by it (C17, async after async).
    void async_proxy_read(const EventSite& site, int thread, int64_t offset, int64_t bytes);

private:
    // An async write still pending in [offset, offset + bytes) that `thread` has not observed
    // (race.async_overlap); `reads` says whether the new async op reads or writes.
    void pending_async_writes(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool reads);
    // Against the other threads' generic accesses of these bytes (SharedAccessHistory, C22).
    void other_threads(const EventSite& site, int thread, int64_t offset, int64_t bytes, bool is_write,
                       bool record = true);
    std::string bytes_text(int64_t first, int64_t last) const;
    std::string op_name(int id) const;

    CtaModule& cta_;
    const Op& op_;
    std::string buffer_;
    int64_t base_;
    SharedAccessHistory::WarpView warp_;  // taken at the op's first access (C22)
};

}  // namespace tmasim::model
