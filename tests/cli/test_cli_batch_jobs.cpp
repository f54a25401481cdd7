// `tmasim run DIR -j N`: scenarios in worker processes, the rows, progress lines, traces and
// exit code those of -j 1.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "cli/batch_parallel.h"
#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;

namespace {

namespace fs = std::filesystem;

// The run times are the one thing that may differ between two batches.
std::string without_times(const std::string& text) {
    static const std::regex seconds(R"([0-9]+\.[0-9]+ ?s\b)");
    return std::regex_replace(text, seconds, "T");
}

}  // namespace

TEST_CASE("run DIR -j 3 prints what -j 1 prints and writes the same traces", "[cli][batch]") {
    // A folder with an ok run, hazards and a load error, so every kind of row is there.
    const std::string dir = scratch("jobs");
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* f : {"guide/bulk_add_one_1d.yaml", "hazards/compute_dsmem_unsynced.yaml",
                          "guide/tma_prefetch_pipeline.yaml", "races/cp_async_waw_other_thread.yaml",
                          "bench/tma_stream.yaml"}) {
        const fs::path src = fs::path(TMASIM_SOURCE_DIR) / "scenarios/catalog" / f;
        fs::copy_file(src, fs::path(dir) / fs::path(f).filename());
    }
    tmasim_test::write_file(dir + "/zz_broken.yaml", "scenario: [this is not one\n");
    const auto one = run_cli("run " + dir + " --backend model -j 1 -o " + dir + "_t1");
    const auto three = run_cli("run " + dir + " --backend model -j 3 -o " + dir + "_t3");
    INFO(one.out << three.out << three.err);
    CHECK(one.code == 2);  // the broken file is an error row
    CHECK(three.code == one.code);
    CHECK(without_times(three.out) == without_times(one.out));
    CHECK(three.out.find("zz_broken.yaml") != std::string::npos);
    size_t traces = 0;
    for (const auto& e : fs::directory_iterator(dir + "_t1")) {
        ++traces;
        const fs::path other = fs::path(dir + "_t3") / e.path().filename();
        REQUIRE(fs::exists(other));
        CHECK(read_file(e.path().string()) == read_file(other.string()));
    }
    CHECK(traces >= 4);
}

TEST_CASE("run -j rejects a negative count", "[cli][batch]") {
    CHECK(run_cli("run scenarios/catalog/bench --backend model -j -1").code == 2);
}

TEST_CASE("run -j hands out the largest scenarios first, by the model's work estimate", "[cli][batch]") {
    const std::string catalog = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/";
    const std::vector<tmasim::cli::BatchInput> inputs{
        {catalog + "bench/tma_stream.yaml", "bench/tma_stream.yaml"},
        {catalog + "no/such_file.yaml", "no/such_file.yaml"},
        {catalog + "layouts/full_chip/memcpy_1d_r1.yaml", "layouts/full_chip/memcpy_1d_r1.yaml"},
        {catalog + "guide/bulk_add_one_1d.yaml", "guide/bulk_add_one_1d.yaml"},
    };
    const std::vector<size_t> order = tmasim::cli::longest_first(inputs);
    REQUIRE(order.size() == 4);
    CHECK(order[0] == 2);  // the full-chip layout
    CHECK(order[1] == 0);  // a 128-tile stream before one bulk copy
    CHECK(order[2] == 3);
    CHECK(order[3] == 1);  // a file that does not load counts as no work
}

TEST_CASE("a device batch's workers take the GPUs CUDA_VISIBLE_DEVICES lists, else those the driver lists",
          "[cli][batch]") {
    using tmasim::cli::visible_gpus;
    const auto dir = std::filesystem::temp_directory_path() / "tmasim_visible_gpus";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "0000:19:00.0");
    std::filesystem::create_directories(dir / "0000:3b:00.0");
    CHECK(visible_gpus(nullptr, dir.string()) == std::vector<std::string>{"0", "1"});
    CHECK(visible_gpus("3,1", dir.string()) == std::vector<std::string>{"3", "1"});
    CHECK(visible_gpus("GPU-5c2a,,", dir.string()) == std::vector<std::string>{"GPU-5c2a"});
    CHECK(visible_gpus("", dir.string()).empty());  // CUDA's own reading: no GPU visible
    CHECK(visible_gpus(nullptr, (dir / "absent").string()).empty());
    std::filesystem::remove_all(dir);
}
