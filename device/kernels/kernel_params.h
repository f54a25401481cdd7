#pragma once
// A kernel scenario's launch as the driver takes it, computed without a GPU so tests can check
// it byte by byte: the param buffer in the PTX's `.param` layout and the grid, block and
// cluster dimensions. The device values a param needs (a tensor's address, an encoded map)
// come in as ParamSources; kernel_module_launch.cpp fills them from its allocations.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/module.h"
#include "scenarios/ir.h"

namespace tmasim::device {

using TensorMapBytes = std::array<uint8_t, 128>;  // a CUtensorMap as the driver encoded it

struct ParamSources {
    std::map<std::string, uint64_t> global_address;       // device address by global tensor name
    std::map<std::string, TensorMapBytes> tensor_map;      // encoding by tensor map name
};

// The entry's params, each at its Param::offset (ptx/module.h) in one buffer of
// entry.param_bytes() bytes, padding zero. `offsets[i]` is param i's place: cuLaunchKernelEx
// gets `bytes.data() + offsets[i]` as kernelParams[i] (the driver reads sizes from the image).
// A `global` param is the tensor's address plus its offset (little-endian), a `tensormap` the
// map's 128 bytes, a scalar or `bytes` param its little-endian bytes, a blob `size` bytes with
// each field at its offset. Throws ScenarioError naming `kernel.params[i]` (or its field) for a
// param that does not fit the PTX's (count, size, alignment), a name no declaration has, or an
// offset outside its tensor: the binding checked most of it, but the device writes these bytes
// and re-checks what it writes.
struct ParamBuffer {
    std::vector<uint8_t> bytes;
    std::vector<size_t> offsets;
};
ParamBuffer build_param_buffer(const Scenario& s, const ptx::Function& entry, const ParamSources& sources);

// The launch lists are outermost first (x is the last entry); the driver wants x, y, z.
struct LaunchDims {
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned cluster[3] = {1, 1, 1};
    int cluster_size() const { return static_cast<int>(cluster[0] * cluster[1] * cluster[2]); }
};
// Throws ScenarioError naming launch.grid / launch.cluster / launch.block for more than three
// dimensions, a zero or negative extent, or a grid extent the cluster's does not divide (the
// driver's rule for CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION).
LaunchDims launch_dims(const Launch& l);

// "grid [4] cluster [2] block 384, 132096 bytes of dynamic shared memory" (for messages).
std::string launch_text(const Launch& l);

}  // namespace tmasim::device
