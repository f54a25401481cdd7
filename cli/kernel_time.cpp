#include "cli/kernel_time.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace tmasim::cli {
namespace {

bool extra_int(const Provenance& p, const char* key, int64_t& value) {
    const auto it = p.extra.find(key);
    if (it == p.extra.end()) return false;
    const std::string& text = it->second;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && ptr == text.data() + text.size();
}

std::string extra_text(const Provenance& p, const char* key) {
    const auto it = p.extra.find(key);
    return it == p.extra.end() ? "?" : it->second;
}

}  // namespace

KernelTime kernel_time_of(const Provenance& p) {
    KernelTime t;
    t.clock_mhz = p.sm_clock_mhz;
    if (p.backend == "model") {
        // The model's span is in cycles of its arch's SM clock; kernel_span_ns is derived from it.
        t.source = "model";
        t.meaning = "predicted by the model (" + p.model_config + "), first warp entry to last warp exit";
        t.known = extra_int(p, "kernel_span_ns", t.ns) && extra_int(p, "kernel_span_cycles", t.cycles);
        return t;
    }
    if (!extra_int(p, "kernel_time_ns", t.event_ns)) t.event_ns = -1;
    if (extra_int(p, "kernel_span_ns", t.ns)) {
        t.source = "globaltimer";
        t.meaning = "measured on the GPU (" + p.gpu + "), first warp entry to last warp exit (%globaltimer)";
    } else if (t.event_ns >= 0) {
        t.ns = t.event_ns;
        t.source = "cuda events";
        t.meaning = "measured on the GPU (" + p.gpu + ") by CUDA events around the launch";
    } else {
        return t;
    }
    t.known = true;
    // The device measures ns; its cycles are at the SM clock the trace header records.
    if (t.clock_mhz > 0) t.cycles = std::llround(static_cast<double>(t.ns) * t.clock_mhz / 1000.0);
    return t;
}

void print_kernel_time(const Provenance& p, std::ostream& out) {
    const KernelTime t = kernel_time_of(p);
    out << "kernel time: ";
    if (!t.known) {
        out << "none (" << (t.source == "model" ? "the model saw no warp exit" : "the device reported no time")
            << ")\n";
        return;
    }
    out << fmt::format("{} ns ({} cycles at {} MHz), {}", t.ns, t.cycles, t.clock_mhz, t.meaning);
    if (t.source == "globaltimer" && t.event_ns >= 0) out << fmt::format("; CUDA events: {} ns", t.event_ns);
    out << "; trace level " << extra_text(p, "trace_level") << '\n';
}

OrderedJson kernel_time_json(const Provenance& p) {
    const KernelTime t = kernel_time_of(p);
    if (!t.known) return OrderedJson();
    OrderedJson j;
    j["ns"] = t.ns;
    j["cycles"] = t.cycles;
    j["clock_mhz"] = t.clock_mhz;
    j["source"] = t.source;
    if (t.event_ns >= 0) j["cuda_event_ns"] = t.event_ns;
    return j;
}

}  // namespace tmasim::cli
