#pragma once
// SystemC's coroutine stacks kept mapped and reused instead of unmapped (see stack_pool.cpp).

namespace tmasim::cli {

// Routes the anonymous mappings of exactly a model thread's stack size through a pool, by
// tcmalloc's mmap and munmap replacement hooks. Does nothing without tcmalloc (glibc's
// allocator, the sanitizer and fuzz builds).
void pool_coroutine_stacks();

}  // namespace tmasim::cli
