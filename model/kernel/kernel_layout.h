#pragma once
// Where a kernel's memory is, as its instructions address it (model/kernel/README in
// model/README.md "Kernels"): the CTA's shared memory (static variables in declaration order,
// each at its alignment, then the dynamic `.extern .shared` array), the global tensors at
// device addresses, the module's own `.global` variables, the entry's param buffer (with each
// tensor map in the model's 128-byte encoding, model/kernel/tensormap_bytes.h), and the generic
// windows that cvta and generic ld/st map onto those spaces.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ptx/kernel_binding.h"
#include "scenarios/ir.h"

namespace tmasim::model::kernel {

// Generic addresses: each space's window. A shared::cta address is an offset into the CTA's
// shared memory; a shared::cluster address names the CTA as (rank + 1) << 24 above it (an own-CTA
// shared::cta address is a shared::cluster address of the executing CTA, as in PTX 5.1.3).
constexpr uint64_t kGlobalBase = 0x0000'1000'0000'0000ull;
constexpr uint64_t kModuleGlobalBase = 0x0000'0f00'0000'0000ull;
constexpr uint64_t kSharedWindow = 0x0000'7e00'0000'0000ull;
constexpr uint64_t kLocalWindow = 0x0000'7d00'0000'0000ull;
constexpr uint64_t kParamWindow = 0x0000'7c00'0000'0000ull;
constexpr uint64_t kWindowBytes = 0x0000'0100'0000'0000ull;
constexpr int kClusterRankShift = 24;
// In the param space: a function body's .param variables (a call's arguments and returns, which
// the model keeps in the thread's local bytes) are addressed from here up; the kernel's own
// params from 0.
constexpr uint64_t kBodyParamBase = 0x1000'0000ull;

struct SharedSymbol {
    std::string name;  // the PTX name (mangled); messages show its demangled form
    int64_t offset = 0;
    int64_t size = 0;  // 0 for the dynamic array: it runs to the end
};

struct ModuleGlobal {
    std::string name;
    uint64_t address = 0;
    std::vector<uint8_t> init;  // its initial bytes (zeros where the module gives none)
};

// A global address resolved: a tensor's byte, or a module global's.
struct GlobalPlace {
    enum class Kind { tensor, module_global } kind = Kind::tensor;
    std::string name;  // tensor name, or the module global's index as text
    int index = -1;    // module_global: index into KernelLayout::module_globals
    int64_t offset = 0;
    int64_t size = 0;  // bytes of the tensor (or variable)
};

struct KernelLayout {
    std::vector<SharedSymbol> shared;  // by offset
    std::map<std::string, int64_t> shared_offsets;
    int64_t static_shared = 0;
    int64_t dynamic_offset = 0;  // where the `.extern .shared` array starts
    int64_t shared_bytes = 0;    // static + dynamic: the CTA's shared memory
    std::map<std::string, uint64_t> tensor_address;
    std::map<std::string, int64_t> tensor_bytes;
    std::vector<ModuleGlobal> module_globals;
    std::vector<uint8_t> params;  // the entry's param buffer
    std::map<std::string, int64_t> param_offsets;

    // `addr` as a global address; nullopt when it lies in no tensor and no module global.
    std::optional<GlobalPlace> global_at(uint64_t addr) const;
    // "tile+16", "smem+1024": the shared symbol that holds `offset`, demangled, plus the offset in it.
    std::string shared_name(int64_t offset) const;
    const SharedSymbol* shared_symbol_at(int64_t offset) const;
};

// Lays out a bound kernel's memory for scenario `s` (its tensors, maps and params).
KernelLayout layout_kernel(const Scenario& s, const ptx::BoundKernel& k);

// "tma_lms::tile" for "_ZZ7tma_lmsE4tile" (the name itself when it is not a mangled one).
std::string demangled(const std::string& name);

}  // namespace tmasim::model::kernel
