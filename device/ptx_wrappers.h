#pragma once
// The PTX instruction wrappers every generated kernel starts with: one
// `__device__ __forceinline__` function per PTX instruction, named after it, each with its
// exact PTX form and minimum SM in a comment. Kept as text (not a .cuh read at run time)
// so the library is self-contained and NVRTC needs no include path.
#include <string_view>

namespace tmasim::device {

// CUDA C++ source (NVRTC, -default-device) defining the wrappers.
std::string_view ptx_wrappers_source();

// The part for per-thread ops, cp.async and L2 prefetches (ptx_wrappers_thread_ops.cpp);
// ptx_wrappers_source() already includes it.
std::string_view ptx_thread_op_wrappers_source();

// Names of the wrappers, for the test that instantiates each one.
// (The list is checked against the source text by that test.)
extern const char* const kPtxWrapperNames[];
extern const int kPtxWrapperCount;

}  // namespace tmasim::device
