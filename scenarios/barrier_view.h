#pragma once
// Barriers declared in the bytes of a shared buffer (`barriers: {bar: {at: "stage[1]",
// offset: 0}}`): the loader's reading and checking of the view. The model checks what the
// bytes are used for while the barrier lives (semantics.md A11); here only where they are.
#include "scenarios/ir.h"
#include "scenarios/yaml_access.h"

namespace tmasim {

// Reads `at` and `offset` of barrier declaration `d` (its `array` already read) into it.
// `sc.shared` must hold the buffers declared so far. Throws ScenarioError at the key for a
// buffer that is not declared, an element outside its array, an offset that is not a
// multiple of 8 or barriers reaching past the element, and `offset` without `at`.
void read_barrier_view(MapReader& m, BarrierDecl& d, const Scenario& sc);

// Throws ScenarioError at the later declaration when two views share bytes: the model
// keeps one state per barrier, and two live barriers in one word is no program.
void check_barrier_views(const Scenario& sc);

}  // namespace tmasim
