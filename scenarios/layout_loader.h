#pragma once
// Readers of the `layouts:` and `tiles:` sections (FORMAT.md, "Layouts"). Errors are
// ScenarioErrors at the offending key.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/yaml_access.h"

namespace tmasim {

// Elements of a tile, of a linear layout's own shape and of `tmasim layout --shape`: each
// extent is at most 65536, and their product is bounded too (16384 x 16384 grew the layout
// command to 3.7 GiB).
constexpr int64_t kMaxTileElements = int64_t(1) << 16;

// One entry of `layouts:`; a slice may name a layout declared before it in `earlier`.
LayoutDecl read_layout_decl(const std::string& name, MapReader& m, const SourceLoc& loc,
                            const std::vector<LayoutDecl>& earlier);
// One entry of `tiles:`; its layout must be a register layout of `layouts`.
TileDecl read_tile_decl(const std::string& name, MapReader& m, const SourceLoc& loc, const Scenario& sc);

}  // namespace tmasim
