// Which arch config a scenario runs on, and the configs that cannot run it.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <stdexcept>
#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using tmasim::model::ArchConfig;
using namespace tmasim;
using test::catalog;

namespace {
std::string error_of_run(const Scenario& s, const std::string& arch) {
    ModelOptions o;
    o.arch = arch;
    try {
        run_model(s, o);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    FAIL("the model ran " << s.file << " on " << arch);
    return "";
}
}  // namespace

TEST_CASE("arch: each config names the generation it models", "[model][arch]") {
    CHECK(ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).sm() == "sm_90");
    CHECK(ArchConfig::load_named("h200", TMASIM_ARCH_DIR).sm() == "sm_90");
    const ArchConfig b200 = ArchConfig::load_named("b200", TMASIM_ARCH_DIR);
    CHECK(b200.sm() == "sm_100");
    // No Blackwell GPU was measured: every number says it is assumed, estimated or unused.
    for (const auto& [key, source] : b200.sources()) {
        INFO(key << ": " << source);
        CHECK((source.rfind("assumed equal to the H200", 0) == 0 || source.rfind("estimate", 0) == 0 ||
               source.rfind("not used", 0) == 0));
    }
    CHECK(b200.sources().size() == ArchConfig::load_named("h200", TMASIM_ARCH_DIR).sources().size());
}

TEST_CASE("arch: without --arch a scenario runs on its own generation's config", "[model][arch]") {
    CHECK(run_model(catalog("gluon/gather_f32_x8_y16_off0.yaml")).provenance.model_config == "b200");
    CHECK(run_model(catalog("guide/bulk_add_one_1d.yaml")).provenance.model_config == "h100-sxm");
}

TEST_CASE("arch: the model refuses a config whose GPU cannot run the scenario", "[model][arch]") {
    CHECK(error_of_run(catalog("gluon/gather_f32_x8_y16_off0.yaml"), "h200")
              .find("scenario needs sm_100 (Blackwell); model arch h200 is sm_90: use --arch b200") != std::string::npos);
    CHECK(error_of_run(catalog("wgmma/tma_wgmma_32b.yaml"), "b200")
              .find("wgmma exists on sm_90a only (Blackwell has tcgen05 instead); model arch b200 is sm_100") !=
          std::string::npos);
}
