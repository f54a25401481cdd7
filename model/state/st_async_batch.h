#pragma once
// One st.async op's per-thread stores and the complete_tx each owes (PTX 9.7.9.12;
// semantics.md F31): every executing thread stores its bytes into rank `data_rank`'s
// buffer, and when the store lands the barrier at the same offset in rank
// `barrier_rank` gets complete_tx of those bytes. PTX requires both in the same CTA; a
// store whose barrier is elsewhere is undefined, and the model delivers neither its bytes
// nor its tx (so a receiver that waits for them hangs, visibly, instead of passing on
// behaviour PTX does not define).
#include <cstdint>
#include <map>
#include <vector>

namespace tmasim::model {

struct StAsyncStore {
    int thread = 0;         // the storing thread (tid in its CTA)
    int data_rank = 0;      // the CTA whose shared memory gets the bytes
    int barrier_rank = 0;   // the CTA whose barrier gets complete_tx
    int64_t offset = 0;     // shared-memory byte offset in that CTA
    int64_t bytes = 0;      // 4, 8 or 16
};

class StAsyncBatch {
public:
    // False when the store is undefined (barrier and data in different CTAs); it is then
    // kept apart and never delivered.
    bool add(const StAsyncStore& s);
    const std::vector<StAsyncStore>& deliveries() const { return deliveries_; }
    const std::vector<StAsyncStore>& undefined() const { return undefined_; }
    // Bytes each rank's barrier is credited by this op, over all its delivered stores.
    std::map<int, int64_t> credits() const;

private:
    std::vector<StAsyncStore> deliveries_, undefined_;
};

}  // namespace tmasim::model
