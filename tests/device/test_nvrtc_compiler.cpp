// NVRTC wrapper: the full log on failure, and the on-disk cubin cache.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "device/launch/nvrtc_compiler.h"

using namespace tmasim::device;
namespace fs = std::filesystem;

namespace {
const char* kTiny = "extern \"C\" __global__ void tiny(int* p) { p[threadIdx.x] = 1; }\n";
}

TEST_CASE("a compile error returns NVRTC's log", "[device][nvrtc]") {
    const CompileResult r = compile_cuda("extern \"C\" __global__ void broken() { undeclared_name(); }",
                                         "sm_90a", "-");
    CHECK_FALSE(r.ok);
    CHECK(r.cubin.empty());
    CHECK(r.log.find("undeclared_name") != std::string::npos);
    CHECK(r.log.find("sm_90a") != std::string::npos);
}

TEST_CASE("cubins are cached by source, target and NVRTC version", "[device][nvrtc]") {
    const fs::path dir = fs::temp_directory_path() /
                         ("tmasim-cache-test-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    const CompileResult first = compile_cuda(kTiny, "sm_90a", dir.string());
    REQUIRE(first.ok);
    CHECK_FALSE(first.from_cache);
    CHECK(fs::exists(first.cache_file));

    const CompileResult second = compile_cuda(kTiny, "sm_90a", dir.string());
    REQUIRE(second.ok);
    CHECK(second.from_cache);
    CHECK(second.cubin == first.cubin);

    const CompileResult other = compile_cuda(kTiny, "sm_100a", dir.string());
    REQUIRE(other.ok);
    CHECK_FALSE(other.from_cache);
    CHECK(other.cache_file != first.cache_file);
    fs::remove_all(dir);
}

TEST_CASE("an unusable cache directory is not an error", "[device][nvrtc]") {
    const CompileResult r = compile_cuda(kTiny, "sm_90a", "/proc/tmasim-cannot-create-this");
    CHECK(r.ok);
    CHECK_FALSE(r.from_cache);
}
