"""Triton kernel: a pipelined TMA + wgmma matmul, C = A * B^T.

A [128, 256] and B [128, 256] are f16 and K-major (B is stored as N x K, like the catalog's
gemm_ws_tma_wgmma), C [128, 128] is f32. The three tensor descriptors are made on the host
(triton.tools.tensor_descriptor.TensorDescriptor), so each reaches the kernel as a 128-byte
CUtensorMap param followed by its shape and strides. Each of the 2 programs (4 warps, one
warpgroup) owns a 128 x 64 tile of C and walks K in 64-wide steps; tl.range(num_stages=3) makes
Triton's software pipeliner keep three stages of A and B boxes in flight in shared memory, with
one mbarrier per stage, and tl.dot on the shared-memory operands becomes
wgmma.mma_async m64n64k16 f32.f16.f16. The tile goes out with a TMA store.

Written for tmasim (issue 35) from the seeds' description of Triton/Gluon TMA pipelines;
compiled to PTX by compile_ptx.py on the GPU host (sm_90a).
"""
import triton
import triton.language as tl

M, N, K = 128, 128, 256
BLOCK_M, BLOCK_N, BLOCK_K = 128, 64, 64
NUM_STAGES = 3
NUM_WARPS = 4


@triton.jit
def triton_tma_wgmma_matmul(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr, NUM_STAGES: tl.constexpr):
    row0 = tl.program_id(0) * BLOCK_M
    col0 = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K, num_stages=NUM_STAGES):
        a_box = a_desc.load([row0, k0])
        b_box = b_desc.load([col0, k0])
        acc = tl.dot(a_box, b_box.T, acc)
    c_desc.store([row0, col0], acc)


def launch(ctx):
    from triton.tools.tensor_descriptor import TensorDescriptor
    torch = ctx.torch
    a = ctx.tensor("A", "f16", (M, K), seed=3502, lo=0.0, hi=1.0)
    b = ctx.tensor("B", "f16", (N, K), seed=3503, lo=0.0, hi=1.0)
    c = ctx.tensor("C", "f32", (M, N), fill=0.0)
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
    grid = (M // BLOCK_M, N // BLOCK_N)
    compiled = triton_tma_wgmma_matmul[grid](a_desc, b_desc, c_desc, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                             BLOCK_K=BLOCK_K, NUM_STAGES=NUM_STAGES, num_warps=NUM_WARPS,
                                             num_stages=NUM_STAGES)
    torch.cuda.synchronize()
    return {
        "compiled": compiled,
        "grid": grid,
        "args": [ctx.desc("a_desc", "A", [BLOCK_M, BLOCK_K]), ctx.desc("b_desc", "B", [BLOCK_N, BLOCK_K]),
                 ctx.desc("c_desc", "C", [BLOCK_M, BLOCK_N]), ctx.scalar("K", "i32", K),
                 ctx.const("BLOCK_M", BLOCK_M), ctx.const("BLOCK_N", BLOCK_N), ctx.const("BLOCK_K", BLOCK_K),
                 ctx.const("NUM_STAGES", NUM_STAGES)],
        "outputs": ["C"],
        "reference": {"C": a.float() @ b.float().T},
    }
