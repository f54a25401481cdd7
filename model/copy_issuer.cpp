#include "model/copy_issuer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "model/cta_module.h"
#include "model/hazard_rules.h"
#include "model/op_text.h"
#include "model/sim_time.h"
#include "model/tensor_copy.h"

namespace tmasim::model {

namespace {
bool is_load(OpKind k) { return k == OpKind::tma_load || k == OpKind::bulk_load; }
bool is_tensor(OpKind k) { return k == OpKind::tma_load || k == OpKind::tma_store || k == OpKind::tma_prefetch; }
bool is_prefetch(OpKind k) { return k == OpKind::tma_prefetch || k == OpKind::bulk_prefetch; }
}  // namespace

CopyIssuer::CopyIssuer(CtaModule& cta, const Op& op, const Expr::IntEnv& env)
    : cta_(cta), op_(op), env_(env) {
    if (!is_prefetch(op.kind)) buffer_base_ = buffer_offset(is_load(op.kind) ? op.dst : op.src, buffer_);
}

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
    TmaRequest r = is_tensor(op_.kind) ? tensor_request(site, thread) : bulk_request(site, thread);
    r.site = site;
    r.thread = thread;
    r.op = &op_;
    const int64_t smem_size = static_cast<int64_t>(cta_.smem().size());
    if (!is_prefetch(op_.kind) && (r.smem_offset < 0 || r.smem_offset + r.bytes > smem_size))
        throw std::out_of_range(fmt::format("{}: {} bytes at shared offset {} leave the CTA's {} "
                                            "bytes of shared memory", op_title(op_), r.bytes,
                                            r.smem_offset, smem_size));
    register_request(r, thread);
    cta_.engine().submit(std::move(r));
}

void CopyIssuer::register_request(TmaRequest& r, int thread) {
    if (is_prefetch(op_.kind)) return;
    const Scenario& s = cta_.run().scenario;
    if (is_load(op_.kind)) {
        const bool indexed = !op_.barrier.index.empty();
        r.barrier = cta_.barriers().index_of(op_.barrier.name, indexed ? eval(op_.barrier.index, 0) : 0,
                                             indexed);
        const auto [first, last] = is_tensor(op_.kind)
            ? TensorCopy(cta_.run().global.tensor(r.tensor), *r.map).smem_span(r.smem_offset)
            : std::make_pair(r.smem_offset, r.smem_offset + r.bytes - 1);
        const int64_t chunk = std::max<int64_t>(16, std::llround(cta_.run().timing.tma_complete_tx_chunk_bytes));
        for (int64_t done = 0; done < r.bytes; done += chunk) {
            AsyncWrite w;
            w.kind = AsyncWrite::Kind::tma;
            w.first = first + done;
            w.last = done + chunk >= r.bytes ? last : std::min(last, first + done + chunk - 1);
            w.agent = cta_.tracker().tma_agent(r.barrier);
            w.op = op_.id;
            w.issuer = thread;
            w.barrier = r.barrier;
            w.issue_phase = cta_.barriers().at(r.barrier).state.phase();
            TmaRequest::Chunk c{w.first, w.last, std::min(chunk, r.bytes - done), -1};
            c.write_id = cta_.async_writes().add(w);
            r.chunks.push_back(c);
        }
        cta_.async_writes().prune(cta_.tracker());
        return;
    }
    r.bulk_token = cta_.groups().add_op(thread);
    BulkStore st;
    st.tensor = r.tensor;
    st.issuer = thread;
    st.token = r.bulk_token;
    st.op = op_.id;
    if (is_tensor(op_.kind)) {
        const TensorCopy copy(cta_.run().global.tensor(r.tensor), *s.find_map(op_.map));
        std::tie(st.smem_first, st.smem_last) = copy.smem_span(r.smem_offset);
        st.global_bytes = copy.global_byte_ranges(r.coords);
    } else {
        st.smem_first = r.smem_offset;
        st.smem_last = r.smem_offset + r.bytes - 1;
        st.global_bytes = {{r.global_offset, r.global_offset + r.bytes - 1}};
    }
    cta_.bulk_stores().add(st);
}

