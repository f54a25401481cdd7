#pragma once
// AddressSanitizer's picture of the stacks SystemC runs the model on (issue 13).
//
// Debian's SystemC 2.3.4 runs each SC_THREAD on a QuickThreads coroutine stack and tells
// ASan about the switches only in part: a switch back to the main coroutine announces an
// empty stack (2.3.4 records none for it), and a thread's end (sc_cor_pkg_qt::abort)
// announces nothing, so the thread that runs next keeps the dead one's bounds. Upstream
// fixed both after 2.3.4 (accellera-official/systemc 1a61764c1). With wrong bounds ASan
// skips the unpoisoning it does when an exception is thrown ("ignoring requested
// __asan_handle_no_return"): the frames the exception unwinds keep their redzones, and
// whatever runs there next (the unwinder's landing pads first) reports a false
// stack-buffer-overflow. A stack mapped where a deleted thread's was also inherits its
// redzones (this ASan leaves the shadow of a new mapping as it was).
//
// So the model's threads tell ASan their own bounds where they start and wherever a wait
// returns (thread_wait), and the process's stack gets its bounds back when sc_start
// returns. Only memory below the running frame, where no live object is, gets its
// shadow cleared, so real errors are still reported. Outside an ASan build these
// helpers do nothing but wait.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <systemc>

namespace tmasim::model {

// Lives at the top of a SystemC thread's body while it runs: records the thread's stack
// (spawned with `stack_bytes`), tells ASan its bounds and clears inherited shadow.
class CoroutineStackScope {
public:
    explicit CoroutineStackScope(std::size_t stack_bytes);
    ~CoroutineStackScope();
    CoroutineStackScope(const CoroutineStackScope&) = delete;
    CoroutineStackScope& operator=(const CoroutineStackScope&) = delete;

private:
    std::uintptr_t top_ = 0;
};

// After a wait of a thread that lives in a CoroutineStackScope: its bounds back in ASan.
void after_thread_resume();

// sc_core::wait for the model's threads (with after_thread_resume).
template <typename... Args>
void thread_wait(Args&&... args) {
    sc_core::wait(std::forward<Args>(args)...);
    after_thread_resume();
}

// After sc_start returns or throws, on the process's own stack: its bounds back in ASan
// and the shadow of the dead frames below the caller cleared.
void after_simulation();

// The stack size SystemC gives an SC_THREAD spawned without one (SC_DEFAULT_STACK_SIZE).
std::size_t default_thread_stack_bytes();

}  // namespace tmasim::model
