#include "model/kernel/simt_stack.h"

#include <algorithm>

namespace tmasim::model::kernel {
namespace {

bool is_branch(const DInst& d) { return d.op == Opc::bra || d.op == Opc::ret_inline; }
bool ends_path(const DInst& d) { return d.op == Opc::exit || d.op == Opc::trap; }

}  // namespace

// Post-dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm") on the reversed control-flow graph of basic blocks, with one virtual
// exit block that every exit and trap reaches: O(blocks) memory, where bit sets over a CuTe
// kernel's tens of thousands of blocks would not fit.
void compute_reconvergence(DecodedProgram& p) {
    auto& code = p.code;
    const int32_t n = static_cast<int32_t>(code.size());
    if (n == 0) return;
    std::vector<uint8_t> leader(static_cast<size_t>(n) + 1, 0);
    leader[0] = 1;
    for (int32_t i = 0; i < n; ++i) {
        const DInst& d = code[i];
        if (is_branch(d)) {
            if (d.target >= 0 && d.target < n) leader[d.target] = 1;
            leader[i + 1] = 1;
        } else if (ends_path(d)) {
            leader[i + 1] = 1;
        }
    }
    std::vector<int32_t> block_of(static_cast<size_t>(n), 0), first;
    for (int32_t i = 0; i < n; ++i) {
        if (leader[i]) first.push_back(i);
        block_of[i] = static_cast<int32_t>(first.size()) - 1;
    }
    const int32_t blocks = static_cast<int32_t>(first.size());
    const int32_t exit_block = blocks;
    std::vector<std::vector<int32_t>> succ(static_cast<size_t>(blocks) + 1), pred(static_cast<size_t>(blocks) + 1);
    for (int32_t b = 0; b < blocks; ++b) {
        const int32_t last = (b + 1 < blocks ? first[b + 1] : n) - 1;
        const DInst& d = code[last];
        auto add = [&](int32_t to) {
            succ[b].push_back(to);
            pred[to].push_back(b);
        };
        if (ends_path(d)) {
            add(exit_block);
        } else if (is_branch(d)) {
            add(d.target >= 0 && d.target < n ? block_of[d.target] : exit_block);
            if (d.guard >= 0) add(last + 1 < n ? block_of[last + 1] : exit_block);
        } else {
            add(last + 1 < n ? block_of[last + 1] : exit_block);
        }
    }
    // Postorder of the reversed graph from the exit (iterative: a CuTe kernel's graph is deep).
    std::vector<int32_t> order, number(static_cast<size_t>(blocks) + 1, -1);
    std::vector<std::pair<int32_t, size_t>> stack{{exit_block, 0}};
    std::vector<uint8_t> seen(static_cast<size_t>(blocks) + 1, 0);
    seen[exit_block] = 1;
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < pred[node].size()) {
            const int32_t m = pred[node][next++];
            if (!seen[m]) {
                seen[m] = 1;
                stack.push_back({m, 0});
            }
            continue;
        }
        number[node] = static_cast<int32_t>(order.size());
        order.push_back(node);
        stack.pop_back();
    }
    std::vector<int32_t> ipdom(static_cast<size_t>(blocks) + 1, -1);
    ipdom[exit_block] = exit_block;
    auto intersect = [&](int32_t a, int32_t b) {
        while (a != b) {
            while (number[a] < number[b]) a = ipdom[a];
            while (number[b] < number[a]) b = ipdom[b];
        }
        return a;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = order.size(); i-- > 0;) {
            const int32_t b = order[i];
            if (b == exit_block) continue;
            int32_t idom = -1;
            for (int32_t s : succ[b]) {
                if (ipdom[s] < 0 || number[s] < 0) continue;
                idom = idom < 0 ? s : intersect(s, idom);
            }
            if (idom >= 0 && ipdom[b] != idom) {
                ipdom[b] = idom;
                changed = true;
            }
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        DInst& d = code[i];
        if (!is_branch(d)) continue;
        const int32_t b = block_of[i];
        const int32_t m = ipdom[b];
        d.reconv = m < 0 || m == exit_block ? -1 : first[m];
    }
}

void WarpStack::start(int32_t pc, uint32_t lanes) {
    entries_.clear();
    entries_.push_back({pc, lanes, -1});
}

bool WarpStack::settle() {
    while (!entries_.empty()) {
        const Entry& t = entries_.back();
        if (t.mask != 0 && t.pc != t.reconv) return true;
        entries_.pop_back();
    }
    return false;
}

void WarpStack::branch(uint32_t taken, int32_t target, int32_t reconv) {
    Entry& t = entries_.back();
    const uint32_t fall = t.mask & ~taken;
    if (taken == 0) {
        ++t.pc;
        return;
    }
    if (fall == 0) {
        t.pc = target;
        return;
    }
    const int32_t next = t.pc + 1;
    if (reconv < 0 || reconv == t.reconv) {
        // The sides meet where the enclosing entry's lanes meet (or never): no entry waits here.
        t.pc = next;
        t.mask = fall;
        entries_.push_back({target, taken, t.reconv});
        return;
    }
    t.pc = reconv;  // the whole mask waits at the meeting point
    const int32_t r = reconv;
    entries_.push_back({next, fall, r});
    entries_.push_back({target, taken, r});
}

void WarpStack::exit(uint32_t lanes) {
    for (Entry& e : entries_) e.mask &= ~lanes;
}

}  // namespace tmasim::model::kernel
