// PTX wrappers for the reductions into global memory (cp.reduce.async.bulk and its tensor
// form) and Blackwell's row gathers and scatters (tile::gather4 / tile::scatter4). Same
// conventions as ptx_wrappers.cpp, which appends this text to its own.
//
// The reduction operation and element type are part of the opcode, and an asm string must
// be a literal, so every (redOp, type) pair is its own instruction and its own wrapper. The
// wrappers are written from two patterns, one per (op, type) that reduce_supported() accepts:
// the loader's table and the wrappers cannot drift apart, and codegen names the wrapper with
// the same functions this file uses.
#include <fmt/format.h>

#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

constexpr ReduceOp kAllReduceOps[] = {ReduceOp::add, ReduceOp::min,  ReduceOp::max,
                                      ReduceOp::inc, ReduceOp::dec,  ReduceOp::and_,
                                      ReduceOp::or_, ReduceOp::xor_};
constexpr DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16, DType::u8, DType::i32};

// ".add.noftz.f16", ".min.bf16", ".add.s32", ".xor.b32": the redOp and type qualifiers of
// the non-tensor form. f16/bf16 add exists only as .noftz (no flush of subnormals); i32
// arithmetic is signed (.s32) and the bitwise ops are typeless (.b32).
std::string bulk_reduce_suffix(ReduceOp op, DType type) {
    const std::string red = "." + to_string(op);
    switch (type) {
    case DType::f32: return red + ".f32";
    case DType::f16: return op == ReduceOp::add ? red + ".noftz.f16" : red + ".f16";
    case DType::bf16: return op == ReduceOp::add ? red + ".noftz.bf16" : red + ".bf16";
    case DType::i32:
        return (op == ReduceOp::and_ || op == ReduceOp::or_ || op == ReduceOp::xor_) ? red + ".b32"
                                                                                    : red + ".s32";
    case DType::u8: break;
    }
    return red + ".u8";  // never a PTX form; reduce_supported() rejects u8
}

std::string bulk_reduce_instruction(ReduceOp op, DType type) {
    return "cp.reduce.async.bulk.global.shared::cta.bulk_group" + bulk_reduce_suffix(op, type);
}

std::string tensor_reduce_instruction(int rank, ReduceOp op) {
    return fmt::format("cp.reduce.async.bulk.tensor.{}d.global.shared::cta.{}.tile.bulk_group", rank,
                       to_string(op));
}


// Redops the tensor form is generated for: those some element type supports. (The tensor
// form has no type qualifier; the tensor map's element type selects it.)
bool tensor_reduce_op_used(ReduceOp op) {
    for (DType t : kAllDTypes)
        if (reduce_supported(op, t)) return true;
    return false;
}

std::string bulk_reduce_wrapper(ReduceOp op, DType type) {
    const std::string ins = bulk_reduce_instruction(op, type);
    return fmt::format(
        "// PTX: {0} [dstMem], [srcMem], size;  sm_90\n"
        "__device__ __forceinline__ void {1}(void* dst, unsigned src, unsigned bytes) {{\n"
        "    asm volatile(\"{0} [%0], [%1], %2;\"\n"
        "                 :: \"l\"(dst), \"r\"(src), \"r\"(bytes) : \"memory\");\n"
        "}}\n\n",
        ins, wrapper_name_of(ins));
}

std::string tensor_reduce_wrapper(int rank, ReduceOp op) {
    const std::string ins = tensor_reduce_instruction(rank, op);
    std::string params, operands, coords_ptx, coords_doc;
    for (int i = 0; i < rank; ++i) {
        const char* sep = i == 0 ? "" : ", ";
        params += fmt::format(", int c{}", i);
        operands += fmt::format(", \"r\"(c{})", i);
        coords_ptx += fmt::format("{}%{}", sep, i + 1);
        coords_doc += fmt::format("{}c{}", sep, i);
    }
    return fmt::format(
        "// PTX: {0} [tensorMap, {{{2}}}], [srcMem];  sm_90\n"
        "__device__ __forceinline__ void {1}(const void* tmap{3}, unsigned src) {{\n"
        "    asm volatile(\"{0} [%0, {{{4}}}], [%{5}];\"\n"
        "                 :: \"l\"(tmap){6}, \"r\"(src) : \"memory\");\n"
        "}}\n\n",
        ins, wrapper_name_of(ins), coords_doc, params, coords_ptx, rank + 1, operands);
}

