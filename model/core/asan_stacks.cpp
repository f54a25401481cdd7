#include "model/core/asan_stacks.h"

#if defined(__SANITIZE_ADDRESS__)
#define TMASIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TMASIM_ASAN 1
#endif
#endif

#ifdef TMASIM_ASAN
#include <pthread.h>
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

#include <map>
#include <mutex>
#endif

namespace tmasim::model {

std::size_t default_thread_stack_bytes() { return static_cast<std::size_t>(sc_core::SC_DEFAULT_STACK_SIZE); }

#ifdef TMASIM_ASAN

namespace {

struct StackRange {
    std::uintptr_t bottom = 0, top = 0;
};

// The coroutine stacks of the threads running now, by their top address.
std::mutex registry_mutex;
std::map<std::uintptr_t, std::uintptr_t>& coroutine_stacks() {
    static std::map<std::uintptr_t, std::uintptr_t> stacks;
    return stacks;
}

std::uintptr_t page_bytes() {
    static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    return page;
}

// An address below the caller's frame: the stack under it holds no live object.
__attribute__((noinline)) std::uintptr_t frame_below_caller() {
    return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
}

// ASan's bounds become `stack` (a switch to the fiber we are on, keeping its fake stack),
// and the shadow of [stack.bottom, below) is cleared (below 0: none).
void reset_running_stack(StackRange stack, std::uintptr_t below) {
    void* fake_stack = nullptr;
    __sanitizer_start_switch_fiber(&fake_stack, reinterpret_cast<const void*>(stack.bottom),
                                   stack.top - stack.bottom);
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
    if (below > stack.bottom)
        __asan_unpoison_memory_region(reinterpret_cast<void*>(stack.bottom), below - stack.bottom);
}

bool native_stack(StackRange& out) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return false;
    void* low = nullptr;
    std::size_t size = 0;
    const bool ok = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) return false;
    out.bottom = reinterpret_cast<std::uintptr_t>(low);
    out.top = out.bottom + size;
    return true;
}

bool registered_stack(std::uintptr_t frame, StackRange& out) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto& stacks = coroutine_stacks();
    auto it = stacks.upper_bound(frame);
    if (it == stacks.end() || it->second > frame) return false;
    out = {it->second, it->first};
    return true;
}

}  // namespace

CoroutineStackScope::CoroutineStackScope(std::size_t stack_bytes) {
    // SystemC maps a coroutine's stack (its size rounded up to whole pages, the lowest
    // page a guard page) and starts the thread at its top; the few frames above this one
    // (QuickThreads' start, SystemC's thread function) fit in the top page. Were they
    // deeper, this range would lie a page lower, still inside the mapping.
    const std::uintptr_t page = page_bytes();
    const std::uintptr_t frame = frame_below_caller();
    const std::uintptr_t mapped = (stack_bytes + page - 1) & ~(page - 1);
    top_ = (frame & ~(page - 1)) + page;
    const StackRange stack{top_ - mapped + page, top_};
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        coroutine_stacks()[stack.top] = stack.bottom;
    }
    reset_running_stack(stack, frame);
}

CoroutineStackScope::~CoroutineStackScope() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    coroutine_stacks().erase(top_);
}

void after_thread_resume() {
    StackRange stack;
    if (registered_stack(frame_below_caller(), stack)) reset_running_stack(stack, 0);
}

void after_simulation() {
    const std::uintptr_t frame = frame_below_caller();
    StackRange stack;
    if (native_stack(stack) && stack.bottom <= frame && frame < stack.top) reset_running_stack(stack, frame);
}

#else

CoroutineStackScope::CoroutineStackScope(std::size_t) {}
CoroutineStackScope::~CoroutineStackScope() = default;
void after_thread_resume() {}
void after_simulation() {}

#endif

}  // namespace tmasim::model
