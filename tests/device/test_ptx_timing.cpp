// The timing rewrite of a kernel's PTX (device/kernels/ptx_timing.h): what it inserts, around which
// instructions, that it leaves every instruction of the kernel as it was, and that ptxas
// assembles the rewrite of every catalog kernel at every trace level.
#include <catch2/catch.hpp>

#include <iostream>
#include <regex>

#include "device/kernels/ptx_timing.h"
#include "kernel_test_support.h"
#include "ptx/instruction_kinds.h"
#include "ptx/parser.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

const char* kSmallPtx = R"(.version 8.0
.target sm_90a
.address_size 64

.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	.shared .align 8 .b64 bar;

	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.eq.s32 	%p1, %r1, 0;
	mov.u32 	%r2, bar;
	@%p1 mbarrier.init.shared.b64 	[%r2], 1;
	bar.sync 	0;
	@%p1 mbarrier.arrive.shared.b64 	%rd2, [%r2];
$L__wait:
	mbarrier.try_wait.parity.shared.b64 	%p2, [%r2], 0;   // the probe
	@!%p2 bra 	$L__wait;
	cvta.to.global.u64 	%rd3, %rd1;
	st.global.u32 	[%rd3], %r1;
	@!%p1 ret;
	st.global.u32 	[%rd3+4], %r1;
	ret;
}
)";

const char* kSmallScenario = R"(scenario: small_kernel
summary: one mbarrier, a CTA barrier, two stores
launch: {grid: [2], block: 64}
global:
  out: {type: i32, shape: [4], init: {fill: 0}}
kernel:
  ptx: small.ptx
  entry: k
  params:
    - {global: out}
    - {u32: 3}
expect: {outcome: ok}
)";

Scenario small_scenario(const test::ScratchDir& dir) {
    dir.write("small.ptx", kSmallPtx);
    return test::load_bound(dir.write("small.yaml", kSmallScenario));
}

std::string text_of(const ptx::Module& m, const ptx::Instruction& ins) {
    return m.text.substr(ins.text_begin, ins.text_end - ins.text_begin);
}

// The kernel's own instructions in the rewrite, in order: those that touch none of its names.
std::vector<std::string> own_instructions(const ptx::Module& m, const ptx::Function& f) {
    std::vector<std::string> out;
    for (const ptx::Instruction& ins : f.instructions) {
        const std::string t = text_of(m, ins);
        if (t.find(kTimingRegisterPrefix) == std::string::npos && t.find(kTimingVariable) == std::string::npos) out.push_back(t);
    }
    return out;
}

// What the rewrite must leave as it was: the module parses again, the entry's instructions are
// the original ones in order (nothing removed or changed), and only the rewrite's own lines
// name its registers and variable.
void check_inserts_only(const ptx::BoundKernel& k, const TimingRewrite& r) {
    const ptx::Module again = ptx::parse_module(r.ptx, "rewritten.ptx");
    const ptx::Function* e = again.find_function(k.entry->name);
    REQUIRE(e);
    std::vector<std::string> before;
    for (const ptx::Instruction& ins : k.entry->instructions) before.push_back(text_of(k.module, ins));
    CHECK(own_instructions(again, *e) == before);
    CHECK(e->params.size() == k.entry->params.size());  // the ABI is the kernel's
    CHECK(again.find_variable(kTimingVariable) != nullptr);
}

}  // namespace

