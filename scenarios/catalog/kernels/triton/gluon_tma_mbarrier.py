"""Gluon kernel: a TMA load completed on an mbarrier, a register pass, a TMA store.

x and y are f32 [64, 64]; each of the 4 programs (4 warps) owns one 32 x 32 box. It allocates
a shared box in the descriptor's NVMMA (128-byte swizzled) layout and one mbarrier, inits the
barrier with count 1, announces the box's 4096 bytes (mbarrier.expect), issues the TMA load
completing on the barrier and waits for phase 0. Every thread then reads its part of the box
into a blocked register layout, computes 2 * x - 3, writes it to a second shared box, fences
the generic writes into the async proxy (fence_async_shared) and the box is TMA-stored to y;
store_wait(0) waits for the store. Both descriptors are made on the host
(gluon.nvidia.hopper.TensorDescriptor): 128-byte CUtensorMap params.

Written for tmasim (issue 35) from seed 000's Gluon TMA/mbarrier calls (async copy, expect,
wait, invalidate, fence_async_shared, store_wait) and seed 001's blocked layouts; compiled to
PTX by compile_ptx.py on the GPU host (sm_90a).
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

# Gluon renamed the TMA copies in some releases; use whichever this Triton has.
if not hasattr(tma, "async_copy_global_to_shared"):
    tma.async_copy_global_to_shared = tma.async_load
if not hasattr(tma, "async_copy_shared_to_global"):
    tma.async_copy_shared_to_global = tma.async_store

M, N = 64, 64
BLOCK_M, BLOCK_N = 32, 32
NUM_WARPS = 4


@gluon.jit
def gluon_tma_mbarrier(in_desc, out_desc, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, WARPS: gl.constexpr):
    row0 = gl.program_id(0) * BLOCK_M
    col0 = gl.program_id(1) * BLOCK_N
    box = gl.allocate_shared_memory(in_desc.dtype, [BLOCK_M, BLOCK_N], in_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.expect(ready, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [row0, col0], ready, box)
    mbarrier.wait(ready, phase=0)
    mbarrier.invalidate(ready)

    regs: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [WARPS, 1], [1, 0])
    vals = box.load(regs)
    result = gl.allocate_shared_memory(out_desc.dtype, [BLOCK_M, BLOCK_N], out_desc.layout)
    result.store(vals * 2.0 - 3.0)
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [row0, col0], result)
    tma.store_wait(0)


def launch(ctx):
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    torch = ctx.torch
    x = ctx.tensor("x", "f32", (M, N), seed=3505, lo=-8.0, hi=8.0)
    y = ctx.tensor("y", "f32", (M, N), fill=0.0)
    layout = gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_N], gl.float32)
    in_desc = TensorDescriptor.from_tensor(x, [BLOCK_M, BLOCK_N], layout)
    out_desc = TensorDescriptor.from_tensor(y, [BLOCK_M, BLOCK_N], layout)
    grid = (M // BLOCK_M, N // BLOCK_N)
    compiled = gluon_tma_mbarrier[grid](in_desc, out_desc, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, WARPS=NUM_WARPS,
                                        num_warps=NUM_WARPS)
    torch.cuda.synchronize()
    return {
        "compiled": compiled,
        "grid": grid,
        "args": [ctx.desc("in_desc", "x", [BLOCK_M, BLOCK_N], layout=str(layout)),
                 ctx.desc("out_desc", "y", [BLOCK_M, BLOCK_N], layout=str(layout)),
                 ctx.const("BLOCK_M", BLOCK_M), ctx.const("BLOCK_N", BLOCK_N), ctx.const("WARPS", NUM_WARPS)],
        "outputs": ["y"],
        "reference": {"y": x * 2.0 - 3.0},
    }
