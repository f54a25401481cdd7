// compute-sanitizer's reports read into findings, and their kernel lines mapped to the
// scenario's ops, on reports kept in files (hand-written samples in
// tests/device/sanitizer_reports/, recordings under traces/recorded/<gpu>/sanitizer/reports/).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/sanitizer/sanitizer_ops.h"
#include "device/sanitizer/sanitizer_report.h"
#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const fs::path kSource = TMASIM_SOURCE_DIR;

// "hand_written.races.shared_raw_no_barrier.racecheck.txt" -> races/shared_raw_no_barrier.yaml;
// "<gpu>/sanitizer/reports/races/shared_raw_no_barrier.racecheck.txt" likewise.
fs::path scenario_of(const fs::path& report) {
    std::string name = report.filename().string();
    name = name.substr(0, name.find(".racecheck.txt"));
    if (name.rfind("hand_written.", 0) == 0) {
        name = name.substr(std::string("hand_written.").size());
        std::replace(name.begin(), name.end(), '.', '/');
        return kSource / "scenarios/catalog" / (name + ".yaml");
    }
    fs::path dir = report.parent_path();
    std::vector<std::string> parts;
    while (dir.filename() != "reports" && dir.has_relative_path()) {
        parts.insert(parts.begin(), dir.filename().string());
        dir = dir.parent_path();
    }
    fs::path out = kSource / "scenarios/catalog";
    for (const std::string& p : parts) out /= p;
    return out / (name + ".yaml");
}

std::vector<fs::path> racecheck_reports() {
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(kSource / "tests/device/sanitizer_reports"))
        if (e.path().string().find(".racecheck.txt") != std::string::npos) found.push_back(e.path());
    for (const auto& gpu : fs::directory_iterator(kSource / "traces/recorded")) {
        const fs::path reports = gpu.path() / "sanitizer" / "reports";
        if (!fs::is_directory(reports)) continue;
        for (const auto& e : fs::recursive_directory_iterator(reports))
            if (e.path().string().find(".racecheck.txt") != std::string::npos) found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

}  // namespace

TEST_CASE("racecheck's hazard and analysis records are read with threads, blocks and lines", "[sanitizer]") {
    const SanitizerReport r = parse_sanitizer_report(
        slurp(kSource / "tests/device/sanitizer_reports/hand_written.races.shared_raw_no_barrier.racecheck.txt"));
    REQUIRE(r.findings.size() == 5);
    CHECK(r.has_summary);
    CHECK(r.summary_count == 5);
    const SanitizerFinding& h = r.findings[1];
    CHECK(h.kind == SanitizerFinding::Kind::hazard);
    CHECK(h.severity == "error");
    CHECK(h.hazard == "RAW");
    CHECK(h.address == "__shared__ 0x404");
    CHECK(h.block == std::array<int, 3>{0, 0, 0});
    REQUIRE(h.accesses.size() == 2);
    CHECK(h.accesses[0].type == "Write");
    CHECK(h.accesses[0].thread == std::array<int, 3>{1, 0, 0});
    CHECK(h.accesses[0].at.function == "tmasim_scenario_kernel");
    CHECK(h.accesses[0].at.pc == "0x5f0");
    CHECK(h.accesses[0].at.file == "tmasim_op_0.cu");
    CHECK(h.accesses[0].at.line == 4);
    CHECK(h.accesses[1].type == "Read");
    CHECK(h.accesses[1].thread == std::array<int, 3>{33, 0, 0});
    CHECK(h.accesses[1].at.line == 6);
    CHECK(r.findings[3].accesses.at(0).at.file == "tmasim_wrapper_st_volatile_shared_b32.cu");
    const SanitizerFinding& race = r.findings[4];
    CHECK(race.kind == SanitizerFinding::Kind::race);
    REQUIRE(race.accesses.size() == 2);
    CHECK(race.accesses[1].hazards == 128);
    CHECK(race.accesses[1].thread[0] == -1);
}

