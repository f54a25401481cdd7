#include "scenarios/validator.h"

#include <algorithm>
#include <set>

#include "scenarios/layout.h"
#include "scenarios/tensormap_rules.h"
#include "scenarios/validator_util.h"

namespace tmasim {
namespace {

constexpr int64_t kMaxArrivals = (int64_t(1) << 20) - 1;
constexpr int64_t kMaxTx = (int64_t(1) << 20) - 1;
// Ops run over all CTAs, a per-thread op counting once per thread: bounds how long
// validation (and a run) takes.
constexpr int64_t kMaxOpInstances = 1000000;
constexpr int64_t kMaxSharedBytes = 232448;  // 227 KB per block (sm_90 opt-in)

std::string join(const std::vector<std::string>& v) { return join_names(v); }

class Validator {
public:
    explicit Validator(const Scenario& sc) : sc_(sc) {}

    void run() {
        check_declarations();
        check_ops_static(sc_.program, {"cta", "rank"});
        check_expectation();
        int64_t instances = 0;
        for (int cta = 0; cta < sc_.launch.num_ctas(); ++cta)
            check_ops_dynamic(sc_.program, {{"cta", cta}, {"rank", cta % sc_.launch.cluster_size()}}, instances);
        check_snapshot_volume(sc_);
    }

private:
    void check_declarations() {
        std::set<std::string> smem_names;
        for (const auto& b : sc_.shared) smem_names.insert(b.name);
        for (const auto& b : sc_.barriers)
            if (!smem_names.insert(b.name).second)
                throw ScenarioError(b.loc, "barriers." + b.name, "the name is already used by a shared buffer");
        for (const auto& m : sc_.tensormaps) {
            const GlobalTensor* t = sc_.find_global(m.tensor);
            if (!t)
                throw ScenarioError(m.loc, "tensormaps." + m.name + ".tensor",
                                    "no global tensor named '" + m.tensor + "'; declared: " + join(names_of(sc_.globals)));
            check_tensormap_encode_rules(m, *t);
        }
        SharedLayout layout = compute_shared_layout(sc_);
        if (layout.total_bytes > kMaxSharedBytes)
            throw ScenarioError(sc_.shared.empty() ? sc_.launch.loc : sc_.shared.back().loc, "shared",
                                "shared memory needs " + std::to_string(layout.total_bytes) +
                                    " bytes; allowed: at most 232448 (227 KB per block on sm_90)");
    }

    void check_expectation() {
        const Expectation& e = sc_.expect;
        // A kernel's ops exist once it is bound (ptx/kernel_binding.h), which checks expect.op.
        if (!e.op.empty() && !sc_.is_kernel() && !find_label(e.op))
            throw ScenarioError(e.loc, "expect.op", "no op labelled '" + e.op + "'; labels: " + join(labels_));
        if (!e.rule.empty() && e.outcome == Outcome::ok)
            throw ScenarioError(e.loc, "expect.rule", "a rule is only expected with outcome hazard, hang or fault");
    }

    bool find_label(const std::string& l) const {
        if (std::find(labels_.begin(), labels_.end(), l) != labels_.end()) return true;
        if (l.size() > 1 && l[0] == '#') {
            for (const Op* op : sc_.all_ops())
                if ("#" + std::to_string(op->id) == l) return true;
        }
        return false;
    }

    static std::string key(const Op& op, const std::string& k) { return op_key(op, k); }

    void check_vars(const Expr& e, const std::vector<std::string>& scope, const std::string& k) const {
        check_expr_vars(e, scope, k);
    }

    void check_ref(const Ref& r, bool barrier, const std::vector<std::string>& scope, const std::string& k) const {
        int64_t array = 0;
        if (barrier) {
            const BarrierDecl* b = sc_.find_barrier(r.name);
            if (!b) throw ScenarioError(r.loc, k, "no barrier named '" + r.name + "'; declared: " + join(names_of(sc_.barriers)));
            array = b->array;
        } else {
            const SharedBuffer* b = sc_.find_shared(r.name);
            if (!b) throw ScenarioError(r.loc, k, "no shared buffer named '" + r.name + "'; declared: " + join(names_of(sc_.shared)));
            array = b->array;
        }
        if (array == 0 && !r.index.empty())
            throw ScenarioError(r.loc, k, "'" + r.name + "' is not an array; allowed: " + r.name + " without an index");
        if (array > 0 && r.index.empty())
            throw ScenarioError(r.loc, k, "'" + r.name + "' is an array of " + std::to_string(array) +
                                              "; allowed: " + r.name + "[index]");
        check_vars(r.index, scope, k);
    }

