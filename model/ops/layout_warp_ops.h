#pragma once
// The layout ops of one warp (scenarios/FORMAT.md, "Layouts"): a register tile moved
// between global memory, shared memory and another layout. The warp issues one
// instruction per vector of its registers (scenarios/layout_access.h); each instruction
// is counted as the hardware counts it: global requests, 32-byte sectors and 128-byte
// lines; shared wavefronts and bank conflicts (BankModel). Global bytes pass the chip's
// HBM channel (DramChannel) at sector granularity.
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/layout_ops.h"

namespace tmasim::model {

class WarpProcess;

class LayoutWarpOps {
public:
    explicit LayoutWarpOps(WarpProcess& w) : w_(w) {}
    void exec(const Op& op);

private:
    // Each returns the cycles the warp spends and adds its counts to `detail`.
    double global_access(const Op& op, std::map<std::string, std::string>& detail);
    double shared_access(const Op& op, bool to_side, bool is_store, std::map<std::string, std::string>& detail);
    void convert(const Op& op);
    void reduce(const Op& op);
    const LayoutOpView& view(const Op& op, bool to_side);
    std::vector<uint8_t>& tile(const std::string& name);

    WarpProcess& w_;
};

}  // namespace tmasim::model
