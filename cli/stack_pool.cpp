#include "cli/stack_pool.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "model/core/asan_stacks.h"
#include "model/sm/warp_process.h"

// gperftools' C hook API (malloc_hook_c.h, not installed with libtcmalloc-minimal4): a
// replacement that returns nonzero stands for the call, *result its return value. Weak, so a
// build without tcmalloc links and skips.
extern "C" int MallocHook_SetMmapReplacement(int (*hook)(const void* start, size_t size, int protection, int flags,
                                                         int fd, off_t offset, void** result))
    __attribute__((weak));
extern "C" int MallocHook_SetMunmapReplacement(int (*hook)(const void* ptr, size_t size, int* result))
    __attribute__((weak));

namespace tmasim::cli {

namespace {

// SystemC maps each thread's stack when it starts the thread and unmaps it when the thread
// ends. A full-chip stream has 660 threads (4 warps and 2 TMA engine threads per CTA) that
// end with the run, and in this VM each unmap of a touched stack is a TLB shootdown to the
// other core: ~40 ms of a 132-CTA run (its tail and the engine threads' unwind: 38 -> 10 ms
// and 15 -> 3 ms with the unmaps skipped). Their stacks are kept here instead, the pages they
// touched zeroed (a mapping handed out again reads as a fresh one), and handed to the next
// thread of the same stack size (the next run of a batch). Only mappings made here are
// kept: other code's unmaps go through. The hooks run inside tcmalloc's own mmap calls too,
// so nothing here allocates; a full table or pool falls back to the real calls.
constexpr size_t kSlots = size_t{1} << 14;  // open addressing by address, a power of two
constexpr size_t kMostPooled = 4096;         // per stack size
constexpr std::uintptr_t kTombstone = 1;

struct Slot {
    std::uintptr_t addr = 0;  // 0: empty
    size_t size = 0;
};
Slot table[kSlots];
size_t sizes[2] = {0, 0};  // the warps' stack size and SystemC's default
std::uintptr_t pool[2][kMostPooled];
size_t pooled[2] = {0, 0};
std::atomic_flag busy = ATOMIC_FLAG_INIT;  // the device backend's driver threads map memory too

class Lock {
public:
    Lock() {
        while (busy.test_and_set(std::memory_order_acquire)) {
        }
    }
    ~Lock() { busy.clear(std::memory_order_release); }
};

int size_index(size_t size) {
    for (int k = 0; k < 2; ++k)
        if (sizes[k] != 0 && size == sizes[k]) return k;
    return -1;
}

size_t slot_of(std::uintptr_t addr) { return static_cast<size_t>((addr >> 12) * 0x9E3779B97F4A7C15ull) & (kSlots - 1); }

bool remember(std::uintptr_t addr, size_t size) {
    for (size_t i = slot_of(addr), n = 0; n < kSlots; i = (i + 1) & (kSlots - 1), ++n)
        if (table[i].addr == 0 || table[i].addr == kTombstone) {
            table[i] = Slot{addr, size};
            return true;
        }
    return false;
}

bool forget(std::uintptr_t addr, size_t size) {
    for (size_t i = slot_of(addr), n = 0; n < kSlots && table[i].addr != 0; i = (i + 1) & (kSlots - 1), ++n)
        if (table[i].addr == addr && table[i].size == size) {
            table[i].addr = kTombstone;
            return true;
        }
    return false;
}

// The pages the thread touched, back to zeros (untouched ones read as zeros already).
void zero_touched(void* addr, size_t size) {
    static unsigned char resident[(size_t{1} << 20) / 4096];
    const size_t page = 4096, pages = size / page;
    if (pages > sizeof(resident) || mincore(addr, size, resident) != 0) {
        std::memset(addr, 0, size);
        return;
    }
    for (size_t p = 0; p < pages; ++p)
        if (resident[p] & 1) std::memset(static_cast<char*>(addr) + p * page, 0, page);
}

int map_stack(const void* start, size_t size, int protection, int flags, int fd, off_t offset, void** result) {
    if (start != nullptr || fd != -1 || offset != 0 || protection != (PROT_READ | PROT_WRITE) ||
        flags != (MAP_PRIVATE | MAP_ANONYMOUS))
        return 0;
    const int k = size_index(size);
    if (k < 0) return 0;
    Lock lock;
    void* p = nullptr;
    if (pooled[k] > 0) {
        p = reinterpret_cast<void*>(pool[k][--pooled[k]]);
    } else {
        p = reinterpret_cast<void*>(syscall(SYS_mmap, start, size, protection, flags, fd, offset));
        if (p == MAP_FAILED) return 0;  // the real call fails again and sets errno
    }
    if (!remember(reinterpret_cast<std::uintptr_t>(p), size)) {
        syscall(SYS_munmap, p, size);
        return 0;
    }
    *result = p;
    return 1;
}

int unmap_stack(const void* ptr, size_t size, int* result) {
    const int k = size_index(size);
    if (k < 0) return 0;
    Lock lock;
    if (pooled[k] == kMostPooled || !forget(reinterpret_cast<std::uintptr_t>(ptr), size)) return 0;
    zero_touched(const_cast<void*>(ptr), size);
    pool[k][pooled[k]++] = reinterpret_cast<std::uintptr_t>(ptr);
    *result = 0;
    return 1;
}

size_t whole_pages(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

}  // namespace

void pool_coroutine_stacks() {
    if (!MallocHook_SetMmapReplacement || !MallocHook_SetMunmapReplacement || sysconf(_SC_PAGESIZE) != 4096) return;
    sizes[0] = whole_pages(model::WarpProcess::kStackBytes);
    sizes[1] = whole_pages(model::default_thread_stack_bytes());
    if (sizes[1] == sizes[0]) sizes[1] = 0;
    if (MallocHook_SetMmapReplacement(&map_stack)) MallocHook_SetMunmapReplacement(&unmap_stack);
}

}  // namespace tmasim::cli
