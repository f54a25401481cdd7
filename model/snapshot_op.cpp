#include "model/snapshot_op.h"

#include <algorithm>
#include <tuple>

#include "model/cta_module.h"
#include "model/thread_access.h"
#include "scenarios/snapshot.h"

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

double SnapshotOp::take(CtaModule& cta, const Op& op, const Expr::IntEnv& env, int warp, int lane,
                        const EventSite& site) {
    ThreadAccess access(cta, op, env, warp, site);
    std::string buffer;
    MemoryImage image;
    image.bytes = access.snapshot_read(lane, buffer);
    image.space = "snapshot";
    image.cta = cta.index();
    image.name = snapshot_image_name(op, site.iters, buffer);
    const int64_t size = static_cast<int64_t>(image.bytes.size());
    cta.run().snapshots.add(site, std::move(image));
    // The device copies the buffer with one thread's 16-byte loads and global stores: the
    // first vector costs a shared load, each further one snapshot_vector_cycles (measured on
    // the H200: the loop's ld.shared/st.global pairs, not the shared-load wavefront rate).
    const TimingParams& tp = cta.run().timing;
    const int64_t loads = std::max<int64_t>(1, (size + 15) / 16);
    return tp.shared_access_cycles + static_cast<double>(loads - 1) * tp.snapshot_vector_cycles;
}

}  // namespace tmasim::model
