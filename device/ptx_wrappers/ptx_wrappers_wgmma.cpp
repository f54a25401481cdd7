// PTX wrappers for wgmma (PTX 9.7.15): wgmma.fence, commit_group, wait_group and
// mma_async.m64nNk16 with f32 accumulators and f16/bf16 operands from shared memory.
// Same conventions as ptx_wrappers.cpp, which appends the fixed part to its own.
//
// wgmma exists only on sm_90a: PTX for sm_100a must not contain it (ptxas rejects it).
// NVRTC defines __CUDA_ARCH_FEAT_SM90_ALL exactly when compiling for sm_90a, so one kernel
// source compiles for both targets; elsewhere the wrappers trap.
//
// An mma_async takes N/2 f32 accumulator registers, and N is part of the opcode, so each
// (N, type) pair is its own instruction and its own wrapper. The 64 of them would be large
// (N = 256 takes 128 operands), so a kernel gets only those it uses (KernelWriter).
#include <fmt/format.h>

#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

constexpr std::string_view kSource = R"ptx(
// ---- wgmma (sm_90a): warpgroup MMA from shared memory ---------------------------------

// PTX: wgmma.fence.sync.aligned;  sm_90a
// Orders the warpgroup's earlier register accesses before later mma_async reads of them.
__device__ __forceinline__ void wgmma_fence_sync_aligned() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#else
    __trap();
#endif
}

// PTX: wgmma.commit_group.sync.aligned;  sm_90a
__device__ __forceinline__ void wgmma_commit_group_sync_aligned() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#else
    __trap();
#endif
}

// PTX: wgmma.wait_group.sync.aligned N;  sm_90a (N must be an immediate, hence the template)
template <int N>
__device__ __forceinline__ void wgmma_wait_group_sync_aligned() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
#else
    __trap();
#endif
}

// Not an instruction: an empty asm that claims to read and write one accumulator register.
// The compiler sees an mma_async's outputs as defined when the asm statement ends, and
// could read them (acc_store) or rewrite them (acc_fill) anywhere after; pinning each
// register at the wgmma.fence, around each mma and after each wait_group keeps its uses
// where the scenario put them (CUTLASS does the same: warpgroup_fence_operand).
__device__ __forceinline__ void wgmma_pin_register(float& r) {
    asm volatile("" : "+f"(r) :: "memory");
}

// The 64-bit shared-memory matrix descriptor (PTX 9.7.15.5.1.2.2, "Matrix Descriptor
// Format"): bits 0-13 start address, 16-29 leading dimension byte offset, 32-45 stride
// dimension byte offset, each encoded as (x & 0x3FFFF) >> 4; bits 49-51 base offset, 0
// because every operand buffer starts on its swizzle pattern's repeat; bits 62-63 the
// layout: 0 none, 1 128B, 2 64B, 3 32B swizzle.
__device__ __forceinline__ unsigned long long make_wgmma_descriptor(unsigned smem_addr, unsigned lbo_bytes,
                                                                    unsigned sbo_bytes, unsigned layout) {
    return (unsigned long long)((smem_addr & 0x3FFFFu) >> 4) |
           ((unsigned long long)((lbo_bytes & 0x3FFFFu) >> 4) << 16) |
           ((unsigned long long)((sbo_bytes & 0x3FFFFu) >> 4) << 32) |
           ((unsigned long long)(layout & 3u) << 62);
}
)ptx";

const char* type_word(DType type) { return type == DType::bf16 ? "bf16" : "f16"; }

std::string instruction(int n, DType type) {
    return fmt::format("wgmma.mma_async.sync.aligned.m64n{}k16.f32.{}.{}", n, type_word(type), type_word(type));
}

}  // namespace

std::string_view ptx_wgmma_wrappers_source() { return kSource; }

std::vector<std::string> ptx_wgmma_wrapper_names() {
    return {"wgmma_fence_sync_aligned", "wgmma_commit_group_sync_aligned", "wgmma_wait_group_sync_aligned"};
}

std::string wgmma_mma_wrapper_name(int n, DType type) {
    return fmt::format("wgmma_mma_async_sync_aligned_m64n{}k16_f32_{}_{}", n, type_word(type), type_word(type));
}

std::string wgmma_mma_wrapper_source(int n, DType type) {
    if (n < 8 || n > 256 || n % 8 != 0 || (type != DType::f16 && type != DType::bf16))
        throw std::invalid_argument(fmt::format("wgmma m64n{}k16 with {} operands has no PTX form", n, to_string(type)));
    const int regs = n / 2;
    std::string placeholders, outputs;
    for (int i = 0; i < regs; ++i) {
        placeholders += fmt::format("{}%{}", i ? ", " : "", i);
        outputs += fmt::format("{}\"+f\"(d[{}])", i ? (i % 8 == 0 ? ",\n                   " : ", ") : "", i);
    }
    // Operands after the accumulators: %regs desc-a, %regs+1 desc-b, %regs+2 scale-d (a
    // predicate, set from the int); imm-scale-a/b = 1 (no negation), imm-trans-a/b = 0
    // (both K-major).
    return fmt::format(
        "// PTX: {0} d, a-desc, b-desc, scale-d, 1, 1, 0, 0;  sm_90a\n"
        "// D (64 x {1}, f32, {2} registers per thread) = A x B^T + (scale_d ? D : 0); A and B K-major.\n"
        "__device__ __forceinline__ void {3}(\n"
        "    float (&d)[{2}], unsigned long long desc_a, unsigned long long desc_b, int scale_d) {{\n"
        "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
        "    asm volatile(\"{{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %{6}, 0;\\n\\t\"\n"
        "                 \"{0} {{{4}}}, %{7}, %{8}, p, 1, 1, 0, 0;\\n\\t}}\"\n"
        "                 : {5}\n"
        "                 : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d) : \"memory\");\n"
        "#else\n"
        "    (void)d; (void)desc_a; (void)desc_b; (void)scale_d;\n"
        "    __trap();\n"
        "#endif\n"
        "}}\n\n",
        instruction(n, type), n, regs, wgmma_mma_wrapper_name(n, type), placeholders, outputs, regs + 2, regs,
        regs + 1);
}

}  // namespace tmasim::device
