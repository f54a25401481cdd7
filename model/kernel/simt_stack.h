#pragma once
// Divergence and reconvergence of a warp's lanes. A branch that parts the lanes sends each
// side its own way; they meet again at the branch's immediate post-dominator (the first
// instruction every path from the branch to the kernel's exit passes), computed once per kernel
// over its decoded code. At run time the warp keeps a stack of (pc, lanes, meeting point):
// the top runs; when it reaches its meeting point it is popped and the lanes below, already
// waiting there, go on together. Plain C++, tested without SystemC.
#include <cstdint>
#include <vector>

#include "model/kernel/decoded_program.h"

namespace tmasim::model::kernel {

// Sets DInst::reconv of every branch (bra, ret_inline): the pc where its sides meet, or -1
// when they only meet at the exit.
void compute_reconvergence(DecodedProgram& p);

class WarpStack {
public:
    struct Entry {
        int32_t pc = 0;
        uint32_t mask = 0;
        int32_t reconv = -1;
    };

    void start(int32_t pc, uint32_t lanes);
    bool done() const { return entries_.empty(); }
    Entry& top() { return entries_.back(); }
    const Entry& top() const { return entries_.back(); }
    // Pops finished entries: those whose lanes all exited and those at their meeting point
    // (their lanes join the entry below). Returns false when no lane is left.
    bool settle();
    // A branch at the top's pc with `taken` of its lanes going to `target`, the others to pc + 1.
    void branch(uint32_t taken, int32_t target, int32_t reconv);
    // `lanes` exit: they leave every entry.
    void exit(uint32_t lanes);
    size_t depth() const { return entries_.size(); }
    const std::vector<Entry>& entries() const { return entries_; }

private:
    std::vector<Entry> entries_;
};

}  // namespace tmasim::model::kernel
