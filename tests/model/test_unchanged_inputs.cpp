// MemoryImage::equals_init from the model: a global tensor the run only read is marked, so
// a trace may keep only its hash (traces/FORMAT.md, version 3); one the run wrote is not.
#include <catch2/catch.hpp>

#include "catalog_support.h"
#include "model/run/run_model.h"
#include "scenarios/values.h"

using namespace tmasim;
using tmasim::test::catalog;

namespace {
const MemoryImage& global_image(const RunResult& r, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == "global" && m.name == name) return m;
    FAIL("no global image " << name);
    throw;
}
}  // namespace

TEST_CASE("a tensor TMA only loads from keeps its declared init, one a TMA store wrote does not",
          "[model][memory]") {
    const Scenario stream = catalog("bench/tma_stream.yaml");
    const RunResult read_only = run_model(stream);
    REQUIRE(read_only.outcome == Outcome::ok);
    const MemoryImage& src = global_image(read_only, "src");
    CHECK(src.equals_init);
    CHECK(src.bytes == initial_bytes(stream.globals.front()));  // the mark is true to the bytes

    const RunResult modified = run_model(catalog("guide/tma_2d_load_modify_store.yaml"));
    REQUIRE(modified.outcome == Outcome::ok);
    CHECK_FALSE(global_image(modified, "A").equals_init);
    // Shared buffers are never marked: they have no declared init to stand for them.
    for (const MemoryImage& m : modified.memory)
        if (m.space != "global") CHECK_FALSE(m.equals_init);
}