    void check_selector(const Op& op, const std::vector<std::string>& scope) const {
        const Selector& s = op.by;
        if (op.kind == OpKind::sync && s.kind != Selector::Kind::all)
            throw ScenarioError(op.loc, key(op, "by"), "sync (__syncthreads) is executed by every thread; allowed: all");
        const bool cluster_barrier = op_family(op.kind) == OpFamily::cluster_barrier;
        if (cluster_barrier && s.kind != Selector::Kind::all)
            throw ScenarioError(op.loc, key(op, "by"), to_string(op.kind) + " is the aligned cluster barrier, executed by "
                                                                            "every thread of every CTA; allowed: all [PTX 9.7.13.3]");
        if (s.kind == Selector::Kind::predicate) {
            // The loop variables around the op, not cta and rank: which threads run an op
            // changes with the iteration, never with the CTA.
            std::vector<std::string> vars{"tid", "lane", "warp"};
            for (const std::string& v : scope)
                if (v != "cta" && v != "rank") vars.push_back(v);
            check_vars(s.pred, vars, key(op, "by"));
            // An iteration may select no thread (a prologue's `i == 0`); check_ops_dynamic
            // evaluates it at every instance.
            if (s.per_iteration) return;
            // Every thread, not just up to the first selected one: the backends evaluate the
            // predicate for all of them, so an overflow at any thread must fail here.
            bool any = false;
            for (int t = 0; t < sc_.launch.block; ++t) any = s.includes(t) || any;
            if (!any)
                throw ScenarioError(s.pred.loc(), key(op, "by"), "\"" + s.pred.text() + "\" selects no thread of the " +
                                                                     std::to_string(sc_.launch.block) + "-thread block");
            return;
        }
        const int warps = sc_.launch.num_warps();
        if (s.kind == Selector::Kind::thread && s.n >= sc_.launch.block)
            throw ScenarioError(op.loc, key(op, "by"), "thread" + std::to_string(s.n) + " is outside the block; allowed: thread0..thread" +
                                                           std::to_string(sc_.launch.block - 1));
        if (s.kind != Selector::Kind::thread && s.kind != Selector::Kind::all && s.n >= warps)
            throw ScenarioError(op.loc, key(op, "by"), s.text() + " names warp " + std::to_string(s.n) +
                                                           "; allowed: warps 0.." + std::to_string(warps - 1));
    }

