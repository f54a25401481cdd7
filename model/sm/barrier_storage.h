#pragma once
// Barrier storage lifetime (semantics.md A11): while an mbarrier is live its 8 bytes take
// mbarrier operations only, and mbarrier.init may take bytes only once their use as data
// is over. Both front ends reach these checks through the same places: every generic access
// and async write issue of shared memory (SharedRaceCheck), and every init and inval
// (CtaModule::barrier_action), so a kernel's barrier, an address like any other, is checked
// as a program's barrier declared in a buffer (`barriers: {bar: {at: ...}}`) is.
#include <cstdint>
#include <string>

#include "model/core/event_log.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

// Thread `thread`'s access of CTA bytes [offset, offset + bytes) by `op`: a hazard
// (mbarrier.live_bytes_access, once per op instance) when a live barrier lies in them.
// `how` says what the access is ("writes", "reads", "issues an async write of"); `buffer`
// names the accessed buffer, at CTA offset `base`, as SharedRaceCheck does.
// `owner`: the CTA whose shared memory it is, when not `cta` (a peer's DSMEM store, st.async or
// multicast delivery, reported at `cta`, the accessor).
void check_live_barrier_bytes(CtaModule& cta, const Op& op, const EventSite& site, int thread, int64_t offset,
                              int64_t bytes, const char* how, const std::string& buffer, int64_t base,
                              CtaModule* owner = nullptr);

// Before `thread`'s mbarrier.init of barrier `barrier`: its bytes must not be written by an
// async copy the thread has not observed complete, read by an async read still in flight,
// or accessed by another warp's generic access not ordered before the init
// (mbarrier.init_over_data). Records the init as a write of the bytes (C22).
void check_init_storage(CtaModule& cta, int barrier, int thread, const Op& op, const EventSite& site);

// After `thread`'s mbarrier.inval: the bytes are data again, written last by the inval, so
// another warp's use of them is ordered after it or races (C22).
void note_inval_storage(CtaModule& cta, int barrier, int thread, const Op& op);

}  // namespace tmasim::model
