#include "model/state/st_async_batch.h"

namespace tmasim::model {

bool StAsyncBatch::add(const StAsyncStore& s) {
    const bool defined = s.barrier_rank == s.data_rank;
    (defined ? deliveries_ : undefined_).push_back(s);
    return defined;
}

std::map<int, int64_t> StAsyncBatch::credits() const {
    std::map<int, int64_t> out;
    for (const StAsyncStore& s : deliveries_) out[s.barrier_rank] += s.bytes;
    return out;
}

}  // namespace tmasim::model
