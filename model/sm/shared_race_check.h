#pragma once
// The race checks of one generic access to shared memory (ld/st.shared, compute's
// elements, per-thread shared.load/store): against asynchronous writes still unobserved
// by the thread (TMA loads, cp.async: C17, C20) and, for writes, against async-proxy reads
// still in flight (BulkStoreRegistry): bulk/TMA store sources not yet released by a
// wait_group.read (C19), wgmma operands not yet retired by a wgmma.wait_group (C17).
// The same pending reads are checked for an async copy's write at its issue. Each broken
// rule is reported once per op instance (CtaModule::hazard_once), naming the op, the
// buffer bytes and the async op it races with.
#include <cstdint>
#include <string>

#include "model/core/event_log.h"
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

private:
    std::string bytes_text(int64_t first, int64_t last) const;
    std::string op_name(int id) const;

    CtaModule& cta_;
    const Op& op_;
    std::string buffer_;
    int64_t base_;
};

}  // namespace tmasim::model