TmaRequest CopyIssuer::tensor_request(const EventSite& site, int thread) {
    const Scenario& s = cta_.run().scenario;
    TmaRequest r;
    r.kind = op_.kind == OpKind::tma_load    ? TmaRequest::Kind::tensor_load
             : op_.kind == OpKind::tma_store ? TmaRequest::Kind::tensor_store
                                             : TmaRequest::Kind::tensor_prefetch;
    r.map = s.find_map(op_.map);
    if (!r.map) throw std::out_of_range(fmt::format("{}: unknown tensor map '{}'", op_title(op_), op_.map));
    r.tensor = r.map->tensor;
    for (const Expr& c : op_.coords) r.coords.push_back(c.eval_int(env_));
    const TensorCopy copy(cta_.run().global.tensor(r.tensor), *r.map);
    r.bytes = copy.box_bytes();
    r.smem_offset = buffer_base_;
    if (r.kind == TmaRequest::Kind::tensor_prefetch) return r;
    check_alignment(site, "shared-memory box address", r.smem_offset, 128);
    if (r.kind == TmaRequest::Kind::tensor_store) {
        for (size_t d = 0; d < r.coords.size(); ++d)
            if (r.coords[d] < 0) {
                // The GPU traps (illegal instruction): the run ends here, nothing is stored.
                cta_.fault(op_, site,
                           HazardRules::message("tma.negative_store_coords",
                                                fmt::format("{}: tensor store of {} with coordinate {} in "
                                                            "dimension {}", op_title(op_), buffer_,
                                                            r.coords[d], d)),
                           "tma.negative_store_coords");
                throw RunAborted{};
            }
        const auto span = copy.smem_span(r.smem_offset);
        check_proxy_fence(site, thread, span.first, span.second);
    }
    return r;
}

TmaRequest CopyIssuer::bulk_request(const EventSite& site, int thread) {
    TmaRequest r;
    r.kind = op_.kind == OpKind::bulk_load    ? TmaRequest::Kind::bulk_load
             : op_.kind == OpKind::bulk_store ? TmaRequest::Kind::bulk_store
                                              : TmaRequest::Kind::bulk_prefetch;
    r.tensor = op_.global;
    const GlobalTensor& t = cta_.run().global.tensor(r.tensor);
    r.global_offset = eval(op_.global_offset, 0) * dtype_size(t.type);
    r.bytes = eval(op_.bytes, 0);
    r.smem_offset = buffer_base_;
    if (r.bytes <= 0 || r.global_offset < 0 || r.global_offset + r.bytes > t.size_bytes())
        throw std::out_of_range(fmt::format("{}: {} bytes at byte offset {} of {} leave its {} bytes",
                                            op_title(op_), r.bytes, r.global_offset, t.name,
                                            t.size_bytes()));
    check_alignment(site, "size", r.bytes, 16);
    check_alignment(site, "global address", r.global_offset, 16);
    if (r.kind == TmaRequest::Kind::bulk_prefetch) return r;
    check_alignment(site, "shared-memory address", r.smem_offset, 16);
    if (r.kind == TmaRequest::Kind::bulk_store)
        check_proxy_fence(site, thread, r.smem_offset, r.smem_offset + r.bytes - 1);
    return r;
}

void CopyIssuer::check_alignment(const EventSite& site, const std::string& what, int64_t value,
                                 int64_t align) {
    if (value % align == 0) return;
    cta_.hazard(op_, site, "bulk.alignment",
                fmt::format("{}: {} {} is not a multiple of {} bytes [PTX 9.7.9.25.4.1, 5.5.3; "
                            "semantics.md D22, D25]", op_title(op_), what, value, align),
                {{"what", what}, {"value", std::to_string(value)}, {"align", std::to_string(align)}});
}

void CopyIssuer::check_proxy_fence(const EventSite& site, int thread, int64_t first, int64_t last) {
    const auto v = cta_.tracker().check_async_read(thread, first, last - first + 1);
    if (!v) return;
    const Scenario& s = cta_.run().scenario;
    std::string writers;
    for (int id : v->ops) {
        const Op* w = s.find_op(id);
        std::string what = w ? to_string(w->kind) : "op";
        if (w && !w->label.empty()) what += " '" + w->label + "'";
        writers += fmt::format("{}{}, op #{}", writers.empty() ? "" : "; ", what, id);
    }
    const int64_t lo = v->first_byte - buffer_base_, hi = v->last_byte - buffer_base_;
    const std::string threads = format_id_ranges(v->threads);
    cta_.hazard(op_, site, "proxy.generic_to_async",
                fmt::format("{} reads {}[{}..{}] written by generic stores of threads {} ({}) with "
                            "no fence.proxy.async on the causality path [PTX 9.7.13.4; semantics.md B12]",
                            op_title(op_), buffer_, lo, hi, threads, writers),
                {{"buffer", buffer_}, {"first_byte", std::to_string(lo)},
                 {"last_byte", std::to_string(hi)}, {"writer_threads", threads}});
}

}  // namespace tmasim::model
