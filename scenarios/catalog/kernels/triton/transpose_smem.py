"""Triton kernel: a tiled transpose whose layout conversion goes through shared memory.

x is f32 [64, 128], y = x^T is f32 [128, 64]. Each of the 8 programs (4 warps) loads a 32 x 32
tile of x with plain pointer loads, coalesced along x's rows, and stores tl.trans(tile) to y.
The loaded registers run along x's columns but the store wants them along y's columns (x's
rows), so Triton puts a convert_layout between the two: each thread writes its registers to a
shared scratch tile, the CTA synchronizes, and each thread reads back the elements the
coalesced store needs.

Written for tmasim (issue 35) from the seeds' description of register layouts and
convert_layout in Triton/Gluon; compiled to PTX by compile_ptx.py on the GPU host (sm_90a).
"""
import triton
import triton.language as tl

M, N = 64, 128
BLOCK_M, BLOCK_N = 32, 32
NUM_WARPS = 4


@triton.jit
def triton_transpose_smem(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    # y[c, r] = x[r, c]: consecutive r are consecutive addresses of y.
    tl.store(y_ptr + cols[:, None] * M + rows[None, :], tl.trans(tile))


def launch(ctx):
    torch = ctx.torch
    x = ctx.tensor("x", "f32", (M, N), seed=3504, lo=-100.0, hi=100.0)
    y = ctx.tensor("y", "f32", (N, M), fill=0.0)
    grid = (M // BLOCK_M, N // BLOCK_N)
    compiled = triton_transpose_smem[grid](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
    torch.cuda.synchronize()
    return {
        "compiled": compiled,
        "grid": grid,
        "args": [ctx.ptr("x_ptr", "x"), ctx.ptr("y_ptr", "y"), ctx.scalar("M", "i32", M),
                 ctx.scalar("N", "i32", N), ctx.const("BLOCK_M", BLOCK_M), ctx.const("BLOCK_N", BLOCK_N)],
        "outputs": ["y"],
        "reference": {"y": x.T.contiguous()},
    }
