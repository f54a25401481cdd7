#include "model/run_model.h"

#include <systemc>

#include "model/arch_config.h"
#include "model/simulation.h"

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

}  // namespace

RunResult run_model(const Scenario& scenario, const ModelOptions& options) {
    const model::ArchConfig arch = model::ArchConfig::load_named(options.arch, options.arch_dir);
    quiet_systemc_reports();
    RunResult result;
    {
        FreshSimContext context;
        model::Simulation sim(scenario, arch);
        result = sim.run();
    }
    result.provenance = provenance_for(scenario, "model");
    Provenance& p = result.provenance;
    p.gpu = arch.name();
    p.sm_clock_mhz = static_cast<int>(arch.timing().sm_clock_mhz);
    p.model_config = arch.name();
    p.model_config_hash = arch.hash();
    p.seed = options.seed;
    p.extra["model_gpu"] = arch.gpu();
    return result;
}

}  // namespace tmasim
