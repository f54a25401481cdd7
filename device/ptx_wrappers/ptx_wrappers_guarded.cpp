// The producer's instructions in their guarded PTX form (`@g instr`): an elected run of them
// (arrive_expect_tx, then the copy) issues on the elected lane with no branch around it.
//
// Why: a hand-written producer `if (elected) { arrive_expect_tx; copy; }` is compiled either
// way, predicated or as a branch the warp reconverges after, and ptxas chooses by the code
// around it. On an H100 the multicast stream of scenarios/catalog/bench ran at 0.36 ms when
// the branch was kept and 0.31 ms when ptxas predicated it, whatever else the variant changed
// (its traced kernel and its untraced kernel without the shared dump were both branches); with
// these guarded forms it ran at 0.255 ms traced or not (`tmasim bench executor-overhead
// --variant`, kernels and SASS kept with --keep-kernels, 2026-11-26). The guard in PTX makes
// the choice the generator's, not the compiler's. (On an H200 the hand-written kernel, which
// ptxas predicates, still ran 6% faster: 0.2175 against 0.2311 ms.)
//
// Each is an overload of the instruction's wrapper (same name, a PtxGuard first), so the
// name still says the instruction.
#include <fmt/format.h>

#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

// One guarded form: the wrapper's name, its PTX with operands numbered from 1 (0 is the
// guard), the PTX form as documented, the C++ parameters after the guard and the operands.
struct GuardedForm {
    std::string name, ptx, doc, params, operands;
};

std::string guarded_wrapper(const GuardedForm& f) {
    return fmt::format(
        "// PTX: @guard {0};  sm_90 (only the lanes whose guard is set issue it; no branch)\n"
        "__device__ __forceinline__ void {1}(PtxGuard guard, {2}) {{\n"
        "    asm volatile(\"{{\\n\\t.reg .pred g;\\n\\tsetp.ne.u32 g, %0, 0;\\n\\t@g {3};\\n\\t}}\"\n"
        "                 :: \"r\"((unsigned)guard.on), {4} : \"memory\");\n"
        "}}\n\n",
        f.doc, f.name, f.params, f.ptx, f.operands);
}

// The rank-`rank` tensor load into shared memory, with a ctaMask when `multicast`.
GuardedForm tensor_load(int rank, bool multicast) {
    std::string coords, coords_doc, params = "unsigned dst, const void* tmap", operands = "\"r\"(dst), \"l\"(tmap)";
    for (int i = 0; i < rank; ++i) {
        coords += fmt::format("{}%{}", i ? ", " : "", i + 3);
        coords_doc += fmt::format("{}c{}", i ? ", " : "", i);
        params += fmt::format(", int c{}", i);
        operands += fmt::format(", \"r\"(c{})", i);
    }
    params += ", unsigned mbar";
    operands += ", \"r\"(mbar)";
    const std::string instr = fmt::format(
        "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes{}", rank,
        multicast ? ".multicast::cluster" : "");
    std::string ptx = fmt::format("{} [%1], [%2, {{{}}}], [%{}]", instr, coords, rank + 3);
    std::string doc = fmt::format("{} [dstMem], [tensorMap, {{{}}}], [mbar]", instr, coords_doc);
    if (multicast) {
        ptx += fmt::format(", %{}", rank + 4);
        doc += ", ctaMask";
        params += ", unsigned short cta_mask";
        operands += ", \"h\"(cta_mask)";
    }
    return {multicast ? multicast_tensor_wrapper_name(rank)
                      : fmt::format("cp_async_bulk_tensor_{}d_shared_cluster_global_tile_mbarrier", rank),
            ptx, doc, params, operands};
}

std::vector<GuardedForm> guarded_forms() {
    std::vector<GuardedForm> forms = {
        {"mbarrier_arrive_expect_tx_shared_cta_b64", "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], %2",
         "mbarrier.arrive.expect_tx.shared::cta.b64 _, [addr], txCount", "unsigned addr, unsigned tx_bytes",
         "\"r\"(addr), \"r\"(tx_bytes)"},
        {"cp_async_bulk_shared_cluster_global_mbarrier",
         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2], %3, [%4]",
         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar]",
         "unsigned dst, const void* src, unsigned bytes, unsigned mbar",
         "\"r\"(dst), \"l\"(src), \"r\"(bytes), \"r\"(mbar)"},
        {"cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster",
         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%1], [%2], %3, [%4], %5",
         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dstMem], [srcMem], "
         "size, [mbar], ctaMask",
         "unsigned dst, const void* src, unsigned bytes, unsigned mbar, unsigned short cta_mask",
         "\"r\"(dst), \"l\"(src), \"r\"(bytes), \"r\"(mbar), \"h\"(cta_mask)"},
    };
    for (int rank = 1; rank <= 5; ++rank) {
        forms.push_back(tensor_load(rank, false));
        forms.push_back(tensor_load(rank, true));
    }
    return forms;
}

}  // namespace

std::string_view ptx_guarded_wrappers_source() {
    static const std::string source = [] {
        std::string s =
            "// ---- guarded producer instructions (ptx_wrappers_guarded.cpp) ----------------------\n\n"
            "// The lane's guard: a wrapper taking it first issues its instruction only where `on`.\n"
            "struct PtxGuard {\n    bool on;\n};\n\n";
        for (const GuardedForm& f : guarded_forms()) s += guarded_wrapper(f);
        return s;
    }();
    return source;
}

std::vector<std::string> ptx_guarded_wrapper_names() {
    std::vector<std::string> names;
    for (const GuardedForm& f : guarded_forms()) names.push_back(f.name);
    return names;
}

}  // namespace tmasim::device
