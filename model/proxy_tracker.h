#pragma once
// Generic-to-async proxy ordering in one CTA's shared memory (semantics.md B11-B12, B16).
//
// Every thread has a logical clock, and a vector clock of what it has synchronised with
// (CTA syncs, mbarrier release-arrive -> acquire-wait). Each 4-byte granule remembers
// its last writer, the writer's proxy and the writer's clock. When the async proxy reads
// a granule whose last write was generic, the read is safe only if a fence.proxy.async
// sits on the causality path from the write to the issue:
//   (a) the writer fenced after the write, and a sync edge leaving the writer after that
//       fence reached the issuer before the issue (the writer == issuer case included), or
//   (b) the issuer fenced at a point where the write was already visible to it
//       (a fence before the sync that brought the write does not count).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tmasim::model {

using VectorClock = std::vector<uint32_t>;

enum class Proxy { none, generic, async };

// Generic writes read by the async proxy without a fence on the causality path.
struct ProxyViolation {
    int64_t first_byte = 0;     // CTA shared-memory byte offsets of the unsafe granules
    int64_t last_byte = 0;
    std::vector<int> threads;   // writers, ascending
    std::vector<int> ops;       // ops that wrote them, ascending
};

class ProxyTracker {
public:
    static constexpr int64_t kGranule = 4;

    ProxyTracker(int num_threads, int64_t smem_bytes);

    void generic_write(int thread, int64_t offset, int64_t bytes, int op);
    void async_write(int64_t offset, int64_t bytes, int op);
    void fence_proxy_async(int thread);
    // barrier.sync among `threads`: each one's clock becomes the join of all of theirs.
    void cta_sync(const std::vector<int>& threads);
    // Release-arrive: folds the thread's clock into `accumulated` (the barrier phase's).
    void release_into(int thread, VectorClock& accumulated);
    // Acquire (a wait that returned true): the thread learns `released`.
    void acquire(int thread, const VectorClock& released);

    // Async-proxy read of [offset, offset+bytes) issued by `issuer` now.
    std::optional<ProxyViolation> check_async_read(int issuer, int64_t offset, int64_t bytes) const;

    int num_threads() const { return static_cast<int>(clock_.size()); }
    VectorClock empty_clock() const { return VectorClock(clock_.size(), 0); }

private:
    struct Granule {
        Proxy proxy = Proxy::none;
        int thread = -1;
        uint32_t time = 0;
        int op = -1;
    };
    uint32_t tick(int thread);
    bool write_is_fenced(int issuer, const Granule& g) const;
    static void join(VectorClock& into, const VectorClock& from);

    std::vector<uint32_t> clock_;                 // own logical time per thread
    std::vector<VectorClock> known_;              // known_[t][u]: u's time t has synced with
    std::vector<std::vector<uint32_t>> fences_;   // per thread, ascending fence times
    std::vector<VectorClock> known_at_fence_;     // known_ at the thread's latest fence
    std::vector<Granule> granules_;
};

// "0-63", "0-31,40,64-95": a compact list of thread ids for messages.
std::string format_id_ranges(const std::vector<int>& sorted_ids);

}  // namespace tmasim::model
