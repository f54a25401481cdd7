// --ncu: the counters are read from ncu's CSV output, whose fields are quoted and may hold
// commas; other lines of the log (==PROF==, the run's own output) are ignored.
#include <catch2/catch.hpp>

#include "cli/ncu_run.h"
#include "cli_runner.h"

TEST_CASE("ncu CSV output gives one value per metric", "[cli][ncu]") {
    const std::string log =
        "==PROF== Connected to process 4242 (/x/tmasim)\n"
        "scenario:    bank_conflicts\n"
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
        "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
        "\"Metric Value\"\n"
        "\"0\",\"4242\",\"tmasim\",\"127.0.0.1\",\"tmasim_scenario_kernel\",\"1\",\"7\",\"(128, 1, 1)\","
        "\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
        "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\",\"\",\"28\"\n"
        "\"0\",\"4242\",\"tmasim\",\"127.0.0.1\",\"tmasim_scenario_kernel\",\"1\",\"7\",\"(128, 1, 1)\","
        "\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
        "\"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum\",\"\",\"1,024\"\n"
        "==PROF== Disconnected from process 4242\n";
    const auto metrics = tmasim::cli::parse_ncu_csv(log);
    REQUIRE(metrics.size() == 2);
    CHECK(metrics[0].first == "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    CHECK(metrics[0].second == "28");
    CHECK(metrics[1].second == "1,024");
    CHECK(tmasim::cli::parse_ncu_csv("==PROF== nothing profiled\n").empty());
}

TEST_CASE("run with ncu needs the device backend and one scenario", "[cli][ncu]") {
    auto model = tmasim_test::run_cli("run scenarios/catalog/guide/bulk_add_one_1d.yaml --backend model --ncu");
    CHECK(model.code == 2);
    CHECK(model.err.find("--ncu applies to --backend device only") != std::string::npos);
    auto batch = tmasim_test::run_cli("run scenarios/catalog/guide --backend device --ncu");
    CHECK(batch.code == 2);
    CHECK(batch.err.find("not a batch") != std::string::npos);
}