TEST_CASE("the rewrite times entry, exits and each unit instruction of a small kernel", "[device][ptx_timing]") {
    test::ScratchDir dir("timing");
    const Scenario s = small_scenario(dir);
    REQUIRE(s.program.size() == 6);  // init, bar.sync, arrive, try_wait, two st.global
    const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    const TimingRewrite r = rewrite_for_timing(s, k, {TraceLevel::all, 8});
    check_inserts_only(k, r);
    CHECK(r.timed_ops == std::vector<int>{0, 1, 2, 3, 4, 5});
    CHECK(r.exits == 2);       // `@!%p1 ret` and `ret`; the body cannot fall through its end
    CHECK(r.held_waits == 2);  // the try_wait on its result, bar.sync by bar.warp.sync
    // The buffer's address: a module variable in front of the entry.
    CHECK(r.ptx.find("// tmasim timing: the buffer's address (device/kernels/ptx_timing.h)\n.visible .global .align 8 .u64 __tmasim_timing;\n\n"
                     ".visible .entry k(") != std::string::npos);
    // Entry: 64 + 8 * 16 bytes per thread, in the model's CTA order.
    CHECK(r.ptx.find("\tmov.u64 %tms_d0, %globaltimer;\n\tmov.u64 %tms_d2, %clock64;\n\tmov.u32 %tms_r0, %clusterid.z;") !=
          std::string::npos);
    CHECK(r.ptx.find("mad.wide.u32 %tms_d1, %tms_r0, 192, %tms_d1;\n\tst.global.v2.u64 [%tms_d1], {%tms_d0, %tms_d2};") !=
          std::string::npos);
    // The guarded exit reads and stores on its own lanes only, then the kernel's `@!%p1 ret`.
    CHECK(r.ptx.find("@!%p1 mov.u64 %tms_d0, %globaltimer;\n\t@!%p1 mov.u64 %tms_d2, %clock64;\n\t"
                     "@!%p1 st.global.v2.u64 [%tms_d3+16], {%tms_d0, %tms_d2};\n\t@!%p1 st.global.u32 [%tms_d3+32], %tms_r7;\n\t"
                     "@!%p1 ret;") != std::string::npos);
    // The probe: its end clock waits for its result; the record is op 3's, at most 8 per thread.
    CHECK(r.ptx.find("mov.u64 %tms_d0, %clock64;\n\tmbarrier.try_wait.parity.shared.b64 \t%p2, [%r2], 0;\n\t"
                     "@%p2 mov.u64 %tms_d2, %clock64;\n\t@!%p2 mov.u64 %tms_d2, %clock64;\n\tactivemask.b32 %tms_r0;\n\t"
                     "mov.u32 %tms_r1, %lanemask_lt;") != std::string::npos);
    CHECK(r.ptx.find("setp.lt.and.u32 %tms_p1, %tms_r7, 8, %tms_p0;") != std::string::npos);
    CHECK(r.ptx.find("@%tms_p1 mov.u32 %tms_r5, 3;\n\t@%tms_p1 st.global.v4.u32 [%tms_d1+64], {%tms_r2, %tms_r3, %tms_r4, %tms_r5};"
                     "\n\t@%tms_p0 add.u32 %tms_r7, %tms_r7, 1;   // the probe") != std::string::npos);
    // A guarded op's record is made by the lowest lane whose guard holds.
    CHECK(r.ptx.find("@%p1 mbarrier.init.shared.b64 \t[%r2], 1;\n\tmov.u64 %tms_d2, %clock64;\n\tactivemask.b32 %tms_r0;\n\t"
                     "vote.sync.ballot.b32 %tms_r0, %p1, %tms_r0;") != std::string::npos);
    CHECK(r.ptx.find("setp.eq.and.u32 %tms_p0, %tms_r1, 0, %p1;") != std::string::npos);
    CHECK(r.ptx.find("bar.sync \t0;\n\tactivemask.b32 %tms_r0;\n\tbar.warp.sync %tms_r0;\n\tmov.u64 %tms_d2, %clock64;") !=
          std::string::npos);
    CHECK(r.summary.find("entry and 2 exits") == 0);
    CHECK(r.summary.find("6 unit instructions") != std::string::npos);
}

