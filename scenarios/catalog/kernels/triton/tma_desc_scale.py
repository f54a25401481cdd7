"""Triton kernel: a 2-D TMA tile copy through tensor descriptors built on the device.

Each program makes two descriptors in the kernel (tl.make_tensor_descriptor: the 64 x 64 f32
source x and destination y, 32 x 32 boxes), loads its box of x with TMA, computes
x * alpha + 1 in registers and stores the box to y with TMA. Triton writes each descriptor
into the global scratch area the launcher allocates (triton.set_allocator), so the PTX takes a
global scratch pointer after the kernel's own arguments and builds the CUtensorMap with
tensormap.replace, tensormap.cp_fenceproxy and fence.proxy.tensormap.

Written for tmasim (issue 35) from the seeds' description of tensor descriptors and TMA in
Triton and Gluon; compiled to PTX by compile_ptx.py on the GPU host (sm_90a).
"""
import triton
import triton.language as tl

M, N = 64, 64
BLOCK_M, BLOCK_N = 32, 32
ALPHA = 0.5
NUM_WARPS = 4


@triton.jit
def triton_tma_desc_scale(x_ptr, y_ptr, M, N, alpha, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    row0 = tl.program_id(0) * BLOCK_M
    col0 = tl.program_id(1) * BLOCK_N
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    dst = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    box = src.load([row0, col0])
    dst.store([row0, col0], box * alpha + 1.0)


def launch(ctx):
    """Builds the inputs (tmasim's random init), launches, returns what compile_ptx.py records."""
    torch = ctx.torch
    x = ctx.tensor("x", "f32", (M, N), seed=3501, lo=-4.0, hi=4.0)
    y = ctx.tensor("y", "f32", (M, N), fill=0.0)
    grid = (M // BLOCK_M, N // BLOCK_N)
    compiled = triton_tma_desc_scale[grid](x, y, M, N, ALPHA, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                           num_warps=NUM_WARPS)
    torch.cuda.synchronize()
    return {
        "compiled": compiled,
        "grid": grid,
        "args": [ctx.ptr("x_ptr", "x"), ctx.ptr("y_ptr", "y"), ctx.scalar("M", "i32", M),
                 ctx.scalar("N", "i32", N), ctx.scalar("alpha", "f32", ALPHA),
                 ctx.const("BLOCK_M", BLOCK_M), ctx.const("BLOCK_N", BLOCK_N)],
        "outputs": ["y"],
        "reference": {"y": x * ALPHA + 1.0},
    }
