#include "traces/chrome_export.h"

#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "scenarios/values.h"
#include "traces/chrome_links.h"
#include "traces/trace_links.h"

namespace tmasim {
namespace {

using Json = ChromeJson;
using ExecId = std::tuple<int, std::vector<int64_t>, int, int, int>;  // op, iters, cta, warp, lane

bool starts_span(EventKind k) { return k == EventKind::issue || k == EventKind::wait_begin; }
bool ends_span(EventKind k) { return k == EventKind::complete || k == EventKind::wait_end; }

class ChromeBuilder {
public:
    ChromeBuilder(const RunResult& r, const OpNames& names, const WaitTargets* targets, EventDetails* details,
                  std::ostream& out)
        : r_(r), names_(names), targets_(targets), out_(out) {
        detail_of_ = [details](const TraceEvent& e) -> const std::map<std::string, std::string>& {
            return details ? details->of(e) : e.detail;
        };
        us_per_cycle_ = r.provenance.sm_clock_mhz > 0 ? 1.0 / r.provenance.sm_clock_mhz : 1.0;
    }

    // Writes the document: each trace event as it is made, so a million events never stand
    // as one tree (a full-chip trace's took 10 GB). The bytes are those of dumping the
    // whole {"traceEvents", "displayTimeUnit", "otherData"} object at once.
    void build() {
        out_ << R"({"traceEvents":[)";
        std::map<ExecId, const TraceEvent*> open;
        for (const TraceEvent* e : events_in_trace_order(r_)) {
            note_thread(*e);
            ExecId id{e->op, e->iters, e->cta, e->warp, e->lane};
            if (!e->model_only && starts_span(e->kind)) {
                if (auto it = open.find(id); it != open.end()) instant(*it->second);  // a restart: keep both
                open[id] = e;
            } else if (!e->model_only && ends_span(e->kind) && open.count(id)) {
                slice(*open[id], *e);
                open.erase(id);
            } else {
                instant(*e);
            }
        }
        for (const auto& [id, e] : open) instant(*e);  // never finished (hang, fault)
        add_names();
        append_chrome_links(r_, link_trace(r_, names_, targets_), names_, us_per_cycle_,
                            [this](const Json& j) { emit(j); }, detail_of_);
        out_ << R"(],"displayTimeUnit":"ns","otherData":)" << dump(other_data()) << '}';
    }

private:
    static std::string dump(const Json& j) {
        return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
    }
    void emit(const Json& j) {
        if (emitted_++) out_ << ',';
        out_ << dump(j);
    }

    std::string label(const TraceEvent& e) const { return op_label(e, names_); }

    static const char* category(const TraceEvent& e) {
        if (e.kind == EventKind::hazard) return "hazard";
        return e.model_only ? "model" : "op";
    }

    Json args(const TraceEvent& e) const {
        Json a;
        a["key"] = e.key();
        a["t_cycles"] = e.t;
        if (e.t_ns >= 0) a["t_ns"] = e.t_ns;
        a["lane"] = e.lane;
        for (const auto& [k, v] : detail_of_(e)) a[k] = v;
        return a;
    }

    Json base(const TraceEvent& e, const char* ph, const std::string& name) const {
        Json j;
        j["name"] = name;
        j["cat"] = category(e);
        j["ph"] = ph;
        j["ts"] = e.t * us_per_cycle_;
        j["pid"] = chrome_pid(e.cta);
        j["tid"] = chrome_tid(e.warp);
        return j;
    }

    void slice(const TraceEvent& begin, const TraceEvent& end) {
        Json j = base(begin, "X", label(begin));
        j["dur"] = (end.t - begin.t) * us_per_cycle_;
        Json a = args(begin);
        a["key_end"] = end.key();
        a["t_end_cycles"] = end.t;
        a["cycles"] = end.t - begin.t;
        j["args"] = std::move(a);
        emit(std::move(j));
    }

    void instant(const TraceEvent& e) {
        std::string name = e.kind == EventKind::hazard   ? "hazard " + e.what + " (" + label(e) + ")"
                           : e.model_only && !e.what.empty() ? e.what + " (" + label(e) + ")"
                                                             : label(e) + " " + to_string(e.kind);
        Json j = base(e, "i", name);
        j["s"] = "t";
        j["args"] = args(e);
        emit(std::move(j));
    }

    void note_thread(const TraceEvent& e) { threads_.insert({e.cta, e.warp}); }

    // Viewers treat pid/tid 0 as "no process/thread", so CTA c is pid c+1 and warp w tid w+1,
    // named "CTA c" and "warp w" and sorted in that order.
    void add_names() {
        std::set<int> ctas;
        for (const auto& [cta, warp] : threads_) {
            ctas.insert(cta);
            emit(chrome_meta("thread_name", chrome_pid(cta), chrome_tid(warp), "name",
                                          "warp " + std::to_string(warp)));
            emit(chrome_meta("thread_sort_index", chrome_pid(cta), chrome_tid(warp), "sort_index", warp));
        }
        for (int cta : ctas) {
            emit(chrome_meta("process_name", chrome_pid(cta), 0, "name", "CTA " + std::to_string(cta)));
            emit(chrome_meta("process_sort_index", chrome_pid(cta), 0, "sort_index", cta));
        }
    }

    Json other_data() const {
        const Provenance& p = r_.provenance;
        Json o;
        o["backend"] = p.backend;
        o["gpu"] = p.gpu;
        o["scenario"] = p.scenario;
        o["sm_clock_mhz"] = std::to_string(p.sm_clock_mhz);
        o["time_unit"] = p.sm_clock_mhz > 0 ? "us at the SM clock" : "1 us = 1 SM cycle (clock unknown)";
        o["outcome"] = to_string(r_.outcome);
        // Snapshot images are too large for the viewer: name, size and hash, to pair them
        // with the trace file's memory lines.
        for (const MemoryImage& m : r_.memory)
            if (m.space == "snapshot")
                o["snapshot cta" + std::to_string(m.cta) + " " + m.name] =
                    std::to_string(image_size(m)) + " bytes, " + image_hash(m).text();
        for (size_t i = 0; i < r_.diagnostics.size(); ++i) {
            const Diagnostic& d = r_.diagnostics[i];
            o["diagnostic" + std::to_string(i)] = to_string(d.outcome) + " " + d.rule + ": " + d.message;
        }
        return o;
    }

    const RunResult& r_;
    const OpNames& names_;
    const WaitTargets* targets_;
    EventDetailOf detail_of_;
    double us_per_cycle_;
    std::ostream& out_;
    size_t emitted_ = 0;
    std::set<std::pair<int, int>> threads_;
};

}  // namespace

void write_chrome_trace(const RunResult& result, std::ostream& out, const OpNames& names,
                        const WaitTargets* targets, EventDetails* details) {
    ChromeBuilder(result, names, targets, details, out).build();
    out << '\n';
}

void write_chrome_trace_file(const RunResult& result, const std::string& path, const OpNames& names,
                             const WaitTargets* targets) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("traces: cannot open '" + path + "' for writing");
    write_chrome_trace(result, out, names, targets);
    out.flush();
    if (!out) throw std::runtime_error("traces: error writing '" + path + "'");
}

}  // namespace tmasim
