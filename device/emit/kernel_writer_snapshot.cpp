// shared.snapshot: the executing thread copies the whole buffer (this CTA's copy) into its
// slot of the snapshot area (snapshot_plan.h) and sets the slot's taken-flag. The copy is
// plain C++: a generic read of shared memory, as the op means, in 16-byte vectors (buffer
// bases and array strides are multiples of their align, at least 16; slots are 16-aligned)
// with a byte tail for sizes that are not a multiple of 16.
#include <fmt/format.h>

#include "device/emit/kernel_writer.h"

namespace tmasim::device {

void KernelWriter::emit_snapshot_counters() {
    if (snapshots_.regions.empty()) return;
    line("// shared.snapshot: per op, the instances this CTA has executed (the same in every");
    line("// thread, which all run the same loops): instance k goes to slot k of the op's region.");
    for (const SnapshotRegion& r : snapshots_.regions) line(fmt::format("unsigned long long snap_next_{} = 0ull;", r.op));
}

void KernelWriter::emit_snapshot(const Op& op) {
    const SnapshotRegion* r = snapshots_.find(op.id);
    if (!r) fail(op, "shared.snapshot has no region in the snapshot plan");
    const SharedAddr src = buffer_addr(op.buffer, op);
    line(fmt::format("unsigned char* const snap_slice = snapshot_area + (unsigned long long)blockIdx.x * {}ull;",
                     snapshots_.bytes_per_cta));
    line(fmt::format("unsigned char* const snap_dst = snap_slice + {}ull + snap_next_{} * {}ull;", r->data_offset,
                     op.id, r->stride));
    line(fmt::format("const unsigned char* const snap_src = smem + {};", src.offset));
    const int64_t vectors = r->bytes / 16;
    if (vectors > 0)
        line(fmt::format("for (int i = 0; i < {}; ++i) reinterpret_cast<uint4*>(snap_dst)[i] = "
                         "reinterpret_cast<const uint4*>(snap_src)[i];",
                         vectors));
    if (r->bytes % 16 != 0)
        line(fmt::format("for (int i = {}; i < {}; ++i) snap_dst[i] = snap_src[i];", vectors * 16, r->bytes));
    line(fmt::format("reinterpret_cast<unsigned*>(snap_slice)[{}ull + snap_next_{}] = 1u;  // taken", r->first_slot,
                     op.id));
}

}  // namespace tmasim::device
