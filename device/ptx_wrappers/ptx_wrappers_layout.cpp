// PTX wrappers for the layout ops (layout.global_load/store, layout.reduce): plain (not volatile) global
// loads and stores of one vector of a thread's registers, the instructions a Gluon kernel's
// gl.load/gl.store compile to (LDG.E{,.64,.128}, STG.E{,.64,.128}). Each value is its own
// register, unlike st_global's replicated word. Same conventions as ptx_wrappers.cpp,
// which appends this text to its own. Shared accesses reuse the volatile shared wrappers
// of ptx_wrappers_thread_ops.cpp.
#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

constexpr std::string_view kLayoutSource = R"ptx(
// ---- global loads and stores of register vectors, for the layout ops --------------------

// PTX: ld.global.b8 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_global_b8(const void* addr) {
    unsigned v;
    asm volatile("ld.global.b8 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.global.b16 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_global_b16(const void* addr) {
    unsigned v;
    asm volatile("ld.global.b16 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.global.b32 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_global_b32(const void* addr) {
    unsigned v;
    asm volatile("ld.global.b32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.global.v2.b32 {d0, d1}, [addr];  sm_20 (8-byte aligned)
__device__ __forceinline__ void ld_global_v2_b32(const void* addr, unsigned& d0, unsigned& d1) {
    asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(d0), "=r"(d1) : "l"(addr) : "memory");
}

// PTX: ld.global.v4.b32 {d0, d1, d2, d3}, [addr];  sm_20 (16-byte aligned)
__device__ __forceinline__ void ld_global_v4_b32(const void* addr, unsigned& d0, unsigned& d1,
                                                 unsigned& d2, unsigned& d3) {
    asm volatile("ld.global.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "l"(addr) : "memory");
}

// PTX: st.global.b8 [addr], v;  sm_20 (the low 8 bits of v)
__device__ __forceinline__ void st_global_b8(void* addr, unsigned v) {
    asm volatile("st.global.b8 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
}

// PTX: st.global.b16 [addr], v;  sm_20 (the low 16 bits of v)
__device__ __forceinline__ void st_global_b16(void* addr, unsigned v) {
    asm volatile("st.global.b16 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
}

// PTX: st.global.b32 [addr], v;  sm_20
__device__ __forceinline__ void st_global_b32(void* addr, unsigned v) {
    asm volatile("st.global.b32 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
}

// PTX: st.global.v2.b32 [addr], {v0, v1};  sm_20 (8-byte aligned)
__device__ __forceinline__ void st_global_v2_b32(void* addr, unsigned v0, unsigned v1) {
    asm volatile("st.global.v2.b32 [%0], {%1, %2};" :: "l"(addr), "r"(v0), "r"(v1) : "memory");
}

// PTX: st.global.v4.b32 [addr], {v0, v1, v2, v3};  sm_20 (16-byte aligned)
__device__ __forceinline__ void st_global_v4_b32(void* addr, unsigned v0, unsigned v1, unsigned v2,
                                                 unsigned v3) {
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "l"(addr), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
}

// ---- warp shuffles, for layout.reduce's rounds across lanes -------------------------------

// PTX: shfl.sync.bfly.b32 d, a, b, c, membermask;  sm_30 (every lane of the warp; c = 0x1f)
__device__ __forceinline__ float shfl_sync_bfly_b32(float a, unsigned lane_mask) {
    float d;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(d) : "f"(a), "r"(lane_mask) : "memory");
    return d;
}

)ptx";

}  // namespace

std::string_view ptx_layout_wrappers_source() { return kLayoutSource; }

std::vector<std::string> ptx_layout_wrapper_names() {
    return {"ld_global_b8",  "ld_global_b16",  "ld_global_b32",    "ld_global_v2_b32", "ld_global_v4_b32",
            "st_global_b8",  "st_global_b16",  "st_global_b32",    "st_global_v2_b32", "st_global_v4_b32",
            "shfl_sync_bfly_b32"};
}

}  // namespace tmasim::device
