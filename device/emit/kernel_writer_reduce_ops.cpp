// Emitters for the reductions into global memory (bulk.reduce, tma.reduce) and Blackwell's
// row gathers and scatters (tma.gather4, tma.scatter4). Each op is one wrapper call; the
// wrapper's name carries the reduction and element type (ptx_wrappers_reduce.cpp).
#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "scenarios/enums.h"

namespace tmasim::device {

// cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>.<type>: `bytes` of the shared
// buffer `src` combined element-wise into `global` from element `offset` on. The element
// type is the global tensor's (PTX reads both sides as that type).
void KernelWriter::emit_bulk_reduce(const Op& op) {
    const GlobalTensor* g = s_.find_global(op.global);
    if (!g) fail(op, "global names no global tensor");
    if (!reduce_supported(op.reduce, g->type))
        fail(op, fmt::format("PTX has no bulk reduction `{}` on {} elements", to_string(op.reduce),
                             to_string(g->type)));
    const size_t gi = static_cast<size_t>(g - s_.globals.data());
    const std::string offset =
        op.global_offset.empty() ? "0ll" : int_expr(op.global_offset, op, "offset");
    line(fmt::format("{}(global{} + {} * {}ll, {}, (unsigned){});",
                     bulk_reduce_wrapper_name(op.reduce, g->type), gi, offset, dtype_size(g->type),
                     buffer_addr(op.src, op).addr, int_expr(op.bytes, op, "bytes")));
}

// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<op>.tile.bulk_group: like tma.store,
// with the same fastest-first coordinates; the tensor map's element type is the type.
void KernelWriter::emit_tma_reduce(const Op& op) {
    const MapUse m = map_of(op);
    if (!reduce_supported(op.reduce, m.tensor->type))
        fail(op, fmt::format("PTX has no tensor reduction `{}` on {} elements", to_string(op.reduce),
                             to_string(m.tensor->type)));
    const size_t rank = m.tensor->shape.size();
    const std::string coords = fastest_first_coords(op, rank);
    line(fmt::format("{}({}{}, {});", tensor_reduce_wrapper_name(static_cast<int>(rank), op.reduce),
                     map_operand(m), coords, buffer_addr(op.src, op).addr));
}

// tile::gather4 / tile::scatter4 address a 2-D map by one column and four rows; PTX takes
// them as a 5-entry vector {col, row0, row1, row2, row3}: the innermost (column) coordinate
// first, as for every tensor copy, then the rows in the order written.
void KernelWriter::emit_tma_gather4_scatter4(const Op& op) {
    const MapUse m = map_of(op);
    if (m.tensor->shape.size() != 2) fail(op, "tile::gather4/scatter4 need a 2-D tensor map");
    if (op.rows.size() != 4) fail(op, "rows must list exactly four row coordinates");
    std::string coords = fmt::format(", (int){}", int_expr(op.col, op, "col"));
    for (const Expr& row : op.rows) coords += fmt::format(", (int){}", int_expr(row, op, "rows"));
    if (op.kind == OpKind::tma_gather4)
        line(fmt::format("cp_async_bulk_tensor_2d_shared_cluster_global_tile_gather4_mbarrier({}, {}{}, {});",
                         buffer_addr(op.dst, op).addr, map_operand(m), coords,
                         barrier_addr(op.barrier, op).addr));
    else
        line(fmt::format("cp_async_bulk_tensor_2d_global_shared_cta_tile_scatter4_bulk_group({}{}, {});",
                         map_operand(m), coords, buffer_addr(op.src, op).addr));
}

}  // namespace tmasim::device
