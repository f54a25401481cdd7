#include "cli/model_run_flags.h"

#include <stdexcept>

#include "scenarios/trace_level.h"

namespace tmasim::cli {

CLI::Option* add_l2_option(CLI::App& sub, std::string& l2) {
    return sub.add_option("--l2", l2,
                          "Model: what the launch finds in L2. inputs: the global tensors as the device "
                          "executor leaves them, copied in by the host just before the launch, in L2 where "
                          "they fit together (first touches still pay the cold latency); cold: nothing (a "
                          "launch after other work evicted them); warm: what an identical launch before it "
                          "read, where the global tensors fit in L2 (a benchmark's repeated launches)")
        ->check(CLI::IsMember({"inputs", "cold", "warm"}))
        ->capture_default_str();
}

CLI::Option* add_trace_option(CLI::App& sub, std::string& trace, bool with_device) {
    const std::string model_help =
        "predict the kernel the device would run at that level; none predicts it untraced, all is what to "
        "compare with a traced device run";
    const std::string help =
        with_device ? "Which ops are timed. Device (default all): all (every op, %clock64 before and "
                      "after), waits (only the ops that wait), none (no per-op code: the kernel as "
                      "written by hand; the trace has its time and each CTA's entry and exit). Model "
                      "(default none): " + model_help
                    : "Model: which ops the predicted kernel times (default none): all (every op), waits (only "
                      "the ops that wait) or none; " + model_help;
    return sub.add_option("--trace", trace, help)->check(CLI::IsMember({"all", "waits", "none"}));
}

void apply_model_run_flags(const std::string& l2, const std::string& trace, ModelOptions& model) {
    if (!model::parse_l2_at_launch(l2, model.l2)) throw std::invalid_argument("--l2 " + l2 + ": allowed: inputs, cold, warm");
    if (trace.empty()) {
        model.trace = TraceLevel::none;
        return;
    }
    const auto level = parse_trace_level(trace);
    if (!level) throw std::invalid_argument("--trace " + trace + ": allowed: all, waits, none");
    model.trace = *level;
}

}  // namespace tmasim::cli