// tile::gather4 and tile::scatter4 exist only on sm_100a; PTX for sm_90a must not contain
// them (ptxas rejects the instruction). NVRTC defines __CUDA_ARCH_FEAT_SM100_ALL exactly when
// compiling for sm_100a, so one kernel source compiles for both targets; on any other
// target the wrapper traps (run_device never launches an sm_100 scenario there anyway).
// Coordinates: {col, row0, row1, row2, row3}: the column (innermost) first, then four rows.
constexpr std::string_view kBlackwellSource = R"ptx(
// ---- Blackwell (sm_100a) row gathers and scatters of a 2-D tensor map -----------------

// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {col, row0, row1, row2, row3}], [mbar];  sm_100a
__device__ __forceinline__ void cp_async_bulk_tensor_2d_shared_cluster_global_tile_gather4_mbarrier(
    unsigned dst, const void* tmap, int col, int row0, int row1, int row2, int row3, unsigned mbar) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                 :: "r"(dst), "l"(tmap), "r"(col), "r"(row0), "r"(row1), "r"(row2), "r"(row3),
                    "r"(mbar) : "memory");
#else
    (void)dst; (void)tmap; (void)col; (void)row0; (void)row1; (void)row2; (void)row3; (void)mbar;
    __trap();
#endif
}

// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [tensorMap, {col, row0, row1, row2, row3}], [srcMem];  sm_100a
__device__ __forceinline__ void cp_async_bulk_tensor_2d_global_shared_cta_tile_scatter4_bulk_group(
    const void* tmap, int col, int row0, int row1, int row2, int row3, unsigned src) {
#if defined(__CUDA_ARCH_FEAT_SM100_ALL)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"
                 " [%0, {%1, %2, %3, %4, %5}], [%6];"
                 :: "l"(tmap), "r"(col), "r"(row0), "r"(row1), "r"(row2), "r"(row3), "r"(src)
                 : "memory");
#else
    (void)tmap; (void)col; (void)row0; (void)row1; (void)row2; (void)row3; (void)src;
    __trap();
#endif
}
)ptx";

}  // namespace

std::string bulk_reduce_wrapper_name(ReduceOp op, DType type) {
    return wrapper_name_of(bulk_reduce_instruction(op, type));
}

std::string tensor_reduce_wrapper_name(int rank, ReduceOp op) {
    return wrapper_name_of(tensor_reduce_instruction(rank, op));
}

std::vector<std::string> ptx_reduce_and_gather_wrapper_names() {
    std::vector<std::string> names;
    for (ReduceOp op : kAllReduceOps)
        for (DType t : kAllDTypes)
            if (reduce_supported(op, t)) names.push_back(bulk_reduce_wrapper_name(op, t));
    for (int rank = 1; rank <= 5; ++rank)
        for (ReduceOp op : kAllReduceOps)
            if (tensor_reduce_op_used(op)) names.push_back(tensor_reduce_wrapper_name(rank, op));
    names.push_back("cp_async_bulk_tensor_2d_shared_cluster_global_tile_gather4_mbarrier");
    names.push_back("cp_async_bulk_tensor_2d_global_shared_cta_tile_scatter4_bulk_group");
    return names;
}

std::string_view ptx_reduce_and_gather_wrappers_source() {
    static const std::string source = [] {
        std::string s = "\n// ---- TMA reductions into global memory (one wrapper per redOp and type) ----\n\n";
        for (ReduceOp op : kAllReduceOps)
            for (DType t : kAllDTypes)
                if (reduce_supported(op, t)) s += bulk_reduce_wrapper(op, t);
        s += "// ---- TMA tensor reductions (the tensor map's element type is the type) ----\n\n";
        for (int rank = 1; rank <= 5; ++rank)
            for (ReduceOp op : kAllReduceOps)
                if (tensor_reduce_op_used(op)) s += tensor_reduce_wrapper(rank, op);
        s += kBlackwellSource;
        return s;
    }();
    return source;
}

}  // namespace tmasim::device
