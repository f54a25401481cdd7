// Every catalog scenario's kernel compiles for sm_90a (and sm_100a), and the generated
// source never contains text copied from the YAML.
#include <catch2/catch.hpp>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

TEST_CASE("catalog scenarios generate kernels that NVRTC compiles for sm_90a and sm_100a",
          "[device][codegen][nvrtc]") {
    const std::vector<std::string> files = catalog_files();
    REQUIRE(files.size() >= 4);
    for (const std::string& file : files) {
        DYNAMIC_SECTION(file) {
            const Scenario s = load_scenario_file(file);
            const std::string src = generate_kernel_source(s);
            for (const char* target : {"sm_90a", "sm_100a"}) {
                INFO("target " << target);
                require_compiles(src, target);
            }
        }
    }
}

namespace {

// Renames everything the YAML names; the generated source must not change.
Scenario renamed(Scenario s) {
    auto rename = [](std::string& n) { n = "zz_renamed_" + n; };
    rename(s.name);
    s.summary = "other summary";
    s.source = "other source";
    for (GlobalTensor& g : s.globals) rename(g.name);
    for (TensorMap& m : s.tensormaps) {
        rename(m.name);
        rename(m.tensor);
    }
    for (SharedBuffer& b : s.shared) rename(b.name);
    for (BarrierDecl& b : s.barriers) {
        rename(b.name);
        if (b.is_view()) rename(b.at_buffer);  // a barrier in a buffer's bytes names the buffer
    }
    for (AccumulatorDecl& a : s.accumulators) rename(a.name);
    for (LayoutDecl& l : s.layouts) rename(l.name);
    for (TileDecl& t : s.tiles) {
        rename(t.name);
        rename(t.layout);
    }
    std::function<void(std::vector<Op>&)> ops = [&](std::vector<Op>& list) {
        for (Op& op : list) {
            if (!op.label.empty()) rename(op.label);
            for (Ref* r : {&op.barrier, &op.dst, &op.src, &op.buffer, &op.a, &op.b})
                if (!r->name.empty()) rename(r->name);
            if (!op.map.empty()) rename(op.map);
            if (!op.global.empty()) rename(op.global);
            if (!op.acc.empty()) rename(op.acc);
            for (std::string* n : {&op.tile, &op.to_tile, &op.shared_layout})
                if (!n->empty()) rename(*n);
            ops(op.body);
        }
    };
    ops(s.program);
    return s;
}

}  // namespace

TEST_CASE("generated source contains no YAML names, labels or expression text",
          "[device][codegen]") {
    for (const std::string& file : catalog_files()) {
        DYNAMIC_SECTION(file) {
            const Scenario s = load_scenario_file(file);
            const std::string src = generate_kernel_source(s);
            // Names become indices: renaming every one of them changes nothing.
            CHECK(generate_kernel_source(renamed(s)) == src);
            for (const std::string& text : {s.name, std::string("smem_buffer"),
                                            std::string("smem_data"), std::string("mapA")})
                CHECK(src.find(text) == std::string::npos);
            for (const Op* op : s.all_ops()) {
                // The form a label would take in a comment: "#5 tma.load (label)".
                if (!op->label.empty()) CHECK(src.find("(" + op->label + ")") == std::string::npos);
                // (A one-token fn such as "1" or "idx" occurs in any kernel; only longer text
                // can show that the YAML was pasted in.)
                if (!op->fn.empty() && op->fn.text().size() >= 5)
                    CHECK(src.find(op->fn.text()) == std::string::npos);
            }
            CHECK(src.find("x + idx") == std::string::npos);
            CHECK(src.find("x + 1") == std::string::npos);
        }
    }
}

TEST_CASE("tma coordinates are reversed to fastest-first", "[device][codegen]") {
    const Scenario s = load_scenario_file(source_dir() +
                                          "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    const std::string src = generate_kernel_source(s);
    // YAML coords [16, 64] (row 16, column 64): PTX gets {64, 16}.
    // The load is the elected producer's, guarded (ptx_wrappers_guarded.cpp): the guard comes first.
    const size_t load = src.find("cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(PtxGuard{");
    REQUIRE(load != std::string::npos);
    const std::string load_line = src.substr(load, src.find('\n', load) - load);
    CHECK(load_line.find("smem_base + 0u, &tmap0, (int)((long long)((64LL))), (int)((long long)((16LL)))") !=
          std::string::npos);
    CHECK(src.find("cp_async_bulk_tensor_2d_global_shared_cta_tile_bulk_group(&tmap0, "
                   "(int)((long long)((64LL))), (int)((long long)((16LL))), smem_base + 0u)") !=
          std::string::npos);
}
