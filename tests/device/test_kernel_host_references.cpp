// The kernel catalog's host references (tests/model/kernel_references.cpp) compiled into the
// device tests too: test_kernel_catalog_gpu.cpp compares the GPU's memory with them. They stay
// where the model's tests keep them; both programs compile the same file.
#include "../model/kernel_references.cpp"

#include <catch2/catch.hpp>

#include "kernel_test_support.h"

TEST_CASE("the host references cover every correct kernel of the catalog, by tensor", "[device][kernel_catalog]") {
    int covered = 0;
    for (const tmasim::Scenario& s : tmasim::device::test::loadable_kernels()) {
        if (s.expect.outcome != tmasim::Outcome::ok) continue;
        INFO(s.name);
        const auto ref = kernel_reference(s);
        CHECK(!ref.empty());
        for (const auto& [name, bytes] : ref) {
            const tmasim::GlobalTensor* g = s.find_global(name);
            REQUIRE(g);
            CHECK(static_cast<int64_t>(bytes.size()) == g->size_bytes());
        }
        ++covered;
    }
    CHECK(covered == 16);
}
