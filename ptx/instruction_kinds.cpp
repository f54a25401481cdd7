#include "ptx/instruction_kinds.h"

#include <algorithm>

namespace tmasim::ptx {
namespace {

bool is_space(const std::string& p) {
    return p == "shared" || p == "shared::cta" || p == "shared::cluster" || p == "global" || p == "local" ||
           p == "param" || p == "param::entry" || p == "param::func" || p == "const";
}

bool starts(const Instruction& ins, std::initializer_list<const char*> prefix) {
    size_t i = 0;
    for (const char* p : prefix) {
        if (i >= ins.parts.size() || ins.parts[i] != p) return false;
        ++i;
    }
    return true;
}

// ld/st of shared, global or generic memory; param, local and const stay in the warp.
std::optional<OpKind> access_kind(const Instruction& ins, bool store) {
    const std::string space = memory_space(ins);
    if (space == "local" || space == "param" || space == "const") return std::nullopt;
    if (space == "shared" || space == "shared::cluster") return store ? OpKind::shared_store : OpKind::shared_load;
    if (space == "global") return store ? OpKind::global_store : OpKind::global_load;
    return store ? OpKind::st : OpKind::ld;
}

std::optional<OpKind> bulk_kind(const Instruction& ins) {
    // cp.async.bulk[.tensor.Nd].dst.src...: the first space is the destination.
    const bool tensor = ins.has("tensor");
    const bool prefetch = ins.has("prefetch");
    const bool reduce = ins.parts[0] == "cp" && ins.parts.size() > 1 && ins.parts[1] == "reduce";
    if (ins.has("commit_group")) return OpKind::bulk_commit_group;
    if (ins.has("wait_group")) return ins.has("read") ? OpKind::bulk_wait_group_read : OpKind::bulk_wait_group;
    if (prefetch) return tensor ? OpKind::tma_prefetch : OpKind::bulk_prefetch;
    const std::string dst = memory_space(ins, 0);
    const bool to_shared = dst == "shared" || dst == "shared::cluster";
    if (tensor) {
        if (ins.has("tile::gather4")) return OpKind::tma_gather4;
        if (ins.has("tile::scatter4")) return OpKind::tma_scatter4;
        if (reduce) return OpKind::tma_reduce;
        return to_shared ? OpKind::tma_load : OpKind::tma_store;
    }
    if (reduce) return OpKind::bulk_reduce;
    return to_shared ? OpKind::bulk_load : OpKind::bulk_store;
}

std::optional<OpKind> mbarrier_kind(const Instruction& ins) {
    const std::string& what = ins.parts.size() > 1 ? ins.parts[1] : "";
    if (what == "init") return OpKind::mbarrier_init;
    if (what == "inval") return OpKind::mbarrier_inval;
    if (what == "expect_tx") return OpKind::mbarrier_expect_tx;
    if (what == "complete_tx") return OpKind::mbarrier_expect_tx;  // the front end applies it as a credit
    if (what == "arrive" || what == "arrive_drop")
        return ins.has("expect_tx") ? OpKind::mbarrier_arrive_expect_tx : OpKind::mbarrier_arrive;
    if (what == "try_wait" || what == "test_wait") return OpKind::mbarrier_wait;
    return std::nullopt;  // pending_count: arithmetic on a state value
}

std::optional<OpKind> barrier_kind(const Instruction& ins) {
    // bar.sync / barrier.sync [.aligned] a{, b}; bar.arrive; bar.red; barrier.cluster.*.
    if (ins.has("cluster")) {
        if (ins.has("arrive")) return OpKind::cluster_arrive;
        if (ins.has("wait")) return OpKind::cluster_wait;
        return std::nullopt;
    }
    if (ins.has("warp")) return std::nullopt;  // bar.warp.sync: a warp-level sync, inside the warp
    if (ins.has("arrive")) return OpKind::bar_arrive;
    // barrier 0 with no thread count is a plain CTA barrier (__syncthreads).
    const bool plain = ins.operands.size() == 1 && ins.operands[0].kind == Operand::Kind::imm_int &&
                       ins.operands[0].bits == 0 && !ins.has("red");
    return plain ? OpKind::sync : OpKind::bar_sync;
}

}  // namespace

std::string memory_space(const Instruction& ins, int nth) {
    int seen = 0;
    for (size_t i = 1; i < ins.parts.size(); ++i) {
        const std::string& p = ins.parts[i];
        if (!is_space(p)) continue;
        if (seen++ < nth) continue;
        if (p == "shared::cta") return "shared";
        if (p == "param::entry" || p == "param::func") return "param";
        return p;
    }
    return "";
}

std::optional<OpKind> unit_op_kind(const Instruction& ins) {
    if (ins.parts.empty()) return std::nullopt;
    const std::string& head = ins.parts[0];
    if (head == "ld" || head == "ldu") return access_kind(ins, false);
    if (head == "st") {
        if (ins.has("async")) return OpKind::st_async;
        return access_kind(ins, true);
    }
    if (head == "atom") {
        const std::string space = memory_space(ins);
        return space == "local" ? std::nullopt : std::optional<OpKind>(OpKind::atom);
    }
    if (head == "red") {
        if (ins.has("async")) return OpKind::red_async;
        return memory_space(ins) == "local" ? std::nullopt : std::optional<OpKind>(OpKind::atom);
    }
    if (head == "ldmatrix") return OpKind::shared_load;
    if (head == "stmatrix") return OpKind::shared_store;
    if (starts(ins, {"cp", "async", "bulk"}) || starts(ins, {"cp", "reduce", "async", "bulk"})) return bulk_kind(ins);
    if (starts(ins, {"cp", "async"})) {
        if (ins.has("commit_group")) return OpKind::cp_async_commit_group;
        if (ins.has("wait_group")) return OpKind::cp_async_wait_group;
        if (ins.has("wait_all")) return OpKind::cp_async_wait_all;
        if (ins.has("mbarrier")) return OpKind::cp_async_mbarrier_arrive;
        return OpKind::cp_async;
    }
    if (head == "mbarrier") return mbarrier_kind(ins);
    if (head == "bar" || head == "barrier") return barrier_kind(ins);
    if (head == "fence") {
        if (ins.has("mbarrier_init")) return OpKind::fence_mbarrier_init;
        if (ins.parts.size() > 2 && ins.parts[1] == "proxy" && ins.parts[2] == "async") return OpKind::fence_proxy_async;
        if (ins.has("tensormap::generic"))
            return ins.has("acquire") ? OpKind::fence_proxy_tensormap_acquire : OpKind::fence_proxy_tensormap_release;
        return OpKind::fence_memory;
    }
    if (head == "membar") return OpKind::fence_memory;
    if (head == "tensormap") {
        if (ins.has("replace")) return OpKind::tensormap_replace;
        if (ins.has("cp_fenceproxy")) return OpKind::tensormap_cp_fenceproxy;
        return std::nullopt;
    }
    if (head == "wgmma") {
        if (ins.has("fence")) return OpKind::wgmma_fence;
        if (ins.has("commit_group")) return OpKind::wgmma_commit_group;
        if (ins.has("wait_group")) return OpKind::wgmma_wait_group;
        if (ins.has("mma_async")) return OpKind::wgmma_mma_async;
    }
    return std::nullopt;
}

}  // namespace tmasim::ptx
