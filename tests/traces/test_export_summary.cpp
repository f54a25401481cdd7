#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sample_run.h"
#include "traces/chrome_export.h"
#include "traces/summary.h"

using namespace tmasim;

TEST_CASE("chrome export: slices for op spans, instants for model-only events", "[traces][export]") {
    std::ostringstream out;
    write_chrome_trace(tmasim_test::sample_run(), out, {{0, "tma.load"}, {1, "mbarrier.wait"}});
    auto doc = nlohmann::json::parse(out.str());
    const auto& events = doc.at("traceEvents");
    int slices = 0, instants = 0, meta = 0;
    for (const auto& e : events) {
        std::string ph = e.at("ph");
        if (ph == "X" && e.at("cat") == "op") {
            ++slices;
            if (e.at("name") == "mbarrier.wait #1[0][1]") {
                CHECK(e.at("args").at("cycles") == 290);
                CHECK(e.at("dur").get<double>() == Approx(290.0 / 1980));
            }
        }
        if (ph == "i") {
            ++instants;
            CHECK(e.at("name") == "phase_flip (mbarrier.wait #1[0][1])");
            CHECK(e.at("args").at("barrier") == "full[1]");
        }
        if (ph == "M") ++meta;
    }
    CHECK(slices == 2);
    CHECK(instants == 1);
    // The CTA's process name and sort index, warp 0's thread name and sort index, and the
    // barrier track's name and sort index.
    CHECK(meta == 6);
    CHECK(doc.at("otherData").at("outcome") == "hazard");
}

TEST_CASE("summary names the scenario, outcome, diagnostics, ops and memory", "[traces][summary]") {
    std::ostringstream out;
    print_summary(tmasim_test::sample_run(), out, {{0, "tma.load"}, {1, "mbarrier.wait"}});
    std::string s = out.str();
    CHECK(s.find("scenario:    sample") != std::string::npos);
    CHECK(s.find("outcome:     hazard") != std::string::npos);
    CHECK(s.find("hazard proxy.generic_to_async at op #1[0][1] (cta 0): #1 tma.store reads tile") != std::string::npos);
    CHECK(s.find("mbarrier.wait") != std::string::npos);
    CHECK(s.find("events:      5 (1 model-only) in 1 CTA(s)") != std::string::npos);
    CHECK(s.find("global A") != std::string::npos);
    CHECK(s.find("shared tile (cta 0)") != std::string::npos);
}