    void check_ops_static(const std::vector<Op>& ops, std::vector<std::string> scope) {
        for (const Op& op : ops) {
            if (!op.label.empty()) {
                if (std::find(labels_.begin(), labels_.end(), op.label) != labels_.end())
                    throw ScenarioError(op.loc, key(op, "label"), "label '" + op.label + "' is used twice");
                labels_.push_back(op.label);
            }
            check_selector(op, scope);
            for (const Expr* e : {&op.count, &op.bytes, &op.parity, &op.global_offset, &op.n, &op.range_start,
                                  &op.range_count, &op.loop_count})
                check_vars(*e, scope, to_string(op.kind));
            for (const Expr& c : op.coords) check_vars(c, scope, key(op, "coords"));
            auto per_thread = scope;
            per_thread.insert(per_thread.end(), {"tid", "lane", "warp"});
            for (const Expr* e : {&op.index, &op.value, &op.src_index, &op.dst_index, &op.src_size, &op.cta,
                                  &op.barrier_cta})
                if (op.kind != OpKind::wgmma_acc_fill && op.kind != OpKind::tensormap_replace)
                    check_vars(*e, per_thread, to_string(op.kind));
            check_vars(op.multicast, scope, key(op, "multicast"));
            check_cluster_op(sc_, op);
            check_tensormap_op(sc_, op);
            check_wgmma_op(sc_, op);
            check_snapshot_op(sc_, op);
            check_layout_op(sc_, op, scope);
            for (const Expr* e : {&op.width, &op.size})
                if (!e->empty() && !e->is_constant())
                    throw ScenarioError(e->loc(), to_string(op.kind), "\"" + e->text() +
                                                                         "\" must be a constant (an access width)");
            if (!op.barrier.empty()) check_ref(op.barrier, true, scope, key(op, "barrier"));
            if (!op.dst.empty()) check_ref(op.dst, false, scope, key(op, "dst"));
            if (!op.src.empty()) check_ref(op.src, false, scope, key(op, "src"));
            if (!op.buffer.empty()) check_ref(op.buffer, false, scope, key(op, "buffer"));
            if (!op.global.empty() && !sc_.find_global(op.global))
                throw ScenarioError(op.loc, key(op, "global"), "no global tensor named '" + op.global +
                                                                   "'; declared: " + join(names_of(sc_.globals)));
            check_op_arch(sc_, op);
            if (op_takes_key(op.kind, "coords")) check_tma_copy_static(sc_, op);
            if (op_takes_key(op.kind, "rows")) check_gather4_static(sc_, op);
            if (op_takes_key(op.kind, "reduce")) check_reduce_type(sc_, op);
            for (const Expr& r : op.rows) check_vars(r, scope, key(op, "rows"));
            check_vars(op.col, scope, key(op, "col"));
            if (op.kind == OpKind::compute) check_vars(op.fn, {"x", "idx"}, key(op, "fn"));
            check_integer_elements(sc_, op);
            if (op.kind == OpKind::loop) {
                if (std::find(scope.begin(), scope.end(), op.var) != scope.end())
                    throw ScenarioError(op.loc, key(op, "var"), "'" + op.var + "' is already a variable here");
                auto inner = scope;
                inner.push_back(op.var);
                check_ops_static(op.body, inner);
            }
        }
    }

    void in_range(const Expr& e, const Expr::IntEnv& env, int64_t lo, int64_t hi, const Op& op, const std::string& k,
                  const std::string& why = "") const {
        if (e.empty()) return;
        int64_t v = e.eval_int(env);
        if (v < lo || v > hi)
            throw ScenarioError(e.loc(), key(op, k), "\"" + e.text() + "\" evaluates to " + std::to_string(v) +
                                                         env_text(env) + "; allowed: " + std::to_string(lo) + ".." +
                                                         std::to_string(hi) + why);
    }

    static std::string env_text(const Expr::IntEnv& env) {
        std::string s;
        for (const auto& [k, v] : env)
            if ((k != "cta" && k != "rank") || v != 0) s += (s.empty() ? " (" : ", ") + k + "=" + std::to_string(v);
        return s.empty() ? s : s + ")";
    }

    void check_index(const Ref& r, bool barrier, const Expr::IntEnv& env, const Op& op, const std::string& k) const {
        if (r.empty() || r.index.empty()) return;
        int64_t n = barrier ? sc_.find_barrier(r.name)->array : sc_.find_shared(r.name)->array;
        in_range(r.index, env, 0, n - 1, op, k);
    }

    // barrier.sync/arrive id, count: ids 1..15 (0 is the CTA-wide barrier of `sync`), a count
    // of whole warps the CTA has [PTX 9.7.13.1]. Both may name the warp (`warp`, `tid` of its lane 0).
    void check_named_barrier(const Op& op, const Expr::IntEnv& env) const {
        const int64_t block = sc_.launch.block;
        for (int64_t t = 0; t < block; t += 32) {
            Expr::IntEnv we = env;
            if (!op.by.includes_at(static_cast<int>(t), we)) continue;
            we["tid"] = t;
            we["lane"] = 0;
            we["warp"] = t / 32;
            in_range(op.barrier_id, we, 1, 15, op, "id", " (0 is the CTA-wide barrier of sync) [PTX 9.7.13.1]");
            in_range(op.count, we, 32, block, op, "count", " (threads of the CTA) [PTX 9.7.13.1]");
            const int64_t count = op.count.eval_int(we);
            if (count % 32 != 0)
                throw ScenarioError(op.count.loc(), key(op, "count"),
                                    "\"" + op.count.text() + "\" evaluates to " + std::to_string(count) +
                                        env_text(we) + "; allowed: a multiple of 32 (whole warps) [PTX 9.7.13.1]");
        }
    }