TEST_CASE("the rewrite at level none reads %globaltimer only, at waits it times the waits", "[device][ptx_timing]") {
    test::ScratchDir dir("timing");
    const Scenario s = small_scenario(dir);
    const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    const TimingRewrite none = rewrite_for_timing(s, k, {TraceLevel::none, 0});
    check_inserts_only(k, none);
    CHECK(none.ptx.find("%clock64") == std::string::npos);
    CHECK(none.timed_ops.empty());
    CHECK(none.layout.thread_bytes() == 64);
    // The exit's address is computed again: nothing of the rewrite stays live through the kernel.
    CHECK(none.ptx.find("%tms_d3") == std::string::npos);
    CHECK(none.ptx.find("\tmad.wide.u32 %tms_d1, %tms_r0, 64, %tms_d1;\n\tst.global.u64 [%tms_d1+16], %tms_d0;\n\tret;") !=
          std::string::npos);
    const TimingRewrite waits = rewrite_for_timing(s, k, {TraceLevel::waits, 4});
    check_inserts_only(k, waits);
    CHECK(waits.timed_ops == std::vector<int>{1, 3});  // bar.sync, try_wait
}

TEST_CASE("the rewrite refuses what it cannot do without changing the kernel", "[device][ptx_timing]") {
    test::ScratchDir dir("timing");
    Scenario s = small_scenario(dir);
    ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    s.program.pop_back();  // the scenario's ops no longer the PTX's
    CHECK_THROWS_WITH(rewrite_for_timing(s, k, {TraceLevel::all, 8}),
                      Catch::Contains("op #5 of the scenario is not the PTX's unit instruction at line 28"));
    Scenario clash = small_scenario(dir);
    clash.kernel->ptx_text = std::regex_replace(clash.kernel->ptx_text, std::regex("%rd"), "%tms_x");
    const ptx::BoundKernel kc = ptx::parse_bound_kernel(clash);
    CHECK_THROWS_WITH(rewrite_for_timing(clash, kc, {TraceLevel::none, 0}), Catch::Contains("a name the rewrite uses (%tms_*)"));
}

TEST_CASE("timing records per thread stay within the budget", "[device][ptx_timing]") {
    CHECK(timing_records_per_thread(1024, TraceLevel::none) == 0);
    CHECK(timing_records_per_thread(1024, TraceLevel::all) == 2048);
    CHECK(timing_records_per_thread(1024, TraceLevel::all, 5) == 8);  // multiples of 4
    // 132 CTAs of 384 threads within 256 MiB: (268435456 / 50688 - 64) / 16 = 327 -> 324.
    CHECK(timing_records_per_thread(132 * 384, TraceLevel::all) == 324);
    CHECK(timing_records_per_thread(int64_t(1) << 30, TraceLevel::all) == 4);
}

TEST_CASE("every catalog kernel's rewrite keeps its instructions and ptxas assembles it", "[device][ptx_timing][catalog]") {
    const std::string ptxas = test::ptxas_path();
    if (ptxas.empty()) WARN("SKIPPED: ptxas is not at /usr/local/cuda/bin/ptxas (set TMASIM_PTXAS): the rewrites are checked "
                            "without assembling them");
    test::ScratchDir dir("ptxas");
    int assembled = 0;
    const std::vector<Scenario> kernels = test::loadable_kernels();
    CHECK(kernels.size() >= 16);
    for (const Scenario& s : kernels) {
        const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
        int units = 0, waits = 0;
        for (const ptx::Instruction& ins : k.entry->instructions)
            if (const auto kind = ptx::unit_op_kind(ins)) {
                ++units;
                waits += is_kernel_wait(*kind) ? 1 : 0;
            }
        for (TraceLevel level : {TraceLevel::none, TraceLevel::waits, TraceLevel::all}) {
            INFO(s.name << " at trace level " << to_string(level));
            const TimingRewrite r = rewrite_for_timing(s, k, {level, level == TraceLevel::none ? 0 : 64});
            check_inserts_only(k, r);
            CHECK(static_cast<int>(r.timed_ops.size()) == (level == TraceLevel::all ? units : level == TraceLevel::waits ? waits : 0));
            CHECK(r.exits >= 1);
            if (ptxas.empty()) continue;
            const test::PtxasResult got = test::run_ptxas(ptxas, dir, s.name + "_" + to_string(level), r.ptx, test::ptx_arch(k.module));
            INFO("ptxas:\n" << got.output);
            CHECK(got.status == 0);
            assembled += got.status == 0 ? 1 : 0;
        }
    }
    if (!ptxas.empty()) CHECK(assembled == 3 * static_cast<int>(kernels.size()));
}
