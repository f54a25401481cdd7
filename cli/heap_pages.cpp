#include "cli/heap_pages.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

// gperftools' C hook API (malloc_hook_c.h, not installed with libtcmalloc-minimal4): called
// after each sbrk, tcmalloc's own included. Weak, so a build without tcmalloc links and skips.
extern "C" int MallocHook_AddSbrkHook(void (*hook)(const void* result, std::ptrdiff_t increment))
    __attribute__((weak));

namespace tmasim::cli {

namespace {

// The model's memory is a heap tcmalloc grows by sbrk, touched a 4 KB page at a time: a
// full-chip stream faulted in 33k pages (the event log alone 60 MB), each fault a trap into
// this VM's kernel, and its state spread over 132 CTAs missed the TLB on most visits. With the
// kernel's transparent huge pages in "madvise" mode (Debian's default) the heap gets 2 MB
// pages only where advised: each new range is, and the heap's mapping, advised whole as it
// grows, stays one mapping. Addresses never reach the output.
void advise_new_heap(const void* result, std::ptrdiff_t increment) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (increment <= 0 || result == reinterpret_cast<const void*>(-1)) return;
    static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto first = reinterpret_cast<std::uintptr_t>(result) & ~(page - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(result) + static_cast<std::uintptr_t>(increment);
    madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);  // an error leaves 4 KB pages
#ifdef MADV_POPULATE_WRITE
    // tcmalloc grows the heap 1 MB at a time for its small spans, and a 2 MB page needs its
    // whole aligned range inside the mapping, untouched, when first touched: these ranges stay
    // 4 KB pages, one trap each (132 CTAs' per-CTA state and 528 shared-memory images were
    // thousands). Asked for, they are about to be used: made present in one call instead.
    // Not the large ranges (a log reserved for millions of events is touched only as used).
    constexpr std::uintptr_t kMostPopulated = std::uintptr_t{4} << 20;
    if (end - first <= kMostPopulated) madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
#endif
#else
    (void)result;
    (void)increment;
#endif
}

}  // namespace

void advise_heap_huge_pages() {
    if (!MallocHook_AddSbrkHook) return;
    MallocHook_AddSbrkHook(&advise_new_heap);
    // Populated or not, 1 MB growths stay 4 KB pages, and in this VM a 4 KB page costs
    // ~8 us by its first use even populated (~1.5 us the populate, ~6.5 us the first touch:
    // its shadow page tables), ~15 us trapped, against 0.1-1.1 us per 4 KB of a 2 MB page
    // (host memory warm or cold): a 132-CTA stream's small spans were ~12k pages (1 CTA,
    // the same tiles: ~8k). One large growth now, handed straight back, leaves tcmalloc a
    // free span that it carves its spans (and large blocks) from before it grows the heap
    // again: advised whole, it is made present 2 MB at a time, as used. Address space only
    // until touched; past it, the heap grows as before.
    constexpr size_t kHeapAhead = size_t{256} << 20;
    void* volatile ahead = std::malloc(kHeapAhead);  // volatile: the pair is not optimised away
    std::free(ahead);
}

}  // namespace tmasim::cli
