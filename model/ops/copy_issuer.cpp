#include "model/ops/copy_issuer.h"

#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cluster_multicast.h"
#include "model/sm/cta_module.h"
#include "model/copy/gather4_copy.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/copy/request_bytes.h"
#include "model/sm/shared_race_check.h"
#include "model/copy/tensor_copy.h"
#include "model/ops/tensormap_ops.h"

namespace tmasim::model {

namespace {
// The TMA unit's ops, told apart by their rows in the op table: what they write or read in
// shared memory, and whether they address a tensor map by coordinates or by rows.
bool is_load(OpKind k) { return op_has(k, kWritesShared); }
bool is_tensor(OpKind k) { return op_takes_key(k, "coords"); }
bool is_rows(OpKind k) { return op_takes_key(k, "rows"); }
bool is_prefetch(OpKind k) { return !op_has(k, kReadsShared) && !op_has(k, kWritesShared); }
}  // namespace

double CopyIssuer::issue_cycles(OpKind kind, const TimingParams& tp) {
    if (kind == OpKind::bulk_load) return tp.bulk_load_issue_cycles;
    // A gather4 issues like a tensor load with four row coordinates.
    if (kind == OpKind::tma_load || kind == OpKind::tma_gather4) return tp.tensor_load_issue_cycles;
    if (is_prefetch(kind)) return tp.prefetch_issue_cycles;
    // Reduces issue slower than stores on the H200 (bulk 106, tensor 111 with its map fetch).
    if (kind == OpKind::bulk_reduce) return tp.bulk_reduce_issue_cycles;
    if (kind == OpKind::tma_reduce) return tp.tensor_reduce_issue_cycles;
    return tp.store_issue_cycles;  // stores and scatter4 issue like a store
}

CopyIssuer::CopyIssuer(CtaModule& cta, const Op& op, const Expr::IntEnv& env)
    : cta_(cta), op_(op), env_(env) {
    if (!is_prefetch(op.kind)) buffer_base_ = buffer_offset(is_load(op.kind) ? op.dst : op.src, buffer_);
}

namespace {
const Expr::IntEnv kNoVariables;
}

CopyIssuer::CopyIssuer(CtaModule& cta, const Op& op, std::string buffer, int64_t buffer_base)
    : cta_(cta), op_(op), env_(kNoVariables), buffer_(std::move(buffer)), buffer_base_(buffer_base) {}

int64_t CopyIssuer::eval(const Expr& e, int64_t fallback) const {
    return e.empty() ? fallback : e.eval_int(env_);
}

int64_t CopyIssuer::buffer_offset(const Ref& ref, std::string& display) const {
    const bool indexed = !ref.index.empty();
    const int64_t i = indexed ? eval(ref.index, 0) : 0;
    const SharedBuffer* decl = cta_.run().scenario.find_shared(ref.name);
    display = decl && decl->array != 0 ? fmt::format("{}[{}]", ref.name, i) : ref.name;
    return cta_.run().layout.offset_of(ref.name, i);
}

void CopyIssuer::issue(const EventSite& site, int thread) {
    TmaRequest r = is_tensor(op_.kind) ? tensor_request(site, thread)
                   : is_rows(op_.kind) ? row_request(site, thread)
                                       : bulk_request(site, thread);
    std::optional<int64_t> mask;
    if (!op_.multicast.empty()) mask = op_.multicast.eval_int(env_);
    submit_checked(std::move(r), site, thread, mask);
}

void CopyIssuer::issue_resolved(TmaRequest r, const EventSite& site, int thread, std::optional<int64_t> multicast_mask) {
    r.site = site;
    r.thread = thread;
    r.op = &op_;
    if (is_tensor(op_.kind)) check_tensor(site, thread, r);
    else if (is_rows(op_.kind)) check_rows(site, thread, r);
    else check_bulk(site, thread, r);
    submit_checked(std::move(r), site, thread, multicast_mask);
}

void CopyIssuer::submit_checked(TmaRequest r, const EventSite& site, int thread, std::optional<int64_t> multicast_mask) {
    r.site = site;
    r.thread = thread;
    r.op = &op_;
    const int64_t smem_size = static_cast<int64_t>(cta_.smem_size());
    if (!is_prefetch(op_.kind) && (r.smem_offset < 0 || r.smem_offset + r.bytes > smem_size))
        throw std::out_of_range(fmt::format("{}: {} bytes at shared offset {} leave the CTA's {} "
                                            "bytes of shared memory", op_title(op_), r.bytes,
                                            r.smem_offset, smem_size));
    if (multicast_mask) {
        if (r.barrier < 0) r.barrier = barrier_of_op();
        // To every CTA of the ctaMask.
        ClusterMulticast::issue(cta_, op_, std::move(r), buffer_, buffer_base_, *multicast_mask, r.barrier);
        return;
    }
    register_request(r, thread);
    cta_.engine().submit(std::move(r));
}

void CopyIssuer::register_request(TmaRequest& r, int thread) {
    if (is_prefetch(op_.kind)) return;
    const RequestBytes bytes(r, cta_.run().global.tensor(r.tensor));
    if (is_load(op_.kind)) {
        if (r.barrier < 0) r.barrier = barrier_of_op();
        const auto [first, last] = bytes.smem_span();
        // The load changes bytes an async-proxy read (a store's source, a wgmma operand) may
        // still read (C17, C19); peers see its bytes as its barrier's TMA agent's (C17).
        SharedRaceCheck races(cta_, op_, buffer_, buffer_base_);
        races.pending_reads(r.site, thread, first, last - first + 1);
        races.async_proxy_write(r.site, thread, first, last - first + 1);
        races.async_write_issue(r.site, thread, first, last - first + 1);
        if (Cluster* cl = cta_.tracking_cluster()) {  // else 0, as a cluster of one answers
            cl->async_write_issue(cta_, op_, r.site, thread, cl->rank_of(cta_), buffer_, buffer_base_, first,
                                  last - first + 1);
            r.cluster_time = cl->tma_write_issued(cta_, r.barrier, op_.id, first, last - first + 1);
        }
        r.chunks = cta_.register_tma_landing(r.barrier, thread, op_.id, first, last, r.bytes);
        return;
    }
    // Stores, reduces and scatters: the source stays protected until wait_group_read
    // covers it, the global result until wait_group does (C19).
    r.bulk_token = cta_.groups().add_op(thread);
    BulkStore st;
    st.tensor = r.tensor;
    st.issuer = thread;
    st.token = r.bulk_token;
    st.op = op_.id;
    std::tie(st.smem_first, st.smem_last) = bytes.smem_span();
    st.global_bytes = bytes.global_writes();
    cta_.bulk_stores().add(st);
}

int CopyIssuer::barrier_of_op() const {
    const bool indexed = !op_.barrier.index.empty();
    return cta_.barriers().index_of(op_.barrier.name, indexed ? eval(op_.barrier.index, 0) : 0, indexed);
}

TmaRequest CopyIssuer::tensor_request(const EventSite& site, int thread) {
    const Scenario& s = cta_.run().scenario;
    TmaRequest r;
    r.kind = op_.kind == OpKind::tma_load     ? TmaRequest::Kind::tensor_load
             : op_.kind == OpKind::tma_store  ? TmaRequest::Kind::tensor_store
             : op_.kind == OpKind::tma_reduce ? TmaRequest::Kind::tensor_reduce
                                              : TmaRequest::Kind::tensor_prefetch;
    r.reduce = op_.reduce;
    r.map = s.find_map(op_.map);
    if (!r.map) throw std::out_of_range(fmt::format("{}: unknown tensor map '{}'", op_title(op_), op_.map));
    r.coords.reserve(op_.coords.size());
    for (const Expr& c : op_.coords) r.coords.push_back(c.eval_int(env_));
    // The map's fields now: a map in global memory may have been retargeted or resized
    // (and must have been released and acquired, B15).
    const TensorMapUse use = TensorMapUse::at_issue(cta_, op_, site, thread, r.coords);
    r.fields = use.fields;
    r.tensormap_reader = use.reader;
    r.tensor = r.fields->tensor;
    const TensorCopy copy(*r.fields);
    r.bytes = copy.box_bytes();
    r.smem_offset = buffer_base_;
    check_tensor(site, thread, r);
    return r;
}

void CopyIssuer::check_tensor(const EventSite& site, int thread, const TmaRequest& r) {
    if (r.kind == TmaRequest::Kind::tensor_prefetch) return;
    check_alignment(site, "shared-memory box address", r.smem_offset, 128);
    // The box's first byte in each row must be 16-byte aligned: on the H200 a tile load or
    // store whose innermost coordinate is 1 f32 element (4 bytes) in traps with
    // CUDA_ERROR_ILLEGAL_INSTRUCTION (device/scripts/probe_misaligned.sh).
    const int64_t inner_bytes = r.coords.back() * r.fields->inner_unit_bytes();
    if (r.fields->interleave == Interleave::none && inner_bytes % 16 != 0)
        trap(site, "tma.inner_coord_alignment",
             fmt::format("{}: innermost coordinate {} is byte offset {} in the row, not a multiple of 16",
                         op_title(op_), r.coords.back(), inner_bytes));
    if (r.kind == TmaRequest::Kind::tensor_store || r.kind == TmaRequest::Kind::tensor_reduce) {
        // A reduce writes global memory like a store, so the same trap applies (D26).
        for (size_t d = 0; d < r.coords.size(); ++d)
            if (r.coords[d] < 0)
                trap(site, "tma.negative_store_coords",
                     fmt::format("{}: tensor {} of {} with coordinate {} in dimension {}", op_title(op_),
                                 r.kind == TmaRequest::Kind::tensor_reduce ? "reduce" : "store", buffer_,
                                 r.coords[d], d));
        const TensorCopy copy(*r.fields);
        const auto span = copy.smem_span(r.smem_offset);
        check_proxy_fence(site, thread, span.first, span.second);
    }
}

// tile::gather4 / tile::scatter4 (semantics.md G34-G35): four rows at one column of a
// 2-D map. Both trap on a column whose byte offset is not 16-byte aligned; scatter also
// traps on a negative row (a negative column is a tile store's negative start, D26).
TmaRequest CopyIssuer::row_request(const EventSite& site, int thread) {
    TmaRequest r;
    r.kind = op_.kind == OpKind::tma_gather4 ? TmaRequest::Kind::gather4 : TmaRequest::Kind::scatter4;
    r.map = cta_.run().scenario.find_map(op_.map);
    if (!r.map) throw std::out_of_range(fmt::format("{}: unknown tensor map '{}'", op_title(op_), op_.map));
    if (r.map->location == MapLocation::global)
        throw std::logic_error(fmt::format("model: {}: gather4/scatter4 through a map in global memory is not "
                                           "modelled yet", op_title(op_)));
    r.tensor = r.map->tensor;
    for (const Expr& e : op_.rows) r.rows.push_back(e.eval_int(env_));
    r.col = op_.col.eval_int(env_);
    const GlobalTensor& t = cta_.run().global.tensor(r.tensor);
    r.bytes = Gather4Copy(t, *r.map, r.rows, r.col).tile_bytes();
    r.smem_offset = buffer_base_;
    check_rows(site, thread, r);
    return r;
}

void CopyIssuer::check_rows(const EventSite& site, int thread, const TmaRequest& r) {
    const GlobalTensor& t = cta_.run().global.tensor(r.tensor);
    const Gather4Copy copy(t, *r.map, r.rows, r.col);
    check_alignment(site, "shared-memory box address", r.smem_offset, 128);
    const bool scatter = r.kind == TmaRequest::Kind::scatter4;
    const int64_t col_byte = r.col * dtype_size(t.type);
    if (col_byte % 16 != 0)
        trap(site, "tma.gather4_col_alignment",
             fmt::format("{}: {} of {} at column {} ({} x {} bytes = byte offset {}, not a multiple of 16)",
                         op_title(op_), scatter ? "scatter4" : "gather4", buffer_, r.col, r.col,
                         dtype_size(t.type), col_byte));
    if (!scatter) return;
    for (size_t i = 0; i < r.rows.size(); ++i)
        if (r.rows[i] < 0)
            trap(site, "tma.scatter4_negative_row",
                 fmt::format("{}: scatter4 of {} to row {} (rows[{}])", op_title(op_), buffer_, r.rows[i], i));
    if (r.col < 0)
        trap(site, "tma.negative_store_coords",
             fmt::format("{}: scatter4 of {} at column {}", op_title(op_), buffer_, r.col));
    const auto span = copy.smem_span(r.smem_offset);
    check_proxy_fence(site, thread, span.first, span.second);
}

TmaRequest CopyIssuer::bulk_request(const EventSite& site, int thread) {
    TmaRequest r;
    r.kind = op_.kind == OpKind::bulk_load     ? TmaRequest::Kind::bulk_load
             : op_.kind == OpKind::bulk_store  ? TmaRequest::Kind::bulk_store
             : op_.kind == OpKind::bulk_reduce ? TmaRequest::Kind::bulk_reduce
                                               : TmaRequest::Kind::bulk_prefetch;
    r.reduce = op_.reduce;
    r.tensor = op_.global;
    const GlobalTensor& t = cta_.run().global.tensor(r.tensor);
    r.global_offset = eval(op_.global_offset, 0) * dtype_size(t.type);
    r.bytes = eval(op_.bytes, 0);
    r.smem_offset = buffer_base_;
    if (r.bytes <= 0 || r.global_offset < 0 || r.global_offset + r.bytes > t.size_bytes())
        throw std::out_of_range(fmt::format("{}: {} bytes at byte offset {} of {} leave its {} bytes",
                                            op_title(op_), r.bytes, r.global_offset, t.name,
                                            t.size_bytes()));
    check_bulk(site, thread, r);
    return r;
}

void CopyIssuer::check_bulk(const EventSite& site, int thread, const TmaRequest& r) {
    check_alignment(site, "size", r.bytes, 16);
    check_alignment(site, "global address", r.global_offset, 16);
    if (r.kind == TmaRequest::Kind::bulk_prefetch) return;
    check_alignment(site, "shared-memory address", r.smem_offset, 16);
    if (r.kind == TmaRequest::Kind::bulk_store || r.kind == TmaRequest::Kind::bulk_reduce)
        check_proxy_fence(site, thread, r.smem_offset, r.smem_offset + r.bytes - 1);
}

void CopyIssuer::trap(const EventSite& site, const std::string& rule, const std::string& what) {
    // The GPU traps (illegal instruction): the run ends here, nothing is moved.
    cta_.fault(op_, site, HazardRules::message(rule, what), rule);
    throw RunAborted{};
}

void CopyIssuer::check_alignment(const EventSite& site, const std::string& what, int64_t value,
                                 int64_t align) {
    if (value % align == 0) return;
    cta_.hazard(op_, site, "bulk.alignment",
                fmt::format("{}: {} {} is not a multiple of {} bytes {}", op_title(op_), what, value, align,
                            HazardRules::cite("bulk.alignment")),
                {{"what", what}, {"value", std::to_string(value)}, {"align", std::to_string(align)}});
}

void CopyIssuer::check_proxy_fence(const EventSite& site, int thread, int64_t first, int64_t last) {
    // A load into these bytes still pending, unobserved by the issuer: two async ops on the
    // same bytes with nothing ordering them (C17).
    SharedRaceCheck(cta_, op_, buffer_, buffer_base_).async_proxy_read(site, thread, first, last - first + 1);
    // Bytes peers wrote into this CTA through DSMEM or st.async are the cluster's to check.
    if (Cluster* c = cta_.tracking_cluster()) c->check_async_read(cta_, op_, site, thread, buffer_, buffer_base_, first, last);
    const auto v = cta_.tracker().check_async_read(thread, first, last - first + 1);
    if (!v) return;
    const Scenario& s = cta_.run().scenario;
    std::string writers, writer_ids;
    for (int id : v->ops) {
        writer_ids += (writer_ids.empty() ? "" : ",") + std::to_string(id);
        const Op* w = s.find_op(id);
        std::string what = w ? to_string(w->kind) : "op";
        if (w && !w->label.empty()) what += " '" + w->label + "'";
        writers += fmt::format("{}{}, op #{}", writers.empty() ? "" : "; ", what, id);
    }
    const int64_t lo = v->first_byte - buffer_base_, hi = v->last_byte - buffer_base_;
    const std::string threads = format_id_ranges(v->threads);
    const SharedBuffer* decl = s.find_shared(is_load(op_.kind) ? op_.dst.name : op_.src.name);
    const int64_t esize = decl ? dtype_size(decl->type) : 1;
    cta_.hazard(op_, site, "proxy.generic_to_async",
                fmt::format("{} reads {} written by generic stores of threads {} ({}) with "
                            "no fence.proxy.async on the causality path {}",
                            op_title(op_), byte_range_text(buffer_, lo, hi, esize), threads, writers,
                            HazardRules::cite("proxy.generic_to_async")),
                {{"buffer", buffer_}, {"first_byte", std::to_string(lo)},
                 {"last_byte", std::to_string(hi)}, {"writer_threads", threads},
                 {"writer_ops", writer_ids}});
}

}  // namespace tmasim::model
