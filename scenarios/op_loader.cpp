#include "scenarios/op_loader.h"

#include <algorithm>
#include <regex>
#include <set>

#include "scenarios/suggest.h"
#include "scenarios/yaml_access.h"

namespace tmasim {
namespace {

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
                          "or an expression over tid, lane, warp and loop variables such as \"tid < 8\"";
    if (!std::regex_match(text, match, form)) {
        // A bare word is a misspelt keyword, not an expression of one variable.
        if (std::regex_match(text, name_like)) m.fail("by", "unknown selector \"" + text + "\"; " + allowed);
        SourceLoc at = m.loc("by");
        if (m.optional("by").Tag() == "!") at.col += 1;
        s.kind = Selector::Kind::predicate;
        s.pred = Expr::parse(text, at, m.key_path("by"));
        for (const std::string& v : s.pred.variables())
            if (v != "tid" && v != "lane" && v != "warp") s.per_iteration = true;  // the validator checks the name
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

// An immediate operand (PTX takes a constant there).
Expr read_immediate(MapReader& m, const std::string& key) {
    Expr e = m.expr(key);
    if (!e.is_constant()) m.fail(key, "must be a constant (an immediate in PTX)");
    return e;
}

void read_barrier_op(MapReader& m, Op& op) {
    op.barrier = read_ref(m, "barrier");
    if (op.kind == OpKind::mbarrier_init) op.count = m.expr("count");
    if (op.kind == OpKind::mbarrier_arrive) op.count = m.has("count") ? m.expr("count") : Expr::constant(1);
    if (op_takes_key(op.kind, "bytes")) op.bytes = m.expr("bytes");
    op.cta = m.expr_or_empty("cta");  // absent for init, inval (reject_remote_barrier)
}

// A list of coordinates, each a scalar expression.
std::vector<Expr> read_coords(MapReader& m, const std::string& key, const std::string& file) {
    YAML::Node list = m.node(key);
    std::vector<Expr> out;
    for (size_t i = 0; i < list.size(); ++i)
        out.push_back(scalar_expr(list[i], file, m.key_path(key) + "[" + std::to_string(i) + "]"));
    return out;
}

// Every op of the TMA unit: its source and destination follow from its keys.
void read_async_copy(MapReader& m, Op& op, const std::string& file) {
    if (op_takes_key(op.kind, "rows")) {
        op.map = m.string("map");
        YAML::Node rows = m.node("rows");
        if (!rows.IsSequence() || rows.size() != 4)
            m.fail("rows", "expected a list of exactly 4 row coordinates (one tile::gather4/scatter4 moves 4 rows), got " +
                               node_kind(rows) + (rows.IsSequence() ? " of " + std::to_string(rows.size()) : std::string()));
        op.rows = read_coords(m, "rows", file);
        op.col = m.expr("col");
    } else if (op_takes_key(op.kind, "coords")) {
        op.map = m.string("map");
        YAML::Node coords = m.node("coords");
        if (!coords.IsSequence() || coords.size() < 1 || coords.size() > 5)
            m.fail("coords", "expected a list of 1..5 coordinates, got " + node_kind(coords));
        op.coords = read_coords(m, "coords", file);
    } else {
        // bulk.reduce names its source first; the other bulk ops their global tensor.
        if (op.kind == OpKind::bulk_reduce) op.src = read_ref(m, "src");
        op.global = m.string("global");
        op.global_offset = m.has("offset") ? m.expr("offset") : Expr::constant(0);
        op.bytes = m.expr("bytes");
    }
    if (op_takes_key(op.kind, "dst")) {
        op.dst = read_ref(m, "dst");
        op.barrier = read_ref(m, "barrier");
        if (op_takes_key(op.kind, "multicast")) op.multicast = m.expr_or_empty("multicast");
    } else if (op_takes_key(op.kind, "src") && op.src.empty()) {
        op.src = read_ref(m, "src");
    }
    if (op_takes_key(op.kind, "reduce")) op.reduce = read_reduce(m);
}

// One generic access per thread: a shared buffer (here or, with cta, in a peer CTA) or a
// global tensor, and the value written when the row takes one.
void read_per_thread(MapReader& m, Op& op) {
    if (op_takes_key(op.kind, "buffer")) op.buffer = read_ref(m, "buffer");
    else op.global = m.string("global");
    op.index = m.expr("index");
    op.width = m.has("width") ? m.expr("width") : Expr();
    if (op_takes_key(op.kind, "value")) op.value = read_value(m);
    if (op_takes_key(op.kind, "cta")) op.cta = m.expr_or_empty("cta");
}

void read_cp_async(MapReader& m, Op& op) {
    if (op.kind == OpKind::cp_async) {
        op.global = m.string("global");
        op.src_index = m.expr("src_index");
        op.dst = read_ref(m, "dst");
        op.dst_index = m.expr("dst_index");
        op.size = m.expr("size");
        op.src_size = m.expr_or_empty("src_size");
        op.cache = m.string_or("cache", "ca");
        if (op.cache != "ca" && op.cache != "cg") m.fail("cache", "unknown cache \"" + op.cache + "\"; allowed: ca, cg");
    } else if (op.kind == OpKind::cp_async_mbarrier_arrive) {
        op.barrier = read_ref(m, "barrier");
        op.noinc = m.boolean_or("noinc", false);
    } else if (op_takes_key(op.kind, "n")) {
        op.n = read_immediate(m, "n");
    }
}

void read_tensormap_op(MapReader& m, Op& op) {
    if (op_takes_key(op.kind, "map")) op.map = m.string("map");
    if (op.kind == OpKind::tensormap_replace) {
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
    }
    if (op_takes_key(op.kind, "scope")) op.scope = read_scope(m, Scope::gpu);
}

void read_wgmma_op(MapReader& m, Op& op) {
    if (op_takes_key(op.kind, "acc")) op.acc = m.string("acc");
    if (op.kind == OpKind::wgmma_mma_async) {
        op.a = read_ref(m, "a");
        op.b = read_ref(m, "b");
        op.k = m.has("k") ? m.expr("k") : Expr::constant(0);
        op.scale_d = m.has("scale_d") ? m.expr("scale_d") : Expr::constant(1);
        const std::string sw = m.string_or("swizzle", "32B");
        auto swz = parse_swizzle(sw);
        if (!swz) m.fail("swizzle", "unknown swizzle \"" + sw + "\"; allowed: " + allowed_swizzles());
        op.swizzle = *swz;
    }
    if (op_takes_key(op.kind, "n")) op.n = read_immediate(m, "n");
    if (op.kind == OpKind::wgmma_acc_fill) op.value = read_value(m);
    if (op_takes_key(op.kind, "buffer")) op.buffer = read_ref(m, "buffer");
}

// A register tile's op: its tensor view in global memory, or its shared buffer and that
// buffer's layout; convert_layout's destination tile and scratch buffer.
void read_layout_op(MapReader& m, Op& op) {
    op.tile = m.string("tile");
    if (op_takes_key(op.kind, "global")) {
        op.global = m.string("global");
        op.base = m.has("base") ? m.expr("base") : Expr::constant(0);
        op.strides = m.int_list("strides", 1, 2, 0, int64_t(1) << 32);
        op.mask = m.expr_or_empty("mask");
        return;
    }
    if (op.kind == OpKind::layout_reduce) {
        op.axis = m.integer("axis", 0, 1);
        op.to_tile = m.string("to");
        if (m.has("scratch")) op.buffer = read_ref(m, "scratch");
        const std::string c = m.string_or("combine", "add");
        if (c != "add" && c != "max") m.fail("combine", "unknown combine \"" + c + "\"; allowed: add, max");
        op.combine_max = c == "max";
        return;
    }
    if (op_takes_key(op.kind, "to")) {
        op.to_tile = m.string("to");
        op.buffer = read_ref(m, "scratch");
    } else {
        op.buffer = read_ref(m, "buffer");
    }
    op.shared_layout = m.string_or("layout", "");
}

// An op item without `op:`, written as `- loop: {...}` or `- tma.load: {...}` (the op's name
// as the key, as some YAML formats have it): say how an op is written, not only that `op` is
// missing.
void refuse_keyed_op(const YAML::Node& node, MapReader& m) {
    if (!node.IsMap() || node.size() != 1) return;  // MapReader reports the missing `op`
    const std::string key = node.begin()->first.Scalar();
    if (key == "loop")
        m.fail("loop", "a loop is an op of its own; allowed: `- op: loop` with var, count and body keys beside it, "
                       "e.g. `- {op: loop, var: i, count: 4, body: [...]}` (scenarios/FORMAT.md, Ops)");
    const std::vector<std::string> names = program_op_names();
    if (std::find(names.begin(), names.end(), key) != names.end())
        m.fail(key, "an op's name is the value of its `op` key; allowed: `- {op: " + key + ", ...}` with the op's "
                    "keys beside it");
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
    if (!m.has("op")) refuse_keyed_op(node, m);
    std::string kind_text = m.string("op");
    auto kind = parse_op_kind(kind_text);
    if (!kind || op_has(*kind, kKernelOnly)) {
        // A near name is the likely fix; the whole list only when there is none.
        const std::vector<std::string> names = program_op_names();
        const std::string guess = did_you_mean(kind_text, names);
        if (!guess.empty())
            m.fail("op", "unknown op \"" + kind_text + "\"; " + guess + " allowed: one of " +
                             std::to_string(names.size()) + " ops (`tmasim schema` lists them; scenarios/FORMAT.md, Ops)");
        m.fail("op", "unknown op \"" + kind_text + "\"; allowed: " + allowed_op_kinds());
    }
    op.kind = *kind;
    const std::string extra = op_info(op.kind).keys;
    // `trace` (every op but a loop): time this op or not, whatever the run's trace level.
    const std::string common = op.kind == OpKind::loop ? "op, by, label" : "op, by, label, trace";
    const std::string allowed = common + (extra.empty() ? "" : ", " + extra) + " (for " + kind_text + ")";
    reject_remote_barrier(m, op.kind);
    m.only_keys(common + (extra.empty() ? "" : ", " + extra), " (for " + kind_text + ")");
    op.by = read_selector(m);
    op.label = m.string_or("label", "");
    if (m.has("trace")) op.trace = m.boolean_or("trace", true);

    switch (op_family(op.kind)) {
    case OpFamily::barrier: read_barrier_op(m, op); break;
    case OpFamily::barrier_wait:
        op.barrier = read_ref(m, "barrier");
        op.parity = m.expr("parity");
        break;
    case OpFamily::cta_sync: break;
    case OpFamily::named_barrier:
        op.barrier_id = m.expr("id");
        op.count = m.expr("count");
        break;
    case OpFamily::fence:
        if (op_takes_key(op.kind, "space")) {
            const std::string text = m.string_or("space", "cta");
            auto sp = parse_proxy_space(text);
            if (!sp) m.fail("space", "unknown state space \"" + text + "\"; allowed: " + allowed_proxy_spaces());
            op.proxy_space = *sp;
        }
        break;
    case OpFamily::async_copy: read_async_copy(m, op, file); break;
    case OpFamily::bulk_group:
        if (op_takes_key(op.kind, "n")) op.n = read_immediate(m, "n");
        break;
    case OpFamily::per_thread: read_per_thread(m, op); break;
    case OpFamily::snapshot: op.buffer = read_ref(m, "buffer"); break;
    case OpFamily::cp_async: read_cp_async(m, op); break;
    case OpFamily::compute: {
        op.buffer = read_ref(m, "buffer");
        std::string fn = m.string("fn");
        SourceLoc at = m.loc("fn");
        if (m.optional("fn").Tag() == "!") at.col += 1;
        op.fn = Expr::parse(fn, at, m.key_path("fn"));
        op.range_start = m.has("start") ? m.expr("start") : Expr::constant(0);
        op.range_count = m.expr_or_empty("count");
        break;
    }
    case OpFamily::loop: {
        op.var = m.string("var");
        static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
        // tid, lane and warp are the thread's own variables in every expression: a loop variable
        // of that name was read as the loop's by the model and as the thread's by the device.
        static const std::set<std::string> reserved = {"cta", "x", "idx", "tid", "lane", "warp"};
        if (op.var.size() > kMaxNameLength || !std::regex_match(op.var, ident) || reserved.count(op.var))
            m.fail("var", "\"" + op.var + "\" is not a usable loop variable; allowed: a name other than cta, x, idx, "
                          "tid, lane, warp");
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
    case OpFamily::cluster_barrier:
        if (op_takes_key(op.kind, "relaxed")) op.relaxed = m.boolean_or("relaxed", false);
        break;
    case OpFamily::st_async:
        op.buffer = read_ref(m, "buffer");
        op.index = m.expr("index");
        op.width = m.has("width") ? m.expr("width") : Expr();
        op.value = read_value(m);
        op.barrier = read_ref(m, "barrier");
        op.cta = m.expr("cta");
        op.barrier_cta = m.has("barrier_cta") ? m.expr("barrier_cta") : op.cta;
        break;
    case OpFamily::tensormap: read_tensormap_op(m, op); break;
    case OpFamily::wgmma: read_wgmma_op(m, op); break;
    case OpFamily::layout: read_layout_op(m, op); break;
    case OpFamily::kernel_memory: break;  // refused above: a kernel's PTX instruction, not a program op
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
