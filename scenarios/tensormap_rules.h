#pragma once
#include "scenarios/ir.h"

namespace tmasim {

// The encode rules of cuTensorMapEncodeTiled (semantics.md D27), checked at load time
// so that a bad map fails with its own message on every backend.
void check_tensormap_encode_rules(const TensorMap& map, const GlobalTensor& tensor);

}  // namespace tmasim
