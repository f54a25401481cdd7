#include "scenarios/enums.h"

#include <utility>

#include "scenarios/run_result.h"

namespace tmasim {
namespace {

template <typename E>
using Table = std::vector<std::pair<E, const char*>>;

const Table<DType>& dtype_table() {
    static const Table<DType> t = {
        {DType::f32, "f32"}, {DType::f16, "f16"}, {DType::bf16, "bf16"}, {DType::u8, "u8"}, {DType::i32, "i32"}};
    return t;
}
const Table<Swizzle>& swizzle_table() {
    static const Table<Swizzle> t = {
        {Swizzle::none, "none"}, {Swizzle::b32, "32B"}, {Swizzle::b64, "64B"}, {Swizzle::b128, "128B"}};
    return t;
}
const Table<OobFill>& oob_table() {
    static const Table<OobFill> t = {{OobFill::zero, "zero"}, {OobFill::nan, "nan"}};
    return t;
}
const Table<Outcome>& outcome_table() {
    static const Table<Outcome> t = {
        {Outcome::ok, "ok"}, {Outcome::hazard, "hazard"}, {Outcome::hang, "hang"}, {Outcome::fault, "fault"}};
    return t;
}
const Table<OpKind>& op_table() {
    static const Table<OpKind> t = [] {
        Table<OpKind> rows;
        for (const OpInfo& row : kOpTable) rows.emplace_back(row.kind, row.spelling);
        return rows;
    }();
    return t;
}
const Table<ReduceOp>& reduce_table() {
    static const Table<ReduceOp> t = {
        {ReduceOp::add, "add"}, {ReduceOp::min, "min"}, {ReduceOp::max, "max"}, {ReduceOp::inc, "inc"},
        {ReduceOp::dec, "dec"}, {ReduceOp::and_, "and"}, {ReduceOp::or_, "or"},   {ReduceOp::xor_, "xor"}};
    return t;
}
const Table<MapLocation>& map_location_table() {
    static const Table<MapLocation> t = {{MapLocation::param, "param"}, {MapLocation::global, "global"}};
    return t;
}
const Table<MapField>& map_field_table() {
    static const Table<MapField> t = {{MapField::global_address, "global_address"},
                                      {MapField::global_dim, "global_dim"},
                                      {MapField::global_stride, "global_stride"},
                                      {MapField::box_dim, "box_dim"},
                                      {MapField::element_stride, "element_stride"}};
    return t;
}
const Table<Space>& space_table() {
    static const Table<Space> t = {{Space::shared, "shared"}, {Space::global, "global"}};
    return t;
}
const Table<Scope>& scope_table() {
    static const Table<Scope> t = {
        {Scope::cta, "cta"}, {Scope::cluster, "cluster"}, {Scope::gpu, "gpu"}, {Scope::sys, "sys"}};
    return t;
}
const Table<ProxySpace>& proxy_space_table() {
    static const Table<ProxySpace> t = {{ProxySpace::cta, "cta"},
                                        {ProxySpace::cluster, "cluster"},
                                        {ProxySpace::global, "global"},
                                        {ProxySpace::all, "all"}};
    return t;
}
const Table<Interleave>& interleave_table() {
    static const Table<Interleave> t = {{Interleave::none, "none"}, {Interleave::b16, "16B"}, {Interleave::b32, "32B"}};
    return t;
}
const Table<EventKind>& event_table() {
    static const Table<EventKind> t = {
        {EventKind::issue, "issue"},           {EventKind::complete, "complete"},
        {EventKind::wait_begin, "wait_begin"}, {EventKind::wait_end, "wait_end"},
        {EventKind::state, "state"},           {EventKind::hazard, "hazard"}};
    return t;
}

template <typename E>
std::string name_of(const Table<E>& t, E v) {
    for (const auto& [e, n] : t)
        if (e == v) return n;
    return "?";
}
template <typename E>
std::optional<E> lookup(const Table<E>& t, const std::string& text) {
    for (const auto& [e, n] : t)
        if (text == n) return e;
    return std::nullopt;
}
template <typename E>
std::string list_of(const Table<E>& t) {
    std::string out;
    for (const auto& [e, n] : t) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

}  // namespace

std::string to_string(DType v) { return name_of(dtype_table(), v); }
std::string to_string(Swizzle v) { return name_of(swizzle_table(), v); }
std::string to_string(OobFill v) { return name_of(oob_table(), v); }
std::string to_string(Outcome v) { return name_of(outcome_table(), v); }
std::string to_string(OpKind v) { return name_of(op_table(), v); }
std::string to_string(EventKind v) { return name_of(event_table(), v); }
std::string to_string(ReduceOp v) { return name_of(reduce_table(), v); }
std::optional<ReduceOp> parse_reduce_op(const std::string& s) { return lookup(reduce_table(), s); }
std::string allowed_reduce_ops() { return list_of(reduce_table()); }

bool reduce_supported(ReduceOp op, DType t) {
    switch (t) {
    case DType::f32: return op == ReduceOp::add;                            // .add.f32
    case DType::f16:
    case DType::bf16: return op == ReduceOp::add || op == ReduceOp::min || op == ReduceOp::max;  // .noftz add, min, max
    case DType::i32: return op == ReduceOp::add || op == ReduceOp::min || op == ReduceOp::max ||
                            op == ReduceOp::and_ || op == ReduceOp::or_ || op == ReduceOp::xor_;  // .s32 / .b32
    case DType::u8: return false;
    }
    return false;
}

std::optional<DType> parse_dtype(const std::string& s) { return lookup(dtype_table(), s); }
std::optional<Swizzle> parse_swizzle(const std::string& s) { return lookup(swizzle_table(), s); }
std::optional<OobFill> parse_oob_fill(const std::string& s) { return lookup(oob_table(), s); }
std::optional<Outcome> parse_outcome(const std::string& s) { return lookup(outcome_table(), s); }
std::optional<OpKind> parse_op_kind(const std::string& s) { return lookup(op_table(), s); }
std::optional<EventKind> parse_event_kind(const std::string& s) { return lookup(event_table(), s); }

std::string to_string(MapLocation v) { return name_of(map_location_table(), v); }
std::string to_string(MapField v) { return name_of(map_field_table(), v); }
std::string to_string(Space v) { return name_of(space_table(), v); }
std::string to_string(Scope v) { return name_of(scope_table(), v); }
std::string to_string(ProxySpace v) { return name_of(proxy_space_table(), v); }
std::string to_string(Interleave v) { return name_of(interleave_table(), v); }
std::optional<MapLocation> parse_map_location(const std::string& s) { return lookup(map_location_table(), s); }
std::optional<MapField> parse_map_field(const std::string& s) { return lookup(map_field_table(), s); }
std::optional<Space> parse_space(const std::string& s) { return lookup(space_table(), s); }
std::optional<Scope> parse_scope(const std::string& s) { return lookup(scope_table(), s); }
std::optional<ProxySpace> parse_proxy_space(const std::string& s) { return lookup(proxy_space_table(), s); }
std::optional<Interleave> parse_interleave(const std::string& s) { return lookup(interleave_table(), s); }
std::string allowed_map_locations() { return list_of(map_location_table()); }
std::string allowed_map_fields() { return list_of(map_field_table()); }
std::string allowed_spaces() { return list_of(space_table()); }
std::string allowed_scopes() { return list_of(scope_table()); }
std::string allowed_proxy_spaces() { return list_of(proxy_space_table()); }
std::string allowed_interleaves() { return list_of(interleave_table()); }
int interleave_bytes(Interleave v) { return v == Interleave::b16 ? 16 : v == Interleave::b32 ? 32 : 0; }

std::string allowed_dtypes() { return list_of(dtype_table()); }
std::string allowed_swizzles() { return list_of(swizzle_table()); }
std::string allowed_oob_fills() { return list_of(oob_table()); }
std::string allowed_outcomes() { return list_of(outcome_table()); }
std::string allowed_op_kinds() {
    // Kernel-only rows name PTX instructions; a program cannot use them.
    static const Table<OpKind> program_ops = [] {
        Table<OpKind> rows;
        for (const OpInfo& row : kOpTable)
            if (!(row.flags & kKernelOnly)) rows.emplace_back(row.kind, row.spelling);
        return rows;
    }();
    return list_of(program_ops);
}

std::vector<std::string> program_op_names() {
    std::vector<std::string> names;
    for (const OpInfo& row : kOpTable)
        if (!(row.flags & kKernelOnly)) names.push_back(row.spelling);
    return names;
}

int dtype_size(DType t) {
    switch (t) {
    case DType::f32: case DType::i32: return 4;
    case DType::f16: case DType::bf16: return 2;
    case DType::u8: return 1;
    }
    return 0;
}
bool dtype_is_float(DType t) { return t == DType::f32 || t == DType::f16 || t == DType::bf16; }
int swizzle_bytes(Swizzle s) {
    switch (s) {
    case Swizzle::none: return 0;
    case Swizzle::b32: return 32;
    case Swizzle::b64: return 64;
    case Swizzle::b128: return 128;
    }
    return 0;
}

}  // namespace tmasim
