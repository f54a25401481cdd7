#include "model/run/run_model.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <systemc>

#include "model/core/arch_config.h"
#include "model/run/simulation.h"
#include "ptx/kernel_binding.h"
#include "scenarios/work_estimate.h"

// libsystemc.so's own main() refers to sc_main; tmasim has its own main (CLI, tests),
// so this definition only satisfies the linker and is never called.
int sc_main(int, char*[]) { return 0; }

namespace tmasim {

namespace {

// SystemC cannot elaborate again after sc_start in one context, so each run gets its
// own, made current for the run and deleted afterwards (modules first).
class FreshSimContext {
public:
    FreshSimContext() {
        context_ = new sc_core::sc_simcontext();
        sc_core::sc_curr_simcontext = context_;
        sc_core::sc_default_global_context = context_;
    }
    ~FreshSimContext() {
        delete context_;
        sc_core::sc_curr_simcontext = nullptr;
        sc_core::sc_default_global_context = nullptr;
    }
    FreshSimContext(const FreshSimContext&) = delete;
    FreshSimContext& operator=(const FreshSimContext&) = delete;

private:
    sc_core::sc_simcontext* context_;
};

void quiet_systemc_reports() {
    // The model reports through RunResult; SystemC's own info messages would only
    // clutter the CLI's output. Warnings and errors stay on.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

// The config the scenario runs on when none is named: its own GPU generation's.
std::string default_arch(const Scenario& s) { return s.arch == "sm_100" ? "b200" : "h100-sxm"; }

bool uses_wgmma(const Scenario& s) {
    for (const Op* op : s.all_ops())
        if (op->kind == OpKind::wgmma_mma_async) return true;
    return false;
}

// The model refuses what the GPU it models cannot run, as the device backend does.
void require_runnable(const Scenario& s, const model::ArchConfig& arch) {
    if (s.arch == "sm_100" && arch.sm() != "sm_100")
        throw std::runtime_error(fmt::format("{}: scenario needs sm_100 (Blackwell); model arch {} is {}: use "
                                             "--arch b200", s.file, arch.name(), arch.sm()));
    if (uses_wgmma(s) && arch.sm() != "sm_90" && !s.is_kernel())
        throw std::runtime_error(fmt::format("{}: wgmma exists on sm_90a only (Blackwell has tcgen05 instead); "
                                             "model arch {} is {}: use --arch h100-sxm or h200",
                                             s.file, arch.name(), arch.sm()));
}

}  // namespace

RunResult run_model(const Scenario& given, const ModelOptions& options) {
    // A kernel scenario runs bound to its PTX (its ops are the kernel's instructions); one
    // loaded without the binding is bound here.
    Scenario bound;
    if (given.is_kernel() && !given.kernel->bound()) {
        bound = given;
        ptx::bind_kernel(bound);
    }
    const Scenario& scenario = given.is_kernel() && !given.kernel->bound() ? bound : given;
    const std::string name = options.arch.empty() ? default_arch(scenario) : options.arch;
    const model::ArchConfig arch = model::ArchConfig::load_named(name, options.arch_dir);
    require_runnable(scenario, arch);
    check_work_limit(scenario, options.max_work, "tmasim run --max-work");
    quiet_systemc_reports();
    RunResult result;
    int64_t span_cycles = -1;
    uint64_t warp_instructions = 0, thread_instructions = 0;
    bool sim_trace_words_in_shared = true;
    // CTAs simulated one after another where they can be (model/run/cta_schedule.h); together
    // again when the run finds they could not.
    bool together = options.ctas_together;
    bool even_hbm_shares = false, ctas_apart = false;
    model::RunBudget budget(options.time_limit_seconds, options.max_work > 0 ? options.max_events : 0,
                            options.progress);
    for (;;) {
        FreshSimContext context;
        model::Simulation sim(scenario, arch, options.trace, options.l2, options.trace_words, together);
        sim.set_budget(&budget);
        result = sim.run(options.unchanged_input_bytes);
        if (budget.stopped()) throw RunStopped(scenario.file + ": " + budget.stop_reason());
        if (sim.needs_ctas_together()) {
            together = true;
            continue;
        }
        span_cycles = sim.kernel_span_cycles();
        warp_instructions = sim.kernel_warp_instructions();
        thread_instructions = sim.kernel_thread_instructions();
        sim_trace_words_in_shared = sim.trace_words_in_shared();
        even_hbm_shares = sim.even_hbm_shares();
        ctas_apart = sim.ctas_apart();
        break;
    }
    result.provenance = provenance_for(scenario, "model");
    Provenance& p = result.provenance;
    p.gpu = arch.name();
    p.sm_clock_mhz = static_cast<int>(arch.timing().sm_clock_mhz);
    p.model_config = arch.name();
    p.model_config_hash = arch.hash();
    p.seed = options.seed;
    p.extra["model_gpu"] = arch.gpu();
    p.extra["trace_level"] = to_string(options.trace);  // which kernel it predicts: the device's key
    if (options.l2 != model::L2AtLaunch::inputs) p.extra["l2"] = model::to_string(options.l2);
    if (even_hbm_shares) {  // the model's own keys: how the CTAs shared HBM and were simulated
        p.extra["hbm_shares"] = "even";
        p.extra["ctas_simulated"] = ctas_apart ? "apart" : "together";
    }
    if (options.trace != TraceLevel::none)  // the device's key: where the predicted kernel keeps its clock words
        p.extra["trace_words_in"] = sim_trace_words_in_shared ? "shared" : "global";
    if (scenario.kernel) {  // the model's own keys: how much PTX it ran (bench/kernel_model_perf.sh)
        p.extra["ptx_warp_instructions"] = std::to_string(warp_instructions);
        p.extra["ptx_thread_instructions"] = std::to_string(thread_instructions);
    }
    if (span_cycles >= 0) {  // the device's key too: first warp entry to last warp exit
        p.extra["kernel_span_cycles"] = std::to_string(span_cycles);
        p.extra["kernel_span_ns"] = std::to_string(std::llround(static_cast<double>(span_cycles) * 1000.0 /
                                                                arch.timing().sm_clock_mhz));
    }
    return result;
}

}  // namespace tmasim
