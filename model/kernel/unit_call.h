#pragma once
// One unit instruction instance as its handler sees it (model/kernel/unit_*.cpp): the warp,
// the decoded instruction and its operands, its op, and the lanes that execute it; with the
// helpers every handler needs (operand values per lane, where an address points, events).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/core/event_log.h"
#include "model/kernel/decoder.h"
#include "model/kernel/kernel_warp.h"
#include "model/state/tensormap_state_fields.h"
#include "scenarios/run_result.h"

namespace tmasim::model::kernel {

// Where an address of a memory instruction points.
struct MemPlace {
    enum class Kind { shared, dsmem, tensor, module_global, local, param } kind = Kind::shared;
    int rank = -1;          // shared, dsmem: the CTA's rank in its cluster
    int64_t offset = 0;     // into that CTA's shared memory, the tensor, the variable, the lane's local bytes, the params
    std::string tensor;     // tensor
    int index = -1;         // module_global
};

struct UnitCall {
    KernelWarp& kw;
    const DInst& d;
    const UnitInstruction& u;
    const Op& op;
    uint32_t exec;
    std::vector<int> lanes;  // of exec, ascending

    UnitCall(KernelWarp& k, const DInst& di, const UnitInstruction& ui, const Op& o, uint32_t e)
        : kw(k), d(di), u(ui), op(o), exec(e), lanes(KernelWarp::lanes(e)) {}

    const ptx::Instruction& ins() const { return *u.ins; }
    const UnitOperand& operand(size_t i) const;
    uint64_t value(size_t i, int lane) const;           // a value operand's register
    uint64_t address(size_t i, int lane) const;         // an address operand's base + offset
    void set(size_t i, int lane, uint64_t v) const;     // a destination operand
    int thread(int lane) const;
    // The lanes that log this instance's events: its lowest executing lane.
    std::vector<int> event_lanes() const { return {lanes.front()}; }
    void emit(EventKind kind, const std::map<std::string, std::string>& detail = {}) const;
    void spend(double cycles) const;
    EventSite site(int lane) const;
    // `addr` of the instruction's n-th state space (shared, shared::cluster, global, or
    // generic when it names none) resolved for `lane`; throws std::out_of_range (a fault at
    // the instruction) for an address nothing holds, naming it.
    MemPlace place(uint64_t addr, int lane, int64_t bytes, int nth_space = 0) const;
    int own_rank() const;
    // A shared offset of the executing CTA as a kernel's messages name it: "tile+16".
    std::string shared_name(int64_t offset) const { return kw.layout().shared_name(offset); }
    // The symbol that holds `offset` (its display name and base), for race messages.
    std::pair<std::string, int64_t> buffer_at(int64_t offset) const;
    // The tensor map whose 128 bytes are at `addr` (a generic address of a param, of a global
    // tensor's bytes or of a .global variable; or a param-space address), decoded with the
    // tensor its global address is in (model/kernel/unit_tensormap.cpp). `key` names the map
    // for the CTA's descriptor fetches. Throws std::out_of_range for bytes that are no map.
    std::shared_ptr<const MapFields> map_at(int lane, uint64_t addr, std::string& key) const;
};

}  // namespace tmasim::model::kernel
