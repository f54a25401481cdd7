#include "model/state/next_warp_vote.h"

namespace tmasim::model {

namespace {

bool by_one_thread(const Op& op) {
    return op.by.kind == Selector::Kind::thread || op.by.kind == Selector::Kind::elected;
}

// The ops that run after body[i], in order, while walking out through `enclosing` (the
// bodies that hold it, innermost last, with the index of the op that holds the next one).
struct Frame {
    const std::vector<Op>* body;
    size_t index;
    bool loops;  // the body is a loop's: after its last op comes its first again
};

// The first op at or after `ops[from..]`, descending into loops: the one the warp meets next.
// 1: found a vote; 0: found an op that decides no; -1: ran off the end of `ops`.
int scan(const std::vector<Op>& ops, size_t from) {
    for (size_t i = from; i < ops.size(); ++i) {
        const Op& op = ops[i];
        if (op.kind == OpKind::loop) {
            const int inner = scan(op.body, 0);
            if (inner >= 0) return inner;
            continue;
        }
        if (by_one_thread(op)) continue;
        return op.by.kind == Selector::Kind::predicate ? 1 : 0;
    }
    return -1;
}

bool find_path(const std::vector<Op>& ops, int id, bool loops, std::vector<Frame>& path) {
    for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].id == id) {
            path.push_back({&ops, i, loops});
            return true;
        }
        if (ops[i].kind == OpKind::loop) {
            path.push_back({&ops, i, loops});
            if (find_path(ops[i].body, id, true, path)) return true;
            path.pop_back();
        }
    }
    return false;
}

}  // namespace

bool next_shared_op_is_vote(const std::vector<Op>& program, int op_id) {
    std::vector<Frame> path;
    if (!find_path(program, op_id, false, path)) return false;
    // Innermost first: the rest of the op's own body, then (a loop's) its start again, then
    // what follows the loop in the body around it.
    for (size_t k = path.size(); k-- > 0;) {
        const Frame& f = path[k];
        int found = scan(*f.body, f.index + 1);
        if (found < 0 && f.loops) found = scan(*f.body, 0);
        if (found >= 0) return found == 1;
    }
    return false;
}

}  // namespace tmasim::model