    mutable std::map<int, std::pair<int64_t, int64_t>> layout_views_;

    void check_ops_dynamic(const std::vector<Op>& ops, const Expr::IntEnv& env, int64_t& instances) const {
        for (const Op& op : ops) {
            if (++instances > kMaxOpInstances) too_many_ops(op);
            if (op.by.per_iteration) check_selector_instance(op, env, instances);
            check_index(op.barrier, true, env, op, "barrier");
            check_index(op.dst, false, env, op, "dst");
            check_index(op.src, false, env, op, "src");
            check_index(op.buffer, false, env, op, "buffer");
            switch (op_family(op.kind)) {
            case OpFamily::barrier:
                if (op.kind == OpKind::mbarrier_init)
                    in_range(op.count, env, 1, kMaxArrivals, op, "count", " [PTX mbarrier expected count]");
                if (op.kind == OpKind::mbarrier_arrive) in_range(op.count, env, 1, kMaxArrivals, op, "count");
                in_range(op.bytes, env, 0, kMaxTx, op, "bytes", " [PTX tx-count range]");
                check_peer_per_thread(op, env, instances);
                break;
            case OpFamily::barrier_wait: in_range(op.parity, env, 0, 1, op, "parity"); break;
            case OpFamily::bulk_group:
            case OpFamily::cp_async:
            case OpFamily::wgmma:
                in_range(op.n, env, 0, 63, op, "n");
                if (op_has(op.kind, kPerThread)) check_per_thread(op, env, instances);
                break;
            case OpFamily::per_thread:
            case OpFamily::st_async: check_per_thread(op, env, instances); break;
            case OpFamily::async_copy: check_async_copy(op, env); break;
            case OpFamily::compute: check_compute(op, env); break;
            case OpFamily::loop: {
                in_range(op.loop_count, env, 0, 65536, op, "count");
                int64_t n = op.loop_count.eval_int(env);
                const bool outermost = !outer_loop_;
                if (outermost) outer_loop_ = &op;
                Expr::IntEnv inner = env;  // one copy per loop, not per iteration (1M iterations are allowed)
                for (int64_t i = 0; i < n; ++i) {
                    inner[op.var] = i;
                    check_ops_dynamic(op.body, inner, instances);
                }
                if (outermost) outer_loop_ = nullptr;
                break;
            }
            case OpFamily::named_barrier: check_named_barrier(op, env); break;
            case OpFamily::layout: check_layout_dynamic(sc_, op, env, layout_views_); break;
            case OpFamily::cta_sync:
            case OpFamily::fence:
            case OpFamily::snapshot:
            case OpFamily::cluster_barrier:
            case OpFamily::kernel_memory:
            case OpFamily::tensormap: break;
            }
        }
    }

    // A selector naming loop variables, evaluated for every thread at this instance (each
    // counting as an op instance): an overflow or a division by zero fails here, as a
    // selector over tid, lane and warp fails in check_selector.
    void check_selector_instance(const Op& op, const Expr::IntEnv& env, int64_t& instances) const {
        Expr::IntEnv te = env;
        for (int t = 0; t < sc_.launch.block; ++t) {
            if ((instances += 1) > kMaxOpInstances) too_many_ops(op);
            op.by.includes_at(t, te);
        }
    }

    // The limit names the loop whose iterations exceed it (the outermost one running),
    // not whichever op of its body happened to be the millionth.
    [[noreturn]] void too_many_ops(const Op& op) const {
        const std::string what = "more than " + std::to_string(kMaxOpInstances) +
                                 " ops (a per-thread op counts once per thread); allowed: at most " +
                                 std::to_string(kMaxOpInstances) + " over all CTAs";
        if (outer_loop_)
            throw ScenarioError(outer_loop_->loop_count.loc(), key(*outer_loop_, "count"),
                                "the loop " + outer_loop_->display() + " makes the program run " + what);
        throw ScenarioError(op.loc, key(op, "op"), "the program runs " + what);
    }

