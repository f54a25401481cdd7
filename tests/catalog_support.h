#pragma once
// Helpers for tests that load catalog scenarios and look into what a backend returned.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/loader.h"
#include "scenarios/run_result.h"

namespace tmasim::test {

// scenarios/catalog/<rel>, loaded and validated.
inline Scenario catalog(const std::string& rel) {
    return load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/" + rel);
}

// The id of the op labelled `label`; fails the test if there is none.
inline int op_id(const Scenario& s, const std::string& label) {
    for (const Op* op : s.all_ops())
        if (op->label == label) return op->id;
    FAIL("no op labelled " << label);
    return -1;
}

// Every diagnostic's rule and message, one per line, for INFO() when a check fails.
inline std::string all_diagnostics(const RunResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += "\n  [" + d.rule + "] " + d.message;
    return out;
}

}  // namespace tmasim::test
