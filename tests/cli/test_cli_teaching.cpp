// `tmasim run` teaches: the scenario's summary, and under each broken rule the op's
// file:line, why the rule exists, and a fix in the scenario's own terms.
#include <catch2/catch.hpp>

#include "cli_runner.h"

using tmasim_test::run_cli;

namespace {
// The printed text re-wrapped onto one line, so checks do not depend on line breaks.
std::string unwrapped(const std::string& text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\n') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        out += c;
        space = false;
    }
    return out;
}
}  // namespace

TEST_CASE("teach/07: run prints the summary, the op's line and a fix naming the writing op", "[cli][teach]") {
    const auto r = run_cli("run scenarios/catalog/teach/07_store_no_fence.yaml --backend model");
    REQUIRE(r.code == 0);
    const std::string out = unwrapped(r.out);
    CHECK(out.find("about: Threads write the tile with st.shared") != std::string::npos);
    CHECK(out.find("at: scenarios/catalog/teach/07_store_no_fence.yaml:18:5 (op #2 tma.store, 'store')") !=
          std::string::npos);
    CHECK(out.find("fix: Add {op: fence.proxy.async} after op #0 shared.store 'write' (line 16) in threads 0-63, "
                   "before op #1 sync (line 17)") != std::string::npos);
    CHECK(out.find("tmasim explain proxy.generic_to_async") != std::string::npos);
}

TEST_CASE("teach/08c: the fix says the fence is there but before the sync", "[cli][teach]") {
    const auto r = run_cli("run scenarios/catalog/teach/08c_fence_placement.yaml --backend model");
    REQUIRE(r.code == 0);
    const std::string out = unwrapped(r.out);
    CHECK(out.find("op #1 fence.proxy.async (line 17) is there but runs before op #2 sync (line 18)") !=
          std::string::npos);
}

TEST_CASE("explain: a known rule prints why and fix, an unknown one exits 2", "[cli][teach]") {
    const auto known = run_cli("explain race.early_pass");
    CHECK(known.code == 0);
    CHECK(known.out.find("fix:") != std::string::npos);
    CHECK(known.out.find("docs/semantics.md A4") != std::string::npos);
    const auto unknown = run_cli("explain race.nope");
    CHECK(unknown.code == 2);
    CHECK(unknown.err.find("unknown rule id 'race.nope'") != std::string::npos);
}
