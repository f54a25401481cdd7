#pragma once
// Enumerations of the scenario language. Each is parsed from, and printed with, one
// string table (enums.cpp; the ops' in op_table.h), so YAML, traces and messages agree on
// the spelling.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/op_table.h"

namespace tmasim {

enum class DType { f32, f16, bf16, u8, i32 };
enum class Swizzle { none, b32, b64, b128 };  // "none", "32B", "64B", "128B"
enum class OobFill { zero, nan };
enum class Outcome { ok, hazard, hang, fault };

// Where a map lives: a `const __grid_constant__` kernel parameter, or a 128-byte object in
// global memory that the host copies in before launch (and ops may modify).
enum class MapLocation { param, global };
// The fields of a tiled tensor map that tensormap.replace changes (PTX 9.7.9.28).
enum class MapField { global_address, global_dim, global_stride, box_dim, element_stride };
// The state space an op works on: shared::cta, or global.
enum class Space { shared, global };
// Memory-model scopes of fences.
enum class Scope { cta, cluster, gpu, sys };
// fence.proxy.async's state space: .shared::cta, .shared::cluster, .global, or none (all).
enum class ProxySpace { cta, cluster, global, all };
// Tensor-map interleave (CU_TENSOR_MAP_INTERLEAVE_*).
enum class Interleave { none, b16, b32 };

// The element operation of a bulk/tensor reduction.
enum class ReduceOp { add, min, max, inc, dec, and_, or_, xor_ };

std::string to_string(DType v);
std::string to_string(Swizzle v);
std::string to_string(OobFill v);
std::string to_string(Outcome v);
std::string to_string(OpKind v);  // the YAML spelling: "mbarrier.arrive_expect_tx"
std::string to_string(ReduceOp v);  // "add", "and", ...

// nullopt when `text` is not a known spelling; allowed_*() list them for messages.
std::optional<DType> parse_dtype(const std::string& text);
std::optional<Swizzle> parse_swizzle(const std::string& text);
std::optional<OobFill> parse_oob_fill(const std::string& text);
std::optional<Outcome> parse_outcome(const std::string& text);
std::optional<OpKind> parse_op_kind(const std::string& text);
std::optional<ReduceOp> parse_reduce_op(const std::string& text);
std::string allowed_reduce_ops();
// Whether PTX's cp.reduce.async.bulk(.tensor) with a global destination supports `op` on
// elements of `t` (semantics.md D24; PTX 9.7.9.25.4.2, 9.7.9.27.1.3).
bool reduce_supported(ReduceOp op, DType t);
std::string allowed_dtypes();
std::string allowed_swizzles();
std::string allowed_oob_fills();
std::string allowed_outcomes();
std::string allowed_op_kinds();
std::vector<std::string> program_op_names();  // the same ops, one name each

std::string to_string(MapLocation v);  // "param", "global"
std::string to_string(MapField v);     // "global_address", ...
std::string to_string(Space v);        // "shared", "global"
std::string to_string(Scope v);        // "cta", "cluster", "gpu", "sys"
std::string to_string(ProxySpace v);   // "cta", "cluster", "global", "all"
std::string to_string(Interleave v);   // "none", "16B", "32B"
std::optional<MapLocation> parse_map_location(const std::string& text);
std::optional<MapField> parse_map_field(const std::string& text);
std::optional<Space> parse_space(const std::string& text);
std::optional<Scope> parse_scope(const std::string& text);
std::optional<ProxySpace> parse_proxy_space(const std::string& text);
std::optional<Interleave> parse_interleave(const std::string& text);
std::string allowed_map_locations();
std::string allowed_map_fields();
std::string allowed_spaces();
std::string allowed_scopes();
std::string allowed_proxy_spaces();
std::string allowed_interleaves();
int interleave_bytes(Interleave v);  // 0, 16, 32

int dtype_size(DType t);
bool dtype_is_float(DType t);
int swizzle_bytes(Swizzle s);  // 0, 32, 64, 128

}  // namespace tmasim
