#include "scenarios/op_loader.h"

#include <map>
#include <regex>

#include "scenarios/yaml_access.h"

namespace tmasim {
namespace {

// The keys each op takes besides op, by, label.
const std::map<OpKind, std::string>& op_keys() {
    static const std::map<OpKind, std::string> keys = {
        {OpKind::mbarrier_init, "barrier, count"},
        {OpKind::mbarrier_inval, "barrier"},
        {OpKind::fence_mbarrier_init, ""},
        {OpKind::sync, ""},
        {OpKind::mbarrier_arrive, "barrier, count, cta"},
        {OpKind::mbarrier_arrive_expect_tx, "barrier, bytes, cta"},
        {OpKind::mbarrier_expect_tx, "barrier, bytes, cta"},
        {OpKind::mbarrier_wait, "barrier, parity"},
        {OpKind::tma_load, "map, coords, dst, barrier, multicast"},
        {OpKind::tma_store, "map, coords, src"},
        {OpKind::bulk_load, "global, offset, bytes, dst, barrier, multicast"},
        {OpKind::bulk_store, "src, global, offset, bytes"},
        {OpKind::bulk_commit_group, ""},
        {OpKind::bulk_wait_group, "n"},
        {OpKind::bulk_wait_group_read, "n"},
        {OpKind::fence_proxy_async, "space"},
        {OpKind::compute, "buffer, fn, start, count"},
        {OpKind::loop, "var, count, body"},
        {OpKind::shared_load, "buffer, index, width, cta"},
        {OpKind::shared_store, "buffer, index, width, value, cta"},
        {OpKind::global_load, "global, index, width"},
        {OpKind::shared_snapshot, "buffer"},
        {OpKind::cp_async, "global, src_index, dst, dst_index, size, src_size, cache"},
        {OpKind::cp_async_commit_group, ""},
        {OpKind::cp_async_wait_group, "n"},
        {OpKind::cp_async_wait_all, ""},
        {OpKind::cp_async_mbarrier_arrive, "barrier, noinc"},
        {OpKind::tma_prefetch, "map, coords"},
        {OpKind::bulk_prefetch, "global, offset, bytes"},
        {OpKind::bulk_reduce, "src, global, offset, bytes, reduce"},
        {OpKind::tma_reduce, "map, coords, src, reduce"},
        {OpKind::tma_gather4, "map, rows, col, dst, barrier"},
        {OpKind::tma_scatter4, "map, rows, col, src"},
        {OpKind::cluster_arrive, "relaxed"},
        {OpKind::cluster_wait, ""},
        {OpKind::cluster_sync, ""},
        {OpKind::st_async, "buffer, index, width, value, barrier, cta, barrier_cta"},
        {OpKind::tensormap_stage, "map"},
        {OpKind::tensormap_replace, "map, field, dim, value, global, space"},
        {OpKind::tensormap_cp_fenceproxy, "map, scope"},
        {OpKind::fence_proxy_tensormap_release, "scope"},
        {OpKind::fence_proxy_tensormap_acquire, "map, scope"},
        {OpKind::wgmma_fence, ""},
        {OpKind::wgmma_mma_async, "acc, a, b, k, scale_d, swizzle"},
        {OpKind::wgmma_commit_group, ""},
        {OpKind::wgmma_wait_group, "n"},
        {OpKind::wgmma_acc_fill, "acc, value"},
        {OpKind::wgmma_acc_store, "acc, buffer"},
    };
    return keys;
}

Selector read_selector(MapReader& m) {
    Selector s;
    if (!m.has("by")) return s;
    std::string text = m.string("by");
    // std::regex recurses once per character matched: bound the text before matching.
    if (text.size() > kMaxExprLength) m.fail("by", "a selector of " + std::to_string(text.size()) +
                                                       " characters; allowed: at most " + std::to_string(kMaxExprLength));
    static const std::regex form("(all|thread|warp|elected|not_elected)([0-9]*)");
    static const std::regex name_like("[A-Za-z_][A-Za-z0-9_]*");
    std::smatch match;
    const char* allowed = "allowed: all, threadN, warpN, elected, not_elected (electedW/not_electedW for warp W), "
                          "or an expression over tid, lane and warp such as \"tid < 8\"";
    if (!std::regex_match(text, match, form)) {
        // A bare word is a misspelt keyword, not an expression of one variable.
        if (std::regex_match(text, name_like)) m.fail("by", "unknown selector \"" + text + "\"; " + allowed);
        SourceLoc at = m.loc("by");
        if (m.optional("by").Tag() == "!") at.col += 1;
        s.kind = Selector::Kind::predicate;
        s.pred = Expr::parse(text, at, m.key_path("by"));
        return s;
    }
    std::string kind = match[1];
    std::string digits = match[2];
    bool needs_number = kind == "thread" || kind == "warp";
    if ((kind == "all" && !digits.empty()) || (needs_number && digits.empty()))
        m.fail("by", "unknown selector \"" + text + "\"; " + allowed);
    if (digits.size() > 4) m.fail("by", "index in \"" + text + "\" is out of range; allowed: 0..1023");
    s.n = digits.empty() ? 0 : std::stoi(digits);
    if (kind == "all") s.kind = Selector::Kind::all;
    else if (kind == "thread") s.kind = Selector::Kind::thread;
    else if (kind == "warp") s.kind = Selector::Kind::warp;
    else if (kind == "elected") s.kind = Selector::Kind::elected;
    else s.kind = Selector::Kind::not_elected;
    return s;
}

// "name" or "name[expr]".
Ref read_ref(MapReader& m, const std::string& key) {
    Ref r;
    r.loc = m.loc(key);
    std::string text = m.string(key);
    if (text.size() > kMaxExprLength + kMaxNameLength)
        m.fail(key, "a reference of " + std::to_string(text.size()) + " characters; allowed: at most " +
                        std::to_string(kMaxExprLength + kMaxNameLength));
    static const std::regex form(R"(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*)");
    std::smatch match;
    if (!std::regex_match(text, match, form))
        m.fail(key, "\"" + text + "\" is not a reference; allowed: name or name[index expression]");
    r.name = match[1];
    if (match[2].matched) {
        SourceLoc at = r.loc;
        // A quoted value's location is its opening quote: the text starts one column later.
        if (m.optional(key).Tag() == "!") at.col += 1;
        at.col += static_cast<int>(match.position(2));
        r.index = Expr::parse(match[2], at, m.key_path(key));
    }
    return r;
}

// A `value` string parsed like compute's `fn` (numbers and expressions alike).
Expr read_value(MapReader& m) {
    std::string v = m.string("value");
    SourceLoc at = m.loc("value");
    if (m.optional("value").Tag() == "!") at.col += 1;
    return Expr::parse(v, at, m.key_path("value"));
}

Scope read_scope(MapReader& m, Scope fallback) {
    if (!m.has("scope")) return fallback;
    const std::string text = m.string("scope");
    auto s = parse_scope(text);
    if (!s) m.fail("scope", "unknown scope \"" + text + "\"; allowed: " + allowed_scopes());
    return *s;
}

// init, inval and wait exist only for the CTA's own barrier (mbarrier.*.shared::cta).
void reject_remote_barrier(MapReader& m, OpKind kind) {
    if ((kind == OpKind::mbarrier_init || kind == OpKind::mbarrier_inval || kind == OpKind::mbarrier_wait) && m.has("cta"))
        m.fail("cta", to_string(kind) + " works on the CTA's own barrier only: a remote (shared::cluster) barrier "
                                        "takes arrive, expect_tx and complete_tx; allowed: no cta key "
                                        "[PTX 9.7.13.15.8; semantics.md A10]");
}

ReduceOp read_reduce(MapReader& m) {
    const std::string text = m.string("reduce");
    auto r = parse_reduce_op(text);
    if (!r) m.fail("reduce", "unknown reduction \"" + text + "\"; allowed: " + allowed_reduce_ops());
    return *r;
}

// Loops enclosing the op at `path` ("program[1].body[0].body[2]" is inside two).
int loop_depth(const std::string& path) {
    int depth = 0;
    for (size_t at = path.find(".body["); at != std::string::npos; at = path.find(".body[", at + 1)) ++depth;
    return depth;
}

Op read_op(const YAML::Node& node, const std::string& file, const std::string& path, int& next_id) {
    MapReader m(node, file, path);
    Op op;
    op.loc = m.loc();
    op.id = next_id++;
    std::string kind_text = m.string("op");
    auto kind = parse_op_kind(kind_text);
    if (!kind) m.fail("op", "unknown op \"" + kind_text + "\"; allowed: " + allowed_op_kinds());
    op.kind = *kind;
    const std::string extra = op_keys().at(op.kind);
    const std::string allowed = "op, by, label" + (extra.empty() ? "" : ", " + extra) + " (for " + kind_text + ")";
    reject_remote_barrier(m, op.kind);
    m.only_keys("op, by, label" + (extra.empty() ? "" : ", " + extra), " (for " + kind_text + ")");
    op.by = read_selector(m);
    op.label = m.string_or("label", "");

    switch (op.kind) {
    case OpKind::mbarrier_init:
        op.barrier = read_ref(m, "barrier");
        op.count = m.expr("count");
        break;
    case OpKind::mbarrier_inval:
        op.barrier = read_ref(m, "barrier");
        break;
    case OpKind::mbarrier_arrive:
        op.barrier = read_ref(m, "barrier");
        op.count = m.has("count") ? m.expr("count") : Expr::constant(1);
        op.cta = m.expr_or_empty("cta");
        break;
    case OpKind::mbarrier_arrive_expect_tx:
    case OpKind::mbarrier_expect_tx:
        op.barrier = read_ref(m, "barrier");
        op.bytes = m.expr("bytes");
        op.cta = m.expr_or_empty("cta");
        break;
    case OpKind::mbarrier_wait:
        op.barrier = read_ref(m, "barrier");
        op.parity = m.expr("parity");
        break;
    case OpKind::tma_gather4:
    case OpKind::tma_scatter4: {
        op.map = m.string("map");
        YAML::Node rows = m.node("rows");
        if (!rows.IsSequence() || rows.size() != 4)
            m.fail("rows", "expected a list of exactly 4 row coordinates (one tile::gather4/scatter4 moves 4 rows), got " +
                               node_kind(rows) + (rows.IsSequence() ? " of " + std::to_string(rows.size()) : std::string()));
        for (size_t i = 0; i < rows.size(); ++i)
            op.rows.push_back(scalar_expr(rows[i], file, m.key_path("rows") + "[" + std::to_string(i) + "]"));
        op.col = m.expr("col");
        if (op.kind == OpKind::tma_gather4) {
            op.dst = read_ref(m, "dst");
            op.barrier = read_ref(m, "barrier");
        } else {
            op.src = read_ref(m, "src");
        }
        break;
    }
    case OpKind::bulk_reduce:
        op.src = read_ref(m, "src");
        op.global = m.string("global");
        op.global_offset = m.has("offset") ? m.expr("offset") : Expr::constant(0);
        op.bytes = m.expr("bytes");
        op.reduce = read_reduce(m);
        break;
    case OpKind::tma_reduce:
    case OpKind::tma_load:
    case OpKind::tma_store:
    case OpKind::tma_prefetch: {
        op.map = m.string("map");
        YAML::Node coords = m.node("coords");
        if (!coords.IsSequence() || coords.size() < 1 || coords.size() > 5)
            m.fail("coords", "expected a list of 1..5 coordinates, got " + node_kind(coords));
        for (size_t i = 0; i < coords.size(); ++i)
            op.coords.push_back(scalar_expr(coords[i], file, m.key_path("coords") + "[" + std::to_string(i) + "]"));
        if (op.kind == OpKind::tma_load) {
            op.dst = read_ref(m, "dst");
            op.barrier = read_ref(m, "barrier");
            op.multicast = m.expr_or_empty("multicast");
        } else if (op.kind == OpKind::tma_store || op.kind == OpKind::tma_reduce) {
            op.src = read_ref(m, "src");
        }
        if (op.kind == OpKind::tma_reduce) op.reduce = read_reduce(m);
        break;
    }
    case OpKind::bulk_prefetch:
        op.global = m.string("global");
        op.global_offset = m.has("offset") ? m.expr("offset") : Expr::constant(0);
        op.bytes = m.expr("bytes");
        break;
    case OpKind::shared_load:
    case OpKind::shared_store:
        op.buffer = read_ref(m, "buffer");
        op.index = m.expr("index");
        op.width = m.has("width") ? m.expr("width") : Expr();
        if (op.kind == OpKind::shared_store) op.value = read_value(m);
        op.cta = m.expr_or_empty("cta");
        break;
    case OpKind::st_async:
        op.buffer = read_ref(m, "buffer");
        op.index = m.expr("index");
        op.width = m.has("width") ? m.expr("width") : Expr();
        op.value = read_value(m);
        op.barrier = read_ref(m, "barrier");
        op.cta = m.expr("cta");
        op.barrier_cta = m.has("barrier_cta") ? m.expr("barrier_cta") : op.cta;
        break;
    case OpKind::global_load:
        op.global = m.string("global");
        op.index = m.expr("index");
        op.width = m.has("width") ? m.expr("width") : Expr();
        break;
    case OpKind::cp_async: {
        op.global = m.string("global");
        op.src_index = m.expr("src_index");
        op.dst = read_ref(m, "dst");
        op.dst_index = m.expr("dst_index");
        op.size = m.expr("size");
        op.src_size = m.expr_or_empty("src_size");
        op.cache = m.string_or("cache", "ca");
        if (op.cache != "ca" && op.cache != "cg") m.fail("cache", "unknown cache \"" + op.cache + "\"; allowed: ca, cg");
        break;
    }
    case OpKind::cp_async_wait_group:
        op.n = m.expr("n");
        if (!op.n.is_constant()) m.fail("n", "must be a constant (an immediate in PTX)");
        break;
    case OpKind::cp_async_mbarrier_arrive:
        op.barrier = read_ref(m, "barrier");
        op.noinc = m.boolean_or("noinc", false);
        break;
    case OpKind::bulk_load:
    case OpKind::bulk_store:
        op.global = m.string("global");
        op.global_offset = m.has("offset") ? m.expr("offset") : Expr::constant(0);
        op.bytes = m.expr("bytes");
        if (op.kind == OpKind::bulk_load) {
            op.dst = read_ref(m, "dst");
            op.barrier = read_ref(m, "barrier");
            op.multicast = m.expr_or_empty("multicast");
        } else {
            op.src = read_ref(m, "src");
        }
        break;
    case OpKind::bulk_wait_group:
    case OpKind::bulk_wait_group_read:
        op.n = m.expr("n");
        if (!op.n.is_constant()) m.fail("n", "must be a constant (an immediate in PTX)");
        break;
    case OpKind::compute: {
        op.buffer = read_ref(m, "buffer");
        std::string fn = m.string("fn");
        SourceLoc at = m.loc("fn");
        if (m.optional("fn").Tag() == "!") at.col += 1;
        op.fn = Expr::parse(fn, at, m.key_path("fn"));
        op.range_start = m.has("start") ? m.expr("start") : Expr::constant(0);
        op.range_count = m.expr_or_empty("count");
        break;
    }
    case OpKind::loop: {
        op.var = m.string("var");
        static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
        if (op.var.size() > kMaxNameLength || !std::regex_match(op.var, ident) || op.var == "cta" || op.var == "x" || op.var == "idx")
            m.fail("var", "\"" + op.var + "\" is not a usable loop variable; allowed: a name other than cta, x, idx");
        op.loop_count = m.expr("count");
        YAML::Node body = m.node("body");
        if (loop_depth(path) >= kMaxLoopDepth)
            m.fail("body", "loops nested more than " + std::to_string(kMaxLoopDepth) + " deep; allowed: at most " +
                               std::to_string(kMaxLoopDepth));
        if (!body.IsSequence() || body.size() == 0)
            m.fail("body", "expected a non-empty list of ops, got " + node_kind(body));
        op.body = read_ops(body, file, m.key_path("body"), next_id);
        break;
    }
    case OpKind::fence_proxy_async: {
        const std::string text = m.string_or("space", "cta");
        auto sp = parse_proxy_space(text);
        if (!sp) m.fail("space", "unknown state space \"" + text + "\"; allowed: " + allowed_proxy_spaces());
        op.proxy_space = *sp;
        break;
    }
    case OpKind::cluster_arrive: op.relaxed = m.boolean_or("relaxed", false); break;
    case OpKind::tensormap_stage: op.map = m.string("map"); break;
    case OpKind::tensormap_replace: {
        op.map = m.string("map");
        const std::string f = m.string("field");
        auto field = parse_map_field(f);
        if (!field) m.fail("field", "unknown field \"" + f + "\"; allowed: " + allowed_map_fields());
        op.field = *field;
        const std::string sp = m.string("space");
        auto space = parse_space(sp);
        if (!space) m.fail("space", "unknown space \"" + sp + "\"; allowed: " + allowed_spaces());
        op.space = *space;
        if (op.field == MapField::global_address) {
            op.global = m.string("global");
        } else {
            op.dim = m.expr("dim");
            if (!op.dim.is_constant()) m.fail("dim", "must be a constant (PTX's ord operand is an immediate)");
            op.value = m.expr("value");
        }
        break;
    }
    case OpKind::tensormap_cp_fenceproxy:
        op.map = m.string("map");
        op.scope = read_scope(m, Scope::gpu);
        break;
    case OpKind::fence_proxy_tensormap_release: op.scope = read_scope(m, Scope::gpu); break;
    case OpKind::fence_proxy_tensormap_acquire:
        op.map = m.string("map");
        op.scope = read_scope(m, Scope::gpu);
        break;
    case OpKind::wgmma_mma_async: {
        op.acc = m.string("acc");
        op.a = read_ref(m, "a");
        op.b = read_ref(m, "b");
        op.k = m.has("k") ? m.expr("k") : Expr::constant(0);
        op.scale_d = m.has("scale_d") ? m.expr("scale_d") : Expr::constant(1);
        const std::string sw = m.string_or("swizzle", "32B");
        auto swz = parse_swizzle(sw);
        if (!swz) m.fail("swizzle", "unknown swizzle \"" + sw + "\"; allowed: " + allowed_swizzles());
        op.swizzle = *swz;
        break;
    }
    case OpKind::wgmma_wait_group:
        op.n = m.expr("n");
        if (!op.n.is_constant()) m.fail("n", "must be a constant (an immediate in PTX)");
        break;
    case OpKind::wgmma_acc_fill:
        op.acc = m.string("acc");
        op.value = read_value(m);
        break;
    case OpKind::wgmma_acc_store:
        op.acc = m.string("acc");
        op.buffer = read_ref(m, "buffer");
        break;
    case OpKind::shared_snapshot: op.buffer = read_ref(m, "buffer"); break;
    case OpKind::fence_mbarrier_init:
    case OpKind::sync:
    case OpKind::bulk_commit_group:
    case OpKind::cp_async_commit_group:
    case OpKind::cp_async_wait_all:
    case OpKind::cluster_wait:
    case OpKind::cluster_sync:
    case OpKind::wgmma_fence:
    case OpKind::wgmma_commit_group:
        break;
    }
    m.finish(allowed);
    return op;
}

}  // namespace

std::vector<Op> read_ops(const YAML::Node& list, const std::string& file, const std::string& path,
                         int& next_id) {
    std::vector<Op> ops;
    for (size_t i = 0; i < list.size(); ++i) {
        // YAML aliases can repeat a loop body exponentially in a few lines: count the ops as
        // they are read, so the expansion stops here and not when memory runs out.
        if (next_id >= kMaxProgramOps)
            throw ScenarioError(loc_of(list[i], file), path + "[" + std::to_string(i) + "]",
                                "the program has more than " + std::to_string(kMaxProgramOps) +
                                    " ops (YAML aliases included); allowed: at most " + std::to_string(kMaxProgramOps) +
                                    " (use a loop)");
        ops.push_back(read_op(list[i], file, path + "[" + std::to_string(i) + "]", next_id));
    }
    return ops;
}

}  // namespace tmasim
