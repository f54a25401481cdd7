// The parent of a device run that it had to kill (a hang the kernel's watchdog did not end)
// writes the trace itself, with the provenance the child left before its launch: without the
// GPU and its clock the strict trace reader refused the recording.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "cli/device_child.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_device_child {

namespace {
std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = std::string("/tmp/tmasim-test-") + name;
    std::ofstream(path) << text;
    return path;
}
}  // namespace

TEST_CASE("a killed device run's trace keeps the provenance its child left", "[cli]") {
    const std::string path = write_file("provenance-ok.txt",
                                        "NVIDIA H200\n1980\n580.159.04\n13.0\ntrace_level=all\nwatchdog_s=1.0\n");
    Provenance p;
    p.backend = "device";
    cli::apply_child_provenance(path, p);
    CHECK(p.gpu == "NVIDIA H200");
    CHECK(p.sm_clock_mhz == 1980);
    CHECK(p.driver == "580.159.04");
    CHECK(p.cuda == "13.0");
    CHECK(p.extra.at("trace_level") == "all");
    CHECK(p.extra.at("watchdog_s") == "1.0");
    std::remove(path.c_str());
}

TEST_CASE("a child that died before it knew its GPU leaves the provenance as it was", "[cli]") {
    Provenance p;
    p.gpu = "";
    cli::apply_child_provenance("/tmp/tmasim-test-no-such-provenance.txt", p);
    CHECK(p.gpu.empty());
    CHECK(p.sm_clock_mhz == 0);
    for (const char* text : {"NVIDIA H200\n", "NVIDIA H200\nfast\nd\nc\n", "NVIDIA H200\n0\nd\nc\n", "\n1980\nd\nc\n"}) {
        INFO(text);
        const std::string path = write_file("provenance-bad.txt", text);
        Provenance q;
        cli::apply_child_provenance(path, q);
        CHECK(q.gpu.empty());
        CHECK(q.sm_clock_mhz == 0);
        std::remove(path.c_str());
    }
}

}  // namespace test_device_child
