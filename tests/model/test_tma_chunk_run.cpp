// TmaRequest::ChunkRun holds a load's chunks as the rule they are cut by; it must give
// each chunk exactly as the list it replaced did (CopyIssuer's loop, kept here).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "model/copy/tma_request.h"

using tmasim::model::TmaRequest;

namespace {
// The list CopyIssuer built before: chunk by chunk over `bytes`, the last one ending at `last`.
std::vector<TmaRequest::Chunk> chunk_list(int64_t first, int64_t last, int64_t bytes, int64_t chunk, int id) {
    std::vector<TmaRequest::Chunk> out;
    for (int64_t done = 0; done < bytes; done += chunk) {
        const int64_t chunk_last = done + chunk >= bytes ? last : std::min(last, first + done + chunk - 1);
        out.push_back(TmaRequest::Chunk{first + done, chunk_last, std::min(chunk, bytes - done), id++});
    }
    return out;
}
}  // namespace

TEST_CASE("a TMA load's chunk run gives the chunks of the list it replaced", "[model][tma]") {
    struct Case {
        int64_t first, last, bytes, chunk;
        int id;
    };
    // A 16 KB tile in 256-byte chunks; a size that leaves a short last chunk; a span wider
    // than the bytes (the last chunk ends at the span's end); one chunk; none.
    const std::vector<Case> cases = {{4096, 4096 + 16383, 16384, 256, 7},
                                     {128, 128 + 999, 1000, 256, 0},
                                     {0, 2047, 1536, 512, 3},
                                     {64, 79, 16, 256, 9},
                                     {0, -1, 0, 256, -1}};
    for (const Case& c : cases) {
        const TmaRequest::ChunkRun run(c.first, c.last, c.bytes, c.chunk, c.id);
        const auto list = chunk_list(c.first, c.last, c.bytes, c.chunk, c.id);
        REQUIRE(run.size() == list.size());
        CHECK(run.empty() == list.empty());
        for (size_t i = 0; i < list.size(); ++i) {
            const TmaRequest::Chunk got = run[i];
            CHECK(got.first == list[i].first);
            CHECK(got.last == list[i].last);
            CHECK(got.credit == list[i].credit);
            CHECK(got.write_id == list[i].write_id);
        }
    }
    CHECK(TmaRequest::ChunkRun().size() == 0);
}
