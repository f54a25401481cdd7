// MemoryImage::equals_init from the model: a global tensor the run only read is marked, so
// a trace may keep only its hash (traces/FORMAT.md, version 3); one the run wrote is not.
#include <catch2/catch.hpp>

#include "catalog_support.h"
#include "model/run/run_model.h"
#include "scenarios/values.h"
#include "scenarios/xxh64.h"

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

TEST_CASE("an unchanged input of 1 MiB on comes back as its XXH64 alone, or with its bytes on request",
          "[model][memory]") {
    // 2 MiB of f32 that the run only gathers rows of (gather4 reads the tensor whole).
    const Scenario s = catalog("gluon/gather_f32_x8_y16_off0.yaml");
    const GlobalTensor* input = nullptr;
    for (const GlobalTensor& t : s.globals)
        if (t.size_bytes() >= int64_t(kXxh64MinBytes)) input = &t;
    REQUIRE(input != nullptr);
    const std::vector<uint8_t> init = initial_bytes(*input);

    const RunResult digest = run_model(s);
    const MemoryImage& kept = global_image(digest, input->name);
    CHECK(kept.equals_init);
    if (kept.digest_only) {  // never needed whole
        CHECK(kept.bytes.empty());
        CHECK(image_hash(kept) == ImageHash{"xxh64", xxh64_hex(init.data(), init.size())});
    } else {
        CHECK(kept.bytes == init);
    }

    ModelOptions all;
    all.unchanged_input_bytes = true;
    const RunResult with_bytes = run_model(s, all);
    const MemoryImage& full = global_image(with_bytes, input->name);
    CHECK_FALSE(full.digest_only);
    CHECK(full.equals_init);
    CHECK(full.bytes == init);
    CHECK(with_bytes.events.size() == digest.events.size());
}

TEST_CASE("the stream's TMA loads read its large input without making it whole", "[model][memory]") {
    // bench/tma_stream with its input grown past kXxh64MinBytes: tensor boxes read ranges.
    Scenario s = catalog("bench/tma_stream.yaml");
    GlobalTensor& src = s.globals.front();
    while (src.size_bytes() < int64_t(kXxh64MinBytes)) src.shape.front() *= 2;
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& kept = global_image(r, src.name);
    REQUIRE(kept.digest_only);
    const std::vector<uint8_t> init = initial_bytes(src);
    CHECK(kept.digest_only->hex == xxh64_hex(init.data(), init.size()));
    // The stage buffers hold what the loads read: the same as from the whole tensor.
    ModelOptions all;
    all.unchanged_input_bytes = true;
    const RunResult whole = run_model(s, all);
    for (size_t i = 0; i < r.memory.size(); ++i)
        if (r.memory[i].space == "shared") CHECK(r.memory[i].bytes == whole.memory[i].bytes);
}
