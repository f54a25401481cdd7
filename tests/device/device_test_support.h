#pragma once
// Helpers shared by the device tests: the catalog, and NVRTC compiles that print the log.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "device/launch/nvrtc_compiler.h"

namespace tmasim::device::test {

inline std::string source_dir() { return TMASIM_SOURCE_DIR; }

// Every catalog scenario file that loads, sorted (guide/, hazards/, ...). Files under
// catalog/invalid/ are meant to fail loading (tensor-map encode rules) and are skipped.
inline std::vector<std::string> catalog_files() {
    std::vector<std::string> files;
    const auto root = std::filesystem::path(source_dir()) / "scenarios" / "catalog";
    for (const auto& e : std::filesystem::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().extension() == ".yaml" &&
            e.path().lexically_relative(root).begin()->string() != "invalid" &&
            e.path().lexically_relative(root).begin()->string() != "kernels")  // kernel scenarios: test_kernel_catalog.cpp
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

// Compiles without the cubin cache (so the test really runs NVRTC) and fails with the log.
inline CompileResult require_compiles(const std::string& source, const std::string& target) {
    CompileResult r = compile_cuda(source, target, "-");
    if (!r.ok) {
        INFO("NVRTC log:\n" << r.log);
        FAIL("NVRTC compile failed for " << target);
    }
    REQUIRE(!r.cubin.empty());
    return r;
}

}  // namespace tmasim::device::test
