#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.h"

using tmasim_test::scratch;
using tmasim_test::run_cli;

TEST_CASE("tmasim --help and every subcommand's --help exit 0", "[cli]") {
    auto r = run_cli("--help");
    CHECK(r.code == 0);
    for (const char* sub : {"validate", "run", "diff", "export", "report", "codegen"}) {
        CHECK(r.out.find(sub) != std::string::npos);
        auto s = run_cli(std::string(sub) + " --help");
        INFO(sub);
        CHECK(s.code == 0);
        CHECK(s.out.find("Usage:") != std::string::npos);
    }
    auto v = run_cli("--version");
    CHECK(v.code == 0);
    // The version and the commit the build was configured at (issue 39: it had no commit).
    CHECK(v.out.rfind(std::string("tmasim ") + TMASIM_VERSION + " (commit ", 0) == 0);
    CHECK(v.out.find(")\n") == v.out.size() - 2);
}

TEST_CASE("usage errors exit 2", "[cli]") {
    CHECK(run_cli("").code == 2);
    CHECK(run_cli("frobnicate").code == 2);
    // No --backend: the model, which needs no GPU (issue 39); the device is asked for.
    const auto model = run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml");
    CHECK(model.code == 0);
    CHECK(model.out.find("backend:     model") != std::string::npos);
    CHECK(run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml --backend gpu").code == 2);
    auto foreign = run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml --backend device --seed 3");
    CHECK(foreign.code == 2);
    CHECK(foreign.err.find("--seed applies to the model backend only") != std::string::npos);
    CHECK(run_cli("validate /nonexistent/scenario.yaml").code == 2);
    auto words = run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml --backend device --trace-words-in global");
    CHECK(words.code == 2);
    CHECK(words.err.find("--trace-words-in applies to the model backend only") != std::string::npos);
    CHECK(run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml --backend model --trace-words-in registers").code == 2);
}

TEST_CASE("validate accepts the catalog", "[cli]") {
    auto r = run_cli("validate scenarios/catalog/guide/bulk_add_one_1d.yaml scenarios/catalog/hazards/*.yaml");
    CHECK(r.code == 0);
    CHECK(r.out.find("scenarios/catalog/guide/bulk_add_one_1d.yaml: ok (scenario bulk_add_one_1d, 12 ops)") !=
          std::string::npos);
}

TEST_CASE("validate rejects a malformed scenario with file:line:col on stderr", "[cli]") {
    std::string good = tmasim_test::read_file(std::string(TMASIM_SOURCE_DIR) +
                                              "/scenarios/catalog/guide/bulk_add_one_1d.yaml");
    REQUIRE_FALSE(good.empty());
    std::string bad = good + "bogus_key: 1\n";
    int bad_line = 1;
    for (char c : good) bad_line += c == '\n';
    std::string path = scratch("malformed.yaml");
    tmasim_test::write_file(path, bad);

    auto r = run_cli("validate '" + path + "'");
    CHECK(r.code == 2);
    CHECK(r.err.find(path + ":" + std::to_string(bad_line) + ":1: error: ") != std::string::npos);
    CHECK(r.err.find("bogus_key") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line

    // Every file is checked: a bad one does not hide the files after it, good or bad, and
    // any bad one makes the exit code 2.
    std::string other = scratch("malformed_other.yaml");
    tmasim_test::write_file(other, good + "launch_bogus: 2\n");
    auto all = run_cli("validate '" + path + "' scenarios/catalog/guide/bulk_add_one_1d.yaml '" + other +
                       "' /nonexistent/scenario.yaml");
    CHECK(all.code == 2);
    CHECK(all.out.find("bulk_add_one_1d.yaml: ok") != std::string::npos);
    CHECK(all.err.find(path + ":" + std::to_string(bad_line) + ":1: error: ") != std::string::npos);
    CHECK(all.err.find(other + ":" + std::to_string(bad_line) + ":1: error: ") != std::string::npos);
    CHECK(all.err.find("/nonexistent/scenario.yaml:0:0: error: ") != std::string::npos);
    CHECK(all.err.find("tmasim: 3 of 4 files are invalid") != std::string::npos);
}

TEST_CASE("validate DIR checks every scenario run DIR would run", "[cli]") {
    const auto dir = run_cli("validate scenarios/catalog/teach");
    INFO(dir.err);
    CHECK(dir.code == 0);
    CHECK(dir.out.find("scenarios/catalog/teach/01_tma_load_ok.yaml: ok") != std::string::npos);
    size_t oks = 0;
    for (size_t at = dir.out.find(": ok ("); at != std::string::npos; at = dir.out.find(": ok (", at + 1)) ++oks;
    CHECK(oks >= 20);
    // The refused examples are a folder named invalid: given as the directory, each is checked.
    const auto invalid = run_cli("validate scenarios/catalog/invalid");
    CHECK(invalid.code == 2);
    CHECK(invalid.err.find(" files are invalid") != std::string::npos);
}

TEST_CASE("codegen --cubin keeps the NVRTC-compiled kernel and needs --compile", "[cli]") {
    const std::string cubin = scratch("bulk_add_one_1d.cubin");
    CHECK(run_cli("codegen scenarios/catalog/guide/bulk_add_one_1d.yaml -q --cubin '" + cubin + "'").code == 2);
    const auto r = run_cli("codegen scenarios/catalog/guide/bulk_add_one_1d.yaml -q --compile sm_90a --cubin '" + cubin + "'");
    if (r.code == 2 && r.err.find("was not built") != std::string::npos) {
        WARN("SKIPPED: this tmasim was configured without the CUDA toolkit (no NVRTC): " << r.err);
        return;
    }
    REQUIRE(r.code == 0);
    std::ifstream in(cubin, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(bytes.substr(0, 4) == "\x7f" "ELF");
    // The size codegen reports is the size of the file it wrote.
    CHECK(r.err.find("(" + std::to_string(bytes.size()) + " bytes of cubin") != std::string::npos);
}