TEST_CASE("the other tools' reports and the older location spelling are read", "[sanitizer]") {
    const SanitizerReport r = parse_sanitizer_report(
        "========= COMPUTE-SANITIZER\n"
        "program output that is not the tool's\n"
        "========= Warning: (Warp Level Programming) Potential WAR hazard detected at __shared__ 0x3 in block (2, 0, 0) :\n"
        "=========     Read Thread (31, 0, 0) at 0x00000170 in ./race.cu:4:test(int*, int*)\n"
        "=========     Write Thread (0, 0, 0) at 0x000001a8 in ./race.cu:5:test(int*, int*)\n"
        "=========\n"
        "========= Barrier error detected. Divergent thread(s) in warp\n"
        "=========     at k(int *, int)+0xf0 in divergence.cu:79\n"
        "=========     by thread (37,0,0) in block (1,0,0)\n"
        "=========\n"
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at k()+0x160 in tmasim_wrappers.cu:6\n"
        "=========     by thread (0,0,0) in block (0,0,0)\n"
        "=========     Address 0x7f6510c00001 is misaligned\n"
        "=========     Device Frame: tmasim_scenario_kernel+0x30 in tmasim_kernel.cu:44\n"
        "=========\n"
        "========= Uninitialized __global__ memory read of size 4 bytes\n"
        "=========     at k()+0x88\n"
        "=========     by thread (5,0,0) in block (0,0,0)\n"
        "========= ERROR SUMMARY: 3 errors\n");
    REQUIRE(r.findings.size() == 4);
    const SanitizerFinding& war = r.findings[0];
    CHECK(war.severity == "warning");
    CHECK(war.hazard == "WAR");
    CHECK(war.block == std::array<int, 3>{2, 0, 0});
    REQUIRE(war.accesses.size() == 2);
    CHECK(war.accesses[0].at.pc == "0x00000170");
    CHECK(war.accesses[0].at.file == "./race.cu");
    CHECK(war.accesses[0].at.line == 4);
    CHECK(war.accesses[0].at.function == "test(int*, int*)");
    const SanitizerFinding& barrier = r.findings[1];
    CHECK(barrier.kind == SanitizerFinding::Kind::barrier);
    REQUIRE(barrier.accesses.size() == 1);
    CHECK(barrier.accesses[0].thread == std::array<int, 3>{37, 0, 0});
    CHECK(barrier.block == std::array<int, 3>{1, 0, 0});
    CHECK(barrier.accesses[0].at.line == 79);
    const SanitizerFinding& access = r.findings[2];
    CHECK(access.kind == SanitizerFinding::Kind::access);
    CHECK(access.accesses.at(0).type == "Write");
    CHECK(access.address == "__global__ 0x7f6510c00001");
    REQUIRE(access.frames.size() == 1);
    CHECK(access.frames[0].line == 44);
    CHECK(r.findings[3].kind == SanitizerFinding::Kind::uninitialized);
    CHECK(r.findings[3].accesses.at(0).at.pc == "0x88");
    CHECK(r.summary_count == 3);
}

TEST_CASE("numbers past int's range in a report read as unknown, not as an exception", "[sanitizer]") {
    const SanitizerReport r = parse_sanitizer_report(
        "========= Error: Potential RAW hazard detected at __shared__ 0x0 in block (99999999999,0,0) :\n"
        "=========     Write Thread (0,0,0) at k+0x10 in tmasim_kernel.cu:123456789012\n"
        "========= RACECHECK SUMMARY: 123456789012345678901 hazards displayed (1 error, 0 warnings)\n");
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].block[0] == -1);
    CHECK(r.findings[0].accesses.at(0).at.line == -1);
    CHECK(r.summary_count == -1);
}

