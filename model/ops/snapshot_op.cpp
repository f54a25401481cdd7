#include "model/ops/snapshot_op.h"

#include <algorithm>

#include "model/sm/cta_module.h"
#include "model/ops/thread_access.h"
#include "scenarios/snapshot.h"

namespace tmasim::model {

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
