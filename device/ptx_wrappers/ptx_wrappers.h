#pragma once
// The PTX instruction wrappers every generated kernel starts with: one
// `__device__ __forceinline__` function per PTX instruction, named after it, each with its
// exact PTX form and minimum SM in a comment. Kept as text (not a .cuh read at run time)
// so the library is self-contained and NVRTC needs no include path.
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/enums.h"

namespace tmasim::device {

// CUDA C++ source (NVRTC, -default-device) defining the wrappers.
std::string_view ptx_wrappers_source();

// The wrapper name of a PTX instruction: "." and "::" become "_"
// ("cp.reduce.async.bulk.global.shared::cta" -> "cp_reduce_async_bulk_global_shared_cta").
std::string wrapper_name_of(const std::string& instruction);

// The part for per-thread ops, cp.async and L2 prefetches (ptx_wrappers_thread_ops.cpp);
// ptx_wrappers_source() already includes it.
std::string_view ptx_thread_op_wrappers_source();
std::vector<std::string> ptx_thread_op_wrapper_names();

// The part for the layout ops' global vectors (ptx_wrappers_layout.cpp); ptx_wrappers_source()
// already includes it.
std::string_view ptx_layout_wrappers_source();
std::vector<std::string> ptx_layout_wrapper_names();

// The part for cp.reduce.async.bulk(.tensor) and the sm_100a tile::gather4/scatter4
// (ptx_wrappers_reduce.cpp); ptx_wrappers_source() already includes it. The reduction
// wrappers are written for every (op, type) that reduce_supported() accepts.
std::string_view ptx_reduce_and_gather_wrappers_source();
std::vector<std::string> ptx_reduce_and_gather_wrapper_names();

// The wrapper of cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>.<type> for elements
// of `type` ("..._bulk_group_add_noftz_f16"), and of the rank-`rank` tensor form
// ("cp_reduce_async_bulk_tensor_2d_global_shared_cta_add_tile_bulk_group"). Defined only
// where reduce_supported() holds (for the tensor form: for some element type).
std::string bulk_reduce_wrapper_name(ReduceOp op, DType type);
std::string tensor_reduce_wrapper_name(int rank, ReduceOp op);

// The part for clusters (ptx_wrappers_cluster.cpp): %cluster_ctarank, mapa and DSMEM
// accesses, remote mbarrier ops, barrier.cluster, st.async, multicast loads and
// fence.proxy.async by state space. ptx_wrappers_source() already includes it.
std::string_view ptx_cluster_wrappers_source();
std::vector<std::string> ptx_cluster_wrapper_names();
// "cp_async_bulk_tensor_<rank>d_shared_cluster_global_tile_mbarrier_multicast_cluster"
std::string multicast_tensor_wrapper_name(int rank);

// The part for tensor maps in global memory (ptx_wrappers_tensormap.cpp): tensormap.replace
// per field and space, tensormap.cp_fenceproxy and fence.proxy.tensormap::generic per scope
// (the acquire for cluster, gpu and sys). ptx_wrappers_source() already includes it.
std::string_view ptx_tensormap_wrappers_source();
std::vector<std::string> ptx_tensormap_wrapper_names();
std::string tensormap_replace_wrapper_name(MapField field, Space space);
std::string tensormap_cp_fenceproxy_wrapper_name(Scope scope);
std::string fence_proxy_tensormap_wrapper_name(bool release, Scope scope);

// The part for wgmma (ptx_wrappers_wgmma.cpp, sm_90a): wgmma.fence, commit_group and
// wait_group, a register pin and the shared-memory matrix descriptor; ptx_wrappers_source()
// already includes it. The mma_async wrappers, one per N and operand type, go into the
// kernels that use them (wgmma_mma_wrapper_source, f16 or bf16, N = 8, 16, ..., 256).
std::string_view ptx_wgmma_wrappers_source();
std::vector<std::string> ptx_wgmma_wrapper_names();
std::string wgmma_mma_wrapper_name(int n, DType type);
std::string wgmma_mma_wrapper_source(int n, DType type);

// The guarded overloads (`PtxGuard` first: `@g instr`) of the producer's instructions, which
// an elected run issues without a branch (ptx_wrappers_guarded.cpp): arrive_expect_tx on the
// CTA's own barrier and the bulk and tensor loads into shared memory, multicast or not.
// ptx_wrappers_source() already includes it, after the cluster part.
std::string_view ptx_guarded_wrappers_source();
std::vector<std::string> ptx_guarded_wrapper_names();

// Names of the fixed wrappers of ptx_wrappers.cpp (each other part lists its own above), for the test that instantiates each one.
// (The list is checked against the source text by that test.)
extern const char* const kPtxWrapperNames[];
extern const int kPtxWrapperCount;

}  // namespace tmasim::device