TEST_CASE("a cluster launch's hazard names each access's block rank", "[sanitizer]") {
    const SanitizerReport r = parse_sanitizer_report(
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Potential WAR hazard detected at __shared__ 0x400 in block (0,0,0) :\n"
        "=========     Read Thread (0,0,0) (block rank 0) at ld_volatile_shared_b32__op2(unsigned int)+0x860 in "
        "tmasim_op_2.cu:3\n"
        "=========     Write Thread (1,0,0) (block rank 1) at st_volatile_shared_cluster_b32__op0(unsigned int, "
        "unsigned int)+0x790 in tmasim_op_0.cu:2\n"
        "=========     Current Value : 0, Incoming Value : 232\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
    REQUIRE(r.findings.size() == 1);
    REQUIRE(r.findings[0].accesses.size() == 2);
    CHECK(r.findings[0].accesses[0].block_rank == 0);
    CHECK(r.findings[0].accesses[1].block_rank == 1);
    CHECK(r.findings[0].accesses[1].thread == std::array<int, 3>{1, 0, 0});
    CHECK(r.findings[0].accesses[1].at.file == "tmasim_op_0.cu");
    CHECK(r.findings[0].accesses[1].at.function == "st_volatile_shared_cluster_b32__op0(unsigned int, unsigned int)");
}

TEST_CASE("a racecheck race between ops of one single thread is not compared", "[sanitizer]") {
    const Scenario s = load_scenario_file((kSource / "scenarios/catalog/teach/13b_inval_reinit.yaml").string());
    const SanitizerReport report = parse_sanitizer_report(
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Race reported between Write access at mbarrier_init_shared_cta_b64__op2(unsigned int, "
        "unsigned int)+0x10 in tmasim_op_2.cu:2\n"
        "=========     and Read access at mbarrier_arrive_shared_cta_b64__op3(unsigned int)+0x20 in tmasim_op_3.cu:3\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
    const std::vector<Diagnostic> d =
        sanitizer_diagnostics(report, "racecheck", KernelLineMap(generate_kernel_source(s)), s);
    REQUIRE(d.size() == 1);
    CHECK(d[0].detail.at("ops") == "2,3");
    CHECK(d[0].detail.count("outside_tool") == 1);
    CHECK(d[0].message.find("every op it names runs on one thread") != std::string::npos);
}

TEST_CASE("kernel lines map to the op whose code holds them, wrapper lines through device frames",
          "[sanitizer]") {
    const Scenario s = load_scenario_file((kSource / "scenarios/catalog/races/shared_raw_no_barrier.yaml").string());
    const std::string source = generate_kernel_source(s);
    const KernelLineMap map(source);
    // Find the lines the way the sanitizer counts them: from each #line directive on.
    std::istringstream in(with_line_directives(source));
    std::string file;
    int line_no = 0, kernel_lines = 0;
    std::pair<std::string, int> store, load;
    for (std::string line; std::getline(in, line);) {
        static const std::regex directive(R"re(^#line (\d+) "(.*)"$)re");
        if (std::smatch m; std::regex_match(line, m, directive)) {
            file = m[2].str();
            line_no = std::stoi(m[1].str());
            continue;
        }
        if (line.find("st_volatile_shared_b32__op0(addr") != std::string::npos) store = {file, line_no};
        if (line.find("ld_volatile_shared_b32__op2(addr") != std::string::npos) load = {file, line_no};
        if (file == "tmasim_kernel.cu") kernel_lines = line_no;
        ++line_no;
    }
    // Each op's code is its own file; the kernel file resumes after the last op.
    CHECK(store.first == "tmasim_op_0.cu");
    CHECK(load.first == "tmasim_op_2.cu");
    CHECK(map.op_of({"k", "0x10", store.first, store.second}, {}) == 0);
    CHECK(map.op_of({"k", "0x10", load.first, load.second}, {}) == 2);
    CHECK(map.op_at(1) == -1);  // the kernel's signature
    CHECK(map.op_at(kernel_lines) == -1);
    CHECK(map.op_at(kernel_lines + 5) == -1);
    CHECK(map.in_executor_code({"k", "0x1", "tmasim_kernel.cu", kernel_lines}));
    // A report taken when the whole kernel was one file: the op comment before a line names it.
    int old_store_line = 0, n = 0;
    std::istringstream plain(source);
    bool in_kernel = false;
    for (std::string line; std::getline(plain, line);) {
        in_kernel = in_kernel || line.rfind("extern \"C\" __global__", 0) == 0;
        if (!in_kernel) continue;
        ++n;
        if (line.find("st_volatile_shared_b32(addr") != std::string::npos) old_store_line = n;
    }
    CHECK(map.op_at(old_store_line) == 0);
    SanitizerLocation wrapper{"k", "0x10", "tmasim_wrappers.cu", 3};
    SanitizerLocation caller{"k", "0x10", load.first, load.second};
    CHECK(map.op_of(wrapper, {}) == -1);
    CHECK(map.op_of(wrapper, {caller}) == 2);
    // A wrapper's own line: its file names it; one op calls it, or several may.
    CHECK(map.op_of({"k", "0x10", "tmasim_wrapper_st_volatile_shared_b32.cu", 2}, {}) == 0);
    CHECK(map.op_of({"ld_volatile_shared_b32+0x30", "0x30", "", 0}, {}) == 2);
    CHECK(map.ops_of({"k", "0x10", "tmasim_wrapper_read_clock64_after.cu", 2}, {}) == std::vector<int>{1, 2});
    CHECK(map.op_of({"k", "0x10", "tmasim_wrapper_read_clock64_after.cu", 2}, {}) == -1);
    // The executor's own code: kernel lines outside the ops, wrappers only it calls.
    CHECK(map.in_executor_code({"k", "0x1", "tmasim_kernel.cu", 1}));
    CHECK(map.in_executor_code({"k", "0x1", "tmasim_wrapper_barrier_sync_aligned_0.cu", 2}));
    CHECK_FALSE(map.in_executor_code({"k", "0x1", store.first, store.second}));
    CHECK_FALSE(map.in_executor_code({"k", "0x1", "tmasim_wrapper_st_volatile_shared_b32.cu", 2}));
    CHECK_FALSE(map.in_executor_code({"k", "0x1", "elsewhere.cu", 2}));
    // The directives name each wrapper's file.
    CHECK(with_line_directives(source).find("#line 1 \"tmasim_wrapper_st_volatile_shared_b32.cu\"\n__device__ "
                                            "__forceinline__ void st_volatile_shared_b32(") != std::string::npos);
}

TEST_CASE("every racecheck report kept in the repository maps each access to a scenario op", "[sanitizer]") {
    const std::vector<fs::path> reports = racecheck_reports();
    REQUIRE(reports.size() >= 2);
    for (const fs::path& path : reports) {
        INFO(path.string());
        Scenario s = load_scenario_file(scenario_of(path).string());
        const SanitizerReport report = parse_sanitizer_report(slurp(path));
        CHECK(report.has_summary);
        // A kernel scenario's report names its own source lines (one line may hold several
        // ops: Triton gives a Python line to a whole descriptor's build).
        if (s.kernel) ptx::bind_kernel(s);
        const KernelLineMap map = s.kernel ? KernelLineMap::for_kernel(ptx::parse_bound_kernel(s))
                                           : KernelLineMap(generate_kernel_source(s));
        // Racecheck names the wrapper's line only (no device frames, even with --show-backtrace
        // device): an access maps to the ops that call that wrapper. In every recorded report
        // of an op scenario that is exactly one op.
        const bool recorded = path.string().find("traces/recorded") != std::string::npos && !s.kernel;
        for (const SanitizerFinding& f : report.findings)
            for (const SanitizerAccess& a : f.accesses) {
                const std::vector<int> ops = map.ops_of(a.at, f.frames);
                CHECK_FALSE(ops.empty());
                if (recorded) CHECK(ops.size() == 1);
                for (int op : ops) CHECK(s.find_op(op) != nullptr);
            }
        const std::vector<Diagnostic> diagnostics = sanitizer_diagnostics(report, "racecheck", map, s);
        CHECK(diagnostics.size() <= report.findings.size());
        for (const Diagnostic& d : diagnostics) CHECK(d.detail.at("ops").find('?') == std::string::npos);
    }
}

TEST_CASE("the hand-written racecheck report becomes two diagnostics naming ops 0 and 2", "[sanitizer]") {
    const Scenario s = load_scenario_file((kSource / "scenarios/catalog/races/shared_raw_no_barrier.yaml").string());
    const SanitizerReport report = parse_sanitizer_report(
        slurp(kSource / "tests/device/sanitizer_reports/hand_written.races.shared_raw_no_barrier.racecheck.txt"));
    const std::vector<Diagnostic> d = sanitizer_diagnostics(report, "racecheck", KernelLineMap(generate_kernel_source(s)), s);
    REQUIRE(d.size() == 2);
    CHECK(d[0].rule == "sanitizer.racecheck.raw");
    CHECK(d[0].outcome == Outcome::hazard);
    CHECK(d[0].op == 2);
    CHECK(d[0].detail.at("ops") == "0,2");
    CHECK(d[0].detail.at("records") == "4");
    CHECK(d[0].detail.at("threads") == "(0,0,0) (32,0,0)");
    CHECK(d[0].message ==
          "racecheck: RAW hazard on __shared__ 0x400: Write at #0 shared.store (produce) by thread (0,0,0) (warp 0 "
          "lane 0), then Read at #2 shared.load (consume) by thread (32,0,0) (warp 1 lane 0) (4 records)");
    CHECK(d[1].rule == "sanitizer.racecheck.race");
    CHECK(d[1].detail.at("hazards") == "128");
    CHECK(d[1].detail.at("ops") == "0,2");
}

TEST_CASE("the kernel with line directives compiles with -lineinfo", "[sanitizer]") {
    for (const char* file : {"races/shared_raw_no_barrier", "races/cp_async_waw_other_thread", "warpspec/no_full_wait",
                             "wgmma/tma_wgmma_64b_two_k", "cluster/dsmem_exchange", "guide/ldgsts_prefetch_pipeline"}) {
        INFO(file);
        const Scenario s = load_scenario_file((kSource / "scenarios/catalog" / (std::string(file) + ".yaml")).string());
        const CompileResult r = compile_cuda(with_line_directives(generate_kernel_source(s)), "sm_90a", "-", true);
        INFO(r.log);
        CHECK(r.ok);
        CHECK(!r.cubin.empty());
    }
}

TEST_CASE("in a sanitized build each op calls its own copy of a wrapper, in the op's file", "[sanitizer]") {
    const Scenario s = load_scenario_file((kSource / "scenarios/catalog/races/shared_war_no_barrier.yaml").string());
    const std::string directed = with_line_directives(generate_kernel_source(s));
    // Ops 0 and 4 both store to shared memory: two copies, each under its op's file name.
    CHECK(directed.find("#line 1 \"tmasim_op_0.cu\"\n__device__ __forceinline__ void st_volatile_shared_b32__op0(") !=
          std::string::npos);
    CHECK(directed.find("#line 1 \"tmasim_op_4.cu\"\n__device__ __forceinline__ void st_volatile_shared_b32__op4(") !=
          std::string::npos);
    CHECK(directed.find("st_volatile_shared_b32__op4(addr, word);") != std::string::npos);
    // A location in a copy maps to its op alone.
    const KernelLineMap map(generate_kernel_source(s));
    CHECK(map.ops_of({"k", "0x10", "tmasim_op_4.cu", 2}, {}) == std::vector<int>{4});
    // The copy's name wins over its file: copies with the same body were seen under another
    // op's file name (H200, no_params_barrier: op 8's load reported in tmasim_op_7.cu).
    CHECK(map.ops_of({"ld_volatile_shared_b32__op2(unsigned int)+0xee0", "0xee0", "tmasim_op_0.cu", 3}, {}) ==
          std::vector<int>{2});
    CHECK(map.ops_of({"$tmasim_scenario_kernel$_Z25st_volatile_shared_b32__op4jj+0x3420", "0x3420", "", 0}, {}) ==
          std::vector<int>{4});
}

TEST_CASE("a kernel scenario's report maps each access through the kernel's .loc lines to its ops", "[sanitizer][kernel]") {
    Scenario s = load_scenario_file((kSource / "scenarios/catalog/kernels/consumer_release_before_read.yaml").string());
    ptx::bind_kernel(s);
    // The ops of one .cu line, as kernel_ops labels them: "warp_specialized_pc.cu:<line>:<col>".
    auto line_of = [](const Op& op) { return std::stoi(op.source.substr(op.source.find(':') + 1)); };
    auto ops_on = [&](int line) {
        std::string ids;
        for (const Op& op : s.program)
            if (op.source.rfind("warp_specialized_pc.cu:", 0) == 0 && line_of(op) == line)
                ids += (ids.empty() ? "" : "|") + std::to_string(op.id);
        return ids;
    };
    const auto load = std::find_if(s.program.begin(), s.program.end(), [](const Op& op) {
        return op.ptx_opcode.rfind("ld.shared", 0) == 0 && !op.source.empty();
    });
    const auto store = std::find_if(s.program.begin(), s.program.end(), [](const Op& op) {
        return op.ptx_opcode.rfind("mbarrier.init", 0) == 0 && !op.source.empty();
    });
    REQUIRE(load != s.program.end());
    REQUIRE(store != s.program.end());
    const int read_line = line_of(*load), write_line = line_of(*store);
    const std::string report_text = fmt::format(
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Potential WAR hazard detected at __shared__ 0x400 in block (0,0,0) :\n"
        "=========     Read Thread (32,0,0) at warp_specialized_pc+0x5f0 in /tmp/nvrtc/warp_specialized_pc.cu:{}\n"
        "=========     Write Thread (0,0,0) at warp_specialized_pc+0x7a0 in warp_specialized_pc.cu:{}\n"
        "=========     Current Value : 0\n"
        "=========\n"
        "========= Error: Potential RAW hazard detected at __shared__ 0x404 in block (0,0,0) :\n"
        "=========     Write Thread (1,0,0) at warp_specialized_pc+0x10 in other.cu:{}\n"
        "=========     Read Thread (33,0,0) at warp_specialized_pc+0x20 in warp_specialized_pc.cu:100000\n"
        "=========     Current Value : 0\n"
        "=========\n",
        read_line, write_line, write_line);
    const SanitizerReport report = parse_sanitizer_report(report_text);
    REQUIRE(report.findings.size() == 2);
    const KernelLineMap map = KernelLineMap::for_kernel(ptx::parse_bound_kernel(s));
    const std::vector<Diagnostic> d = sanitizer_diagnostics(report, "racecheck", map, s);
    REQUIRE(d.size() == 2);
    INFO(d[0].message);
    // A directory in the tool's path does not matter (base names); every op of the line is a candidate.
    CHECK(d[0].detail.at("ops") == ops_on(read_line) + "," + ops_on(write_line));
    CHECK(d[0].detail.count("executor_code") == 0);
    // A file the kernel's .loc never names, and a line past its end, map to no op.
    CHECK(d[1].detail.at("ops") == "?,?");
    CHECK(d[1].op == -1);
}

TEST_CASE("a kernel's racecheck race between ops one thread ran is not compared: the model says which thread",
          "[sanitizer][kernel]") {
    Scenario s = load_scenario_file((kSource / "scenarios/catalog/kernels/consumer_release_before_read.yaml").string());
    ptx::bind_kernel(s);
    auto line_of = [](const Op& op) { return std::stoi(op.source.substr(op.source.find(':') + 1)); };
    const auto init = std::find_if(s.program.begin(), s.program.end(),
                                   [](const Op& op) { return op.kind == OpKind::mbarrier_init && !op.source.empty(); });
    const auto arrive = std::find_if(s.program.begin(), s.program.end(), [](const Op& op) {
        return op.kind == OpKind::mbarrier_arrive_expect_tx && !op.source.empty();
    });
    REQUIRE(init != s.program.end());
    REQUIRE(arrive != s.program.end());
    const SanitizerReport report = parse_sanitizer_report(fmt::format(
        "========= COMPUTE-SANITIZER\n"
        "========= Error: Race reported between Write access at warp_specialized_pc+0x10 in warp_specialized_pc.cu:{}\n"
        "=========     and Read access at warp_specialized_pc+0x20 in warp_specialized_pc.cu:{} [1 hazards]\n"
        "=========\n",
        line_of(*init), line_of(*arrive)));
    REQUIRE(report.findings.size() == 1);
    const KernelLineMap map = KernelLineMap::for_kernel(ptx::parse_bound_kernel(s));
    // Every op on the two lines, as the model would say thread `t` ran it.
    auto ran_by = [&](int t) {
        std::map<int, int> out;
        for (const Op& op : s.program)
            if (!op.source.empty() && (line_of(op) == line_of(*init) || line_of(op) == line_of(*arrive))) out[op.id] = t;
        return out;
    };
    const std::map<int, int> one = ran_by(0);
    const std::vector<Diagnostic> d = sanitizer_diagnostics(report, "racecheck", map, s, &one);
    REQUIRE(d.size() == 1);
    CHECK(d[0].detail.count("outside_tool") == 1);
    CHECK(d[0].message.rfind("not compared (every op it names runs on one thread", 0) == 0);
    // Two threads (one op another thread's), or an op the model saw several threads run: compared.
    std::map<int, int> two = one;
    two[arrive->id] = 32;
    CHECK(sanitizer_diagnostics(report, "racecheck", map, s, &two)[0].detail.count("outside_tool") == 0);
    std::map<int, int> several = one;
    several.erase(arrive->id);
    CHECK(sanitizer_diagnostics(report, "racecheck", map, s, &several)[0].detail.count("outside_tool") == 0);
}

TEST_CASE("the H200's racecheck report of Triton's tma_desc_scale names the copy the model reports", "[sanitizer][kernel]") {
    const fs::path report_path = kSource / "traces/recorded/NVIDIA-H200/sanitizer/reports/kernels/triton/tma_desc_scale.racecheck.txt";
    Scenario s = load_scenario_file((kSource / "scenarios/catalog/kernels/triton/tma_desc_scale.yaml").string());
    ptx::bind_kernel(s);
    const SanitizerReport report = parse_sanitizer_report(slurp(report_path));
    const std::vector<Diagnostic> d =
        sanitizer_diagnostics(report, "racecheck", KernelLineMap::for_kernel(ptx::parse_bound_kernel(s)), s);
    REQUIRE_FALSE(d.empty());
    // The second descriptor's tensormap.cp_fenceproxy (PTX line 169), where the model reports
    // race.shared_raw (tests/model/test_triton_fixtures.cpp), is among the read's candidates.
    int copy = -1;
    for (const Op& op : s.program)
        if (op.kind == OpKind::tensormap_cp_fenceproxy && op.label == "tma_desc_scale.ptx:169") copy = op.id;
    REQUIRE(copy >= 0);
    const Diagnostic& raw = d.front();
    CHECK(raw.rule == "sanitizer.racecheck.raw");
    CHECK(raw.detail.at("threads") == "(0,0,0) (1,0,0)");
    const std::string ops = raw.detail.at("ops");
    const std::string read = ops.substr(ops.find(',') + 1);
    CHECK(("|" + read + "|").find("|" + std::to_string(copy) + "|") != std::string::npos);
}
