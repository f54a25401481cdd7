// PTX wrappers for tensor maps that live in global memory and change on the device:
// tensormap.replace (one wrapper per field and state space), tensormap.cp_fenceproxy and
// the tensormap-proxy fences (one per scope). Same conventions as ptx_wrappers.cpp, which
// appends this text to its own.
//
// Field, state space and scope are opcode qualifiers and an asm string must be a literal,
// so each combination is its own wrapper, written from one pattern per instruction; codegen
// names them with the same functions. The `ord` operand (which dimension) is an immediate,
// hence a template parameter.
#include <fmt/format.h>

#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

constexpr MapField kFields[] = {MapField::global_address, MapField::global_dim, MapField::global_stride,
                                MapField::box_dim, MapField::element_stride};
constexpr Space kSpaces[] = {Space::shared, Space::global};
constexpr Scope kScopes[] = {Scope::cta, Scope::cluster, Scope::gpu, Scope::sys};
// The acquire orders a map another thread (or the host) wrote; .cta is refused by the
// validator and not generated.
constexpr Scope kAcquireScopes[] = {Scope::cluster, Scope::gpu, Scope::sys};

bool takes_ord(MapField f) { return f != MapField::global_address; }
// PTX 9.7.9.28: new_val is .b64 for global_address and global_stride, .b32 otherwise.
bool is_b64(MapField f) { return f == MapField::global_address || f == MapField::global_stride; }
const char* space_qualifier(Space s) { return s == Space::shared ? "shared::cta" : "global"; }

std::string replace_instruction(MapField f, Space s) {
    return fmt::format("tensormap.replace.tile.{}.{}.b1024.{}", to_string(f), space_qualifier(s),
                       is_b64(f) ? "b64" : "b32");
}

std::string cp_fenceproxy_instruction(Scope scope) {
    return fmt::format("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{}.sync.aligned",
                       to_string(scope));
}

std::string fence_instruction(bool release, Scope scope) {
    return fmt::format("fence.proxy.tensormap::generic.{}.{}", release ? "release" : "acquire", to_string(scope));
}


std::string replace_wrapper(MapField f, Space s) {
    const std::string ins = replace_instruction(f, s);
    const bool shared = s == Space::shared;
    const char* addr_type = shared ? "unsigned" : "void*";
    const char* addr_constraint = shared ? "r" : "l";
    const char* value_type = is_b64(f) ? "unsigned long long" : "unsigned";
    const char* value_constraint = is_b64(f) ? "l" : "r";
    if (!takes_ord(f))
        return fmt::format(
            "// PTX: {0} [addr], new_val;  sm_90a\n"
            "__device__ __forceinline__ void {1}({2} addr, {3} new_val) {{\n"
            "    asm volatile(\"{0} [%0], %1;\" :: \"{4}\"(addr), \"{5}\"(new_val) : \"memory\");\n"
            "}}\n\n",
            ins, wrapper_name_of(ins), addr_type, value_type, addr_constraint, value_constraint);
    return fmt::format(
        "// PTX: {0} [addr], ord, new_val;  sm_90a (ord: the dimension, 0 = innermost)\n"
        "template <int N>\n"
        "__device__ __forceinline__ void {1}({2} addr, {3} new_val) {{\n"
        "    asm volatile(\"{0} [%0], %1, %2;\" :: \"{4}\"(addr), \"n\"(N), \"{5}\"(new_val) : \"memory\");\n"
        "}}\n\n",
        ins, wrapper_name_of(ins), addr_type, value_type, addr_constraint, value_constraint);
}

std::string cp_fenceproxy_wrapper(Scope scope) {
    const std::string ins = cp_fenceproxy_instruction(scope);
    return fmt::format(
        "// PTX: {0} [dst], [src], 128;  sm_90 (a whole warp: copies the map from shared memory, then releases it)\n"
        "__device__ __forceinline__ void {1}(void* dst, unsigned src) {{\n"
        "    asm volatile(\"{0} [%0], [%1], 128;\" :: \"l\"(dst), \"r\"(src) : \"memory\");\n"
        "}}\n\n",
        ins, wrapper_name_of(ins));
}

std::string fence_wrapper(bool release, Scope scope) {
    const std::string ins = fence_instruction(release, scope);
    if (release)
        return fmt::format(
            "// PTX: {0};  sm_90\n"
            "__device__ __forceinline__ void {1}() {{\n"
            "    asm volatile(\"{0};\" ::: \"memory\");\n"
            "}}\n\n",
            ins, wrapper_name_of(ins));
    return fmt::format(
        "// PTX: {0} [addr], 128;  sm_90 (addr: the map's generic address in global memory)\n"
        "__device__ __forceinline__ void {1}(const void* addr) {{\n"
        "    asm volatile(\"{0} [%0], 128;\" :: \"l\"(addr) : \"memory\");\n"
        "}}\n\n",
        ins, wrapper_name_of(ins));
}

}  // namespace

std::string tensormap_replace_wrapper_name(MapField field, Space space) {
    return wrapper_name_of(replace_instruction(field, space));
}

std::string tensormap_cp_fenceproxy_wrapper_name(Scope scope) {
    return wrapper_name_of(cp_fenceproxy_instruction(scope));
}

std::string fence_proxy_tensormap_wrapper_name(bool release, Scope scope) {
    return wrapper_name_of(fence_instruction(release, scope));
}

std::vector<std::string> ptx_tensormap_wrapper_names() {
    std::vector<std::string> names;
    for (MapField f : kFields)
        for (Space s : kSpaces) names.push_back(tensormap_replace_wrapper_name(f, s));
    for (Scope scope : kScopes) names.push_back(tensormap_cp_fenceproxy_wrapper_name(scope));
    for (Scope scope : kScopes) names.push_back(fence_proxy_tensormap_wrapper_name(true, scope));
    for (Scope scope : kAcquireScopes) names.push_back(fence_proxy_tensormap_wrapper_name(false, scope));
    return names;
}

std::string_view ptx_tensormap_wrappers_source() {
    static const std::string source = [] {
        std::string s = "\n// ---- tensor maps in global memory: replace a field, publish, fence ----\n\n";
        for (MapField f : kFields)
            for (Space sp : kSpaces) s += replace_wrapper(f, sp);
        for (Scope scope : kScopes) s += cp_fenceproxy_wrapper(scope);
        for (Scope scope : kScopes) s += fence_wrapper(true, scope);
        for (Scope scope : kAcquireScopes) s += fence_wrapper(false, scope);
        return s;
    }();
    return source;
}

}  // namespace tmasim::device