    // The TMA unit's ops: coordinates are .s32, a ctaMask 16 bits, bulk sizes 16-byte units.
    void check_async_copy(const Op& op, const Expr::IntEnv& env) const {
        for (const Expr& c : op.coords) in_range(c, env, INT32_MIN, INT32_MAX, op, "coords", " (.s32)");
        for (const Expr& r : op.rows) in_range(r, env, INT32_MIN, INT32_MAX, op, "rows", " (.s32)");
        in_range(op.col, env, INT32_MIN, INT32_MAX, op, "col", " (.s32)");
        in_range(op.multicast, env, 0, 0xFFFF, op, "multicast", " (ctaMask is 16 bits)");
        if (op.kind == OpKind::bulk_prefetch) check_bulk_prefetch(op, env);
        else if (!op.global.empty()) check_bulk(op, env);
    }

    void check_bulk(const Op& op, const Expr::IntEnv& env) const {
        const Ref& buf = op.kind == OpKind::bulk_load ? op.dst : op.src;  // store and reduce read `src`
        const SharedBuffer* b = sc_.find_shared(buf.name);
        const GlobalTensor* g = sc_.find_global(op.global);
        in_range(op.bytes, env, 16, b->size_bytes(), op, "bytes", " (at most the size of " + b->name + ")");
        int64_t bytes = op.bytes.eval_int(env);
        if (bytes % 16 != 0)
            throw ScenarioError(op.bytes.loc(), key(op, "bytes"), std::to_string(bytes) +
                                                                      " bytes; allowed: a multiple of 16 [PTX 9.7.9.25.4.1]");
        int64_t esize = dtype_size(g->type);
        in_range(op.global_offset, env, 0, g->num_elements() - bytes / esize, op, "offset",
                 " (elements; the copy must stay inside " + g->name + ")");
        int64_t off = op.global_offset.eval_int(env) * esize;
        if (off % 16 != 0)
            throw ScenarioError(op.global_offset.loc(), key(op, "offset"), "byte offset " + std::to_string(off) +
                                                                               " is not 16-byte aligned; allowed: a multiple of 16 bytes");
    }

    void check_bulk_prefetch(const Op& op, const Expr::IntEnv& env) const {
        const GlobalTensor* g = sc_.find_global(op.global);
        in_range(op.bytes, env, 16, g->size_bytes(), op, "bytes");
        const int64_t bytes = op.bytes.eval_int(env);
        if (bytes % 16 != 0)
            throw ScenarioError(op.bytes.loc(), key(op, "bytes"), std::to_string(bytes) +
                                                                      " bytes; allowed: a multiple of 16 [PTX 9.7.9.25.4.1]");
        const int64_t esize = dtype_size(g->type);
        in_range(op.global_offset, env, 0, g->num_elements() - bytes / esize, op, "offset",
                 " (elements; the prefetch must stay inside " + g->name + ")");
        if (op.global_offset.eval_int(env) * esize % 16 != 0)
            throw ScenarioError(op.global_offset.loc(), key(op, "offset"), "the byte offset is not 16-byte aligned");
    }

    // An access of `width` bytes at element `index` of a buffer of `elems` elements of
    // `esize` bytes: in bounds and naturally aligned.
    void check_access(const Expr& index, int64_t width, int64_t esize, int64_t elems, const Expr::IntEnv& env,
                      const Op& op, const std::string& k, const std::string& what) const {
        in_range(index, env, 0, elems - width / esize, op, k, " (the access must stay inside " + what + ")");
        if (index.eval_int(env) * esize % width != 0)
            throw ScenarioError(index.loc(), key(op, k), "\"" + index.text() + "\" gives byte offset " +
                                                             std::to_string(index.eval_int(env) * esize) + env_text(env) +
                                                             ", not aligned to the " + std::to_string(width) +
                                                             "-byte access; allowed: a multiple of " + std::to_string(width));
    }

    int64_t access_width(const Op& op, int64_t esize) const {
        if (op.width.empty()) return esize;
        const int64_t w = op.width.eval_int({});
        if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
            throw ScenarioError(op.width.loc(), key(op, "width"), std::to_string(w) + " bytes; allowed: 1, 2, 4, 8, 16");
        if (w < esize || w % esize != 0)
            throw ScenarioError(op.width.loc(), key(op, "width"), std::to_string(w) + " bytes is not a whole number of " +
                                                                      std::to_string(esize) + "-byte elements");
        return w;
    }

