// Emitters for tensor maps in global memory. Such a map is passed twice: its host encoding
// as the usual __grid_constant__ parameter tmap<i> (the template tensormap.stage copies) and
// a pointer gmap<i> to the 128-byte object in global memory that the host filled before
// launch, which every TMA op on the map reads and tensormap.replace/cp_fenceproxy write.
#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "scenarios/enums.h"

namespace tmasim::device {

std::string KernelWriter::map_operand(const MapUse& m) const {
    return m.map->location == MapLocation::global ? fmt::format("(const void*)gmap{}", m.index)
                                                  : fmt::format("&tmap{}", m.index);
}

// PTX's ord counts dimensions from the innermost; the scenario's `dim` from the outermost.
// A global stride belongs to every dimension but the innermost, so its ord is one less.
int KernelWriter::replace_ord(const Op& op, const TensorMap& map) const {
    if (op.dim.empty() || !op.dim.is_constant()) fail(op, "dim must be a constant (ord is an immediate)");
    const int64_t rank = static_cast<int64_t>(map.box.size());
    const int64_t dim = op.dim.eval_int({});
    const int64_t ord = op.field == MapField::global_stride ? rank - 2 - dim : rank - 1 - dim;
    const int64_t dims = op.field == MapField::global_stride ? rank - 1 : rank;
    if (dim < 0 || dim >= dims || ord < 0 || ord > 4)
        fail(op, fmt::format("dim {} is not one of the map's {} {} (outermost first)", dim, dims,
                             op.field == MapField::global_stride ? "strided dimensions" : "dimensions"));
    return static_cast<int>(ord);
}

void KernelWriter::emit_tensormap_op(const Op& op) {
    if (op.kind == OpKind::fence_proxy_tensormap_release) {
        line(fence_proxy_tensormap_wrapper_name(true, op.scope) + "();");
        return;
    }
    const MapUse m = map_of(op);
    if (m.map->location != MapLocation::global)
        fail(op, "the map is a __grid_constant__ parameter; this op needs a map declared with location: global");
    Ref staged_ref;
    staged_ref.name = staged_map_slot(m.map->name);
    const SharedAddr staged = slot_addr(staged_ref, op, "map");
    if (op.kind == OpKind::tensormap_stage) {
        // Plain generic stores of the parameter's 16 words; tensormap.replace and
        // cp_fenceproxy then read the staged copy.
        line(fmt::format("unsigned long long* const map_copy = (unsigned long long*)(smem + {});", staged.offset));
        line(fmt::format("for (int w = 0; w < 16; ++w) map_copy[w] = tmap{}.v[w];", m.index));
    } else if (op.kind == OpKind::tensormap_replace) {
        emit_tensormap_replace(op, m, staged.addr);
    } else if (op.kind == OpKind::tensormap_cp_fenceproxy) {
        if (op.by.kind != Selector::Kind::warp)
            fail(op, "tensormap.cp_fenceproxy is .sync.aligned: one whole warp runs it (by: warpN)");
        line(fmt::format("{}(gmap{}, {});", tensormap_cp_fenceproxy_wrapper_name(op.scope), m.index, staged.addr));
    } else {  // fence.proxy.tensormap.acquire
        if (op.scope == Scope::cta) fail(op, "the tensormap acquire needs scope cluster, gpu or sys");
        line(fmt::format("{}(gmap{});", fence_proxy_tensormap_wrapper_name(false, op.scope), m.index));
    }
}

void KernelWriter::emit_tensormap_replace(const Op& op, const MapUse& m, const std::string& staged_addr) {
    const std::string wrapper = tensormap_replace_wrapper_name(op.field, op.space);
    const std::string addr = op.space == Space::shared ? staged_addr : fmt::format("gmap{}", m.index);
    if (op.field == MapField::global_address) {
        const GlobalTensor* g = s_.find_global(op.global);
        if (!g) fail(op, "global names no global tensor");
        if (g->type != m.tensor->type) fail(op, "the new global tensor must hold the map's element type");
        const size_t gi = static_cast<size_t>(g - s_.globals.data());
        line(fmt::format("{}({}, (unsigned long long)global{});", wrapper, addr, gi));
        return;
    }
    const int ord = replace_ord(op, *m.map);
    const char* type = op.field == MapField::global_stride ? "unsigned long long" : "unsigned";
    line(fmt::format("{}<{}>({}, ({}){});", wrapper, ord, addr, type, int_expr(op.value, op, "value")));
}

}  // namespace tmasim::device
