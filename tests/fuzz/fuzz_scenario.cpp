// libFuzzer target: any bytes through the scenario loader and validator. A ScenarioError
// is the expected answer to bad input; a crash, a sanitizer report, another exception, a
// timeout or running out of memory is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "scenarios/loader.h"
#include "scenarios/work_estimate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const tmasim::Scenario s = tmasim::load_scenario_text(text, "fuzz.yaml");
        // What `tmasim run` does next, before a backend runs: the work bound.
        tmasim::check_work_limit(s, 100000000, "--max-work");
    } catch (const tmasim::ScenarioError&) {
    }
    return 0;
}