    // Per-thread ops: the expressions are checked for every thread that runs the op.
    void check_per_thread(const Op& op, const Expr::IntEnv& env, int64_t& instances) const {
        Expr::IntEnv te = env;
        for (int t : selected_.at(op, sc_.launch.block, te)) {
            if ((instances += 1) > kMaxOpInstances) too_many_ops(op);
            te["tid"] = t;
            te["lane"] = t % 32;
            te["warp"] = t / 32;
            if (!op.buffer.empty()) {  // shared.load/store, st.async
                const SharedBuffer* b = sc_.find_shared(op.buffer.name);
                const int64_t esize = dtype_size(b->type);
                check_access(op.index, access_width(op, esize), esize, b->num_elements(), te, op, "index", b->name);
                check_peer(op.cta, op, te, "cta");
                check_peer(op.barrier_cta, op, te, "barrier_cta");
            } else if (op_family(op.kind) == OpFamily::per_thread) {  // a global tensor
                const GlobalTensor* g = sc_.find_global(op.global);
                const int64_t esize = dtype_size(g->type);
                check_access(op.index, access_width(op, esize), esize, g->num_elements(), te, op, "index", g->name);
            } else {
                check_cp_async(op, te);
            }
        }
    }

    // A peer CTA named by its rank in the cluster.
    void check_peer(const Expr& rank, const Op& op, const Expr::IntEnv& env, const std::string& k) const {
        in_range(rank, env, 0, sc_.launch.cluster_size() - 1, op, k,
                 " (a rank in the cluster of " + std::to_string(sc_.launch.cluster_size()) + " CTAs)");
    }

    // A remote barrier op's `cta`, for every thread that runs it.
    void check_peer_per_thread(const Op& op, const Expr::IntEnv& env, int64_t& instances) const {
        if (op.cta.empty()) return;
        Expr::IntEnv te = env;
        for (int t : selected_.at(op, sc_.launch.block, te)) {
            if ((instances += 1) > kMaxOpInstances) too_many_ops(op);
            te["tid"] = t;
            te["lane"] = t % 32;
            te["warp"] = t / 32;
            check_peer(op.cta, op, te, "cta");
        }
    }

    void check_cp_async(const Op& op, const Expr::IntEnv& env) const {
        const int64_t size = op.size.eval_int({});
        if (size != 4 && size != 8 && size != 16)
            throw ScenarioError(op.size.loc(), key(op, "size"), std::to_string(size) + " bytes; allowed: 4, 8, 16 [PTX 9.7.9.25.3]");
        if (op.cache == "cg" && size != 16)
            throw ScenarioError(op.size.loc(), key(op, "size"), "cache cg copies 16 bytes only; allowed: 16 [PTX 9.7.9.25.3]");
        in_range(op.src_size, env, 0, size, op, "src_size", " (src-size above cp-size is undefined) [PTX 9.7.9.25.3]");
        const GlobalTensor* g = sc_.find_global(op.global);
        const SharedBuffer* b = sc_.find_shared(op.dst.name);
        if (size % dtype_size(g->type) != 0 || size % dtype_size(b->type) != 0)
            throw ScenarioError(op.size.loc(), key(op, "size"), "is not a whole number of elements");
        check_access(op.src_index, size, dtype_size(g->type), g->num_elements(), env, op, "src_index", g->name);
        check_access(op.dst_index, size, dtype_size(b->type), b->num_elements(), env, op, "dst_index", b->name);
    }

    void check_compute(const Op& op, const Expr::IntEnv& env) const {
        const SharedBuffer* b = sc_.find_shared(op.buffer.name);
        int64_t n = b->num_elements();
        in_range(op.range_start, env, 0, n, op, "start");
        int64_t start = op.range_start.eval_int(env);
        in_range(op.range_count, env, 0, n - start, op, "count", " (the range must stay inside " + b->name + ")");
    }

    const Scenario& sc_;
    mutable SelectedThreads selected_;
    std::vector<std::string> labels_;
    mutable const Op* outer_loop_ = nullptr;  // the outermost loop check_ops_dynamic is in
};

}  // namespace

void validate_scenario(const Scenario& sc) { Validator(sc).run(); }

}  // namespace tmasim
