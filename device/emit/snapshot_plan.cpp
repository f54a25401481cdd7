#include "device/emit/snapshot_plan.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "scenarios/snapshot.h"

namespace tmasim::device {

namespace {

int64_t round_up_16(int64_t n) { return (n + 15) / 16 * 16; }

}  // namespace

const SnapshotRegion* SnapshotPlan::find(int op) const {
    for (const SnapshotRegion& r : regions)
        if (r.op == op) return &r;
    return nullptr;
}

SnapshotPlan plan_snapshots(const Scenario& s) {
    std::map<int, int64_t> most;  // op id -> the most instances in one CTA
    for (int cta = 0; cta < s.launch.num_ctas(); ++cta) {
        std::map<int, int64_t> here;
        for (const SnapshotInstance& i : snapshot_instances(s, cta)) ++here[i.op->id];
        for (const auto& [op, n] : here) most[op] = std::max(most[op], n);
    }
    SnapshotPlan plan;
    for (const Op* op : s.all_ops()) {
        if (op->kind != OpKind::shared_snapshot) continue;
        const SharedBuffer* b = s.find_shared(op->buffer.name);
        if (!b) throw std::logic_error("snapshot plan: " + op->display() + " names no shared buffer");
        SnapshotRegion r;
        r.op = op->id;
        r.bytes = b->size_bytes();
        r.stride = round_up_16(r.bytes);
        r.max_instances = most.count(op->id) ? most[op->id] : 0;
        r.first_slot = plan.slots_per_cta;
        plan.slots_per_cta += r.max_instances;
        plan.regions.push_back(r);
    }
    int64_t offset = round_up_16(4 * plan.slots_per_cta);  // the flags: one u32 per slot
    for (SnapshotRegion& r : plan.regions) {
        r.data_offset = offset;
        offset += r.max_instances * r.stride;
    }
    plan.bytes_per_cta = plan.regions.empty() ? 0 : offset;
    return plan;
}

std::vector<MemoryImage> snapshot_images(const Scenario& s, const SnapshotPlan& plan,
                                         const std::vector<uint8_t>& area) {
    const int ctas = s.launch.num_ctas();
    if (static_cast<int64_t>(area.size()) < plan.bytes_per_cta * ctas)
        throw std::runtime_error("device: the snapshot area read back is smaller than its plan");
    std::vector<MemoryImage> out;
    for (int cta = 0; cta < ctas; ++cta) {
        const uint8_t* slice = area.data() + cta * plan.bytes_per_cta;
        std::vector<std::pair<SnapshotInstance, MemoryImage>> taken;
        std::map<int, int64_t> next;  // op id -> its next slot, as the kernel's counter
        for (SnapshotInstance& i : snapshot_instances(s, cta)) {
            const SnapshotRegion* r = plan.find(i.op->id);
            const int64_t k = next[i.op->id]++;
            if (!r || k >= r->max_instances) throw std::logic_error("device: snapshot instance outside its plan");
            uint32_t flag = 0;
            std::copy_n(slice + 4 * (r->first_slot + k), 4, reinterpret_cast<uint8_t*>(&flag));
            if (flag != 1) continue;  // never reached (the kernel stopped at a hang)
            const uint8_t* bytes = slice + r->data_offset + k * r->stride;
            MemoryImage m;
            m.name = snapshot_image_name(*i.op, i.iters, i.buffer);
            m.space = "snapshot";
            m.cta = cta;
            m.bytes.assign(bytes, bytes + r->bytes);
            taken.emplace_back(std::move(i), std::move(m));
        }
        // Program order interleaves ops; the trace orders a CTA's images by (op, iters).
        std::stable_sort(taken.begin(), taken.end(), [](const auto& a, const auto& b) {
            return std::tie(a.first.op->id, a.first.iters) < std::tie(b.first.op->id, b.first.iters);
        });
        for (auto& t : taken) out.push_back(std::move(t.second));
    }
    return out;
}

}  // namespace tmasim::device
