#pragma once
// Host references for the kernel catalog (scenarios/catalog/kernels/): what each correct kernel
// leaves in global memory, computed from the scenario's initial bytes.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"

// The final contents of the global tensors a correct catalog kernel writes, computed on the
// host from the scenario's initial bytes (scenarios/values.h: initial_bytes(const GlobalTensor&)).
// Returns tensor name -> expected bytes; throws std::out_of_range for a scenario with no reference.
std::map<std::string, std::vector<uint8_t>> kernel_reference(const tmasim::Scenario& s);
// For outputs that are not bit-exact across accumulation orders (wgmma): the bound in ulps the
// test allows per element, by tensor name (absent: 0, byte-exact).
std::map<std::string, int> kernel_reference_ulp_bounds(const tmasim::Scenario& s);
// Distance in units in the last place between two f32 values, as ordered integers (so -0 and +0
// are 0 apart and values of opposite sign count across zero).
int64_t f32_ulp_distance(float a, float b);
