#include "model/state/snapshot_log.h"

#include <algorithm>
#include <tuple>

namespace tmasim::model {

void SnapshotLog::add(const EventSite& site, MemoryImage image) {
    taken_.push_back({site.cta, site.op, site.iters, std::move(image)});
}

std::vector<MemoryImage> SnapshotLog::images() const {
    std::vector<const Taken*> order;
    for (const Taken& t : taken_) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const Taken* a, const Taken* b) {
        return std::tie(a->cta, a->op, a->iters) < std::tie(b->cta, b->op, b->iters);
    });
    std::vector<MemoryImage> out;
    for (const Taken* t : order) out.push_back(t->image);
    return out;
}

}  // namespace tmasim::model
