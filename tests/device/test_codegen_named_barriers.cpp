// Codegen of the named barriers: bar.arrive and bar.sync become one call each of the
// barrier_arrive / barrier_sync wrappers (barrier.arrive / barrier.sync id, count; not
// .aligned, since producer and consumer warps reach them from different branches), with
// the id and the count the scenario gives, and the warp-specialized ring compiles.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include "device/emit/codegen.h"
#include "device_test_support.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

TEST_CASE("named barriers: one wrapper call per op, with its id and count", "[device][codegen][nvrtc]") {
    const Scenario s = tmasim::test::catalog("warpspec/ring_named_barriers.yaml");
    const std::string src = generate_kernel_source(s);
    const std::string body = src.substr(src.find("extern \"C\""));
    INFO(body);
    CHECK(body.find("barrier_arrive((unsigned)((long long)((2LL))), (unsigned)((long long)((384LL))));") !=
          std::string::npos);
    CHECK(body.find("barrier_sync((unsigned)((long long)((2LL))), (unsigned)((long long)((384LL))));") !=
          std::string::npos);
    CHECK(body.find("barrier_sync((unsigned)((long long)((1LL))), (unsigned)((long long)((256LL))));") !=
          std::string::npos);
    // The wrappers are the plain (not .aligned) forms.
    CHECK(src.find("asm volatile(\"barrier.sync %0, %1;\"") != std::string::npos);
    CHECK(src.find("asm volatile(\"barrier.arrive %0, %1;\"") != std::string::npos);
    require_compiles(src, "sm_90a");
}
