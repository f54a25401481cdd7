#pragma once
// Helpers for tests that break one line of a valid scenario and check the loader's error.
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/loader.h"

namespace tmasim::test {

// `base` with its first occurrence of `from` replaced by `to` (the test fails if absent).
inline std::string with(const std::string& base, const std::string& from, const std::string& to) {
    std::string s = base;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

// The one-line message of loading `text` as `path`; fails the test if it loads.
inline std::string error_of(const std::string& text, const std::string& path) {
    try {
        load_scenario_text(text, path);
    } catch (const ScenarioError& e) {
        const std::string msg = e.what();
        CHECK(msg.find('\n') == std::string::npos);
        return msg;
    }
    FAIL("the scenario loaded without an error");
    return "";
}

}  // namespace tmasim::test
