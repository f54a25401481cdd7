#include "traces/chrome_links.h"

#include <algorithm>
#include <map>

namespace tmasim {
namespace {

// Flow events bind to the slice that encloses them on their thread; a point inside the
// slice (not on its edge, where a zero-length neighbour may start) binds unambiguously.
constexpr double kMarkerCycles = 1.0;  // duration of a barrier-track marker slice

class LinkWriter {
public:
    LinkWriter(const TraceLinks& links, const OpNames& names, double us_per_cycle, const ChromeEmit& emit,
               const EventDetailOf& detail_of)
        : links_(links), names_(names), us_(us_per_cycle), emit_(emit), detail_of_(detail_of) {}

    void write() {
        barrier_tracks();
        for (size_t i = 0; i < links_.copies.size(); ++i) copy_span(links_.copies[i], i);
        flows();
    }

private:
    double ts(double cycles) const { return cycles * us_; }

    ChromeJson event(const char* ph, const char* cat, const std::string& name, int pid, int tid, double t_cycles) {
        ChromeJson j;
        j["name"] = name;
        j["cat"] = cat;
        j["ph"] = ph;
        j["ts"] = ts(t_cycles);
        j["pid"] = pid;
        j["tid"] = tid;
        return j;
    }

    int barrier_tid(int cta, const std::string& barrier) {
        auto [it, fresh] = barrier_tids_.try_emplace({cta, barrier}, 0);
        if (fresh) {
            it->second = kChromeBarrierTid + static_cast<int>(barrier_tids_.size()) - 1;
            emit_(chrome_meta("thread_name", chrome_pid(cta), it->second, "name", "barrier " + barrier));
            emit_(chrome_meta("thread_sort_index", chrome_pid(cta), it->second, "sort_index", it->second));
        }
        return it->second;
    }

    // A short slice on the barrier's own track, where flows can bind.
    void marker(const TraceEvent& e, const std::string& barrier, const std::string& name) {
        ChromeJson j = event("X", "barrier", name, chrome_pid(e.cta), barrier_tid(e.cta, barrier), e.t);
        j["dur"] = ts(kMarkerCycles);
        ChromeJson args;
        args["key"] = e.key();
        for (const auto& [k, v] : detail_of_(e)) args[k] = v;
        j["args"] = std::move(args);
        emit_(j);
    }

    void barrier_tracks() {
        for (const CopyFlight& c : links_.copies)
            for (const TraceEvent* tx : c.complete_tx) {
                const std::string barrier = tx->detail.count("barrier") ? tx->detail.at("barrier") : "?";
                const std::string bytes = tx->detail.count("bytes") ? tx->detail.at("bytes") : "?";
                marker(*tx, barrier, "complete_tx " + bytes + " B (" + op_label(*tx, names_) + ")");
            }
        for (const PhaseFlip& f : links_.flips)
            marker(*f.event, f.barrier, "phase " + std::to_string(f.phase) + " complete");
        for (const auto& [key, samples] : links_.barriers) {
            const auto& [cta, barrier] = key;
            for (const BarrierSample& s : samples) {
                ChromeJson tx = event("C", "barrier", barrier + " tx-count", chrome_pid(cta), 0, s.t);
                tx.erase("tid");
                tx["args"]["tx_count"] = s.tx_count;
                emit_(tx);
                ChromeJson phase = event("C", "barrier", barrier + " phase", chrome_pid(cta), 0, s.t);
                phase.erase("tid");
                phase["args"]["phases_completed"] = s.phases_completed;
                emit_(phase);
            }
        }
    }

    void copy_span(const CopyFlight& c, size_t index) {
        const TraceEvent& at = c.issue ? *c.issue : *c.first;
        const std::string name = op_label(at, names_) + " in flight";
        const std::string id = "copy" + std::to_string(index);
        ChromeJson b = event("b", "copy", name, chrome_pid(at.cta), chrome_tid(at.warp), c.start);
        b["id"] = id;
        ChromeJson args;
        args["key"] = at.key();
        args["cycles"] = c.end - c.start;
        if (c.first->detail.count("bytes")) args["bytes"] = c.first->detail.at("bytes");
        b["args"] = std::move(args);
        emit_(b);
        ChromeJson e = event("e", "copy", name, chrome_pid(at.cta), chrome_tid(at.warp), c.end);
        e["id"] = id;
        emit_(e);
    }

    // One flow per arrow chain: a flow is a line, so a flip that releases several waits
    // starts one chain per wait.
    struct Point {
        int pid, tid;
        double t_cycles;
    };

    void chain(const std::vector<Point>& all, const std::string& name) {
        // Two transactions landing in one cycle on one barrier are one point of the line.
        std::vector<Point> points;
        for (const Point& p : all)
            if (points.empty() || p.pid != points.back().pid || p.tid != points.back().tid ||
                p.t_cycles != points.back().t_cycles)
                points.push_back(p);
        if (points.size() < 2) return;
        const int id = next_flow_++;
        for (size_t i = 0; i < points.size(); ++i) {
            const char* ph = i == 0 ? "s" : i + 1 == points.size() ? "f" : "t";
            ChromeJson j = event(ph, "flow", name, points[i].pid, points[i].tid, points[i].t_cycles);
            j["id"] = id;
            j["bp"] = "e";
            emit_(j);
        }
    }

    // Inside the slice [begin, end] on a warp's track.
    static double inside(int64_t begin, int64_t end) {
        return end > begin ? static_cast<double>(begin) + static_cast<double>(end - begin) / 2.0
                           : static_cast<double>(begin);
    }

    Point wait_point(const TraceEvent& wait_end) const {
        auto it = wait_begin_.find(wait_end.key());
        const int64_t begin = it == wait_begin_.end() ? wait_end.t : it->second;
        // Near the end of the wait slice: the arrow lands where the wait returns.
        const double t = wait_end.t > begin ? static_cast<double>(wait_end.t) - std::min(0.5, (wait_end.t - begin) / 2.0)
                                            : static_cast<double>(wait_end.t);
        return {chrome_pid(wait_end.cta), chrome_tid(wait_end.warp), t};
    }

    Point marker_point(const TraceEvent& e, const std::string& barrier) {
        return {chrome_pid(e.cta), barrier_tid(e.cta, barrier), static_cast<double>(e.t) + kMarkerCycles / 2};
    }

    void flows() {
        std::vector<bool> flip_reached(links_.flips.size(), false);
        for (const CopyFlight& c : links_.copies) {
            if (!c.issue || c.complete_tx.empty()) continue;
            std::vector<Point> head;
            head.push_back({chrome_pid(c.issue->cta), chrome_tid(c.issue->warp), inside(c.issue->t, complete_of(*c.issue))});
            for (const TraceEvent* tx : c.complete_tx)
                head.push_back(marker_point(*tx, tx->detail.count("barrier") ? tx->detail.at("barrier") : "?"));
            const std::string name = op_label(*c.issue, names_);
            if (c.flips.empty()) chain(head, name);
            for (size_t fi : c.flips) {
                const PhaseFlip& f = links_.flips[fi];
                flip_reached[fi] = true;
                std::vector<Point> to_flip = head;
                to_flip.push_back(marker_point(*f.event, f.barrier));
                if (f.released.empty()) chain(to_flip, name);
                for (const TraceEvent* w : f.released) {
                    std::vector<Point> full = to_flip;
                    full.push_back(wait_point(*w));
                    chain(full, name);
                }
            }
        }
        // Flips no copy caused (the last arrive completed the phase) still release waits.
        for (size_t fi = 0; fi < links_.flips.size(); ++fi) {
            if (flip_reached[fi]) continue;
            const PhaseFlip& f = links_.flips[fi];
            for (const TraceEvent* w : f.released)
                chain({marker_point(*f.event, f.barrier), wait_point(*w)}, f.barrier + " phase " + std::to_string(f.phase));
        }
    }

    int64_t complete_of(const TraceEvent& issue) const {
        auto it = complete_.find(issue.key());
        return it == complete_.end() ? issue.t : it->second;
    }

public:
    // issue key -> complete time, wait_end key -> wait_begin time (keys of the span's end).
    void index(const RunResult& r) {
        for (const TraceEvent& e : r.events) {
            if (e.model_only) continue;
            std::string key = e.key();
            const std::string stem = key.substr(0, key.rfind(':'));
            if (e.kind == EventKind::complete) complete_[stem + ":issue"] = e.t;
            if (e.kind == EventKind::wait_begin) wait_begin_[stem + ":wait_end"] = e.t;
        }
    }

private:
    const TraceLinks& links_;
    const OpNames& names_;
    double us_;
    const ChromeEmit& emit_;
    const EventDetailOf& detail_of_;
    std::map<std::pair<int, std::string>, int> barrier_tids_;
    std::map<std::string, int64_t> complete_, wait_begin_;
    int next_flow_ = 1;
};

}  // namespace

ChromeJson chrome_meta(const char* what, int pid, int tid, const char* key, const ChromeJson& value) {
    ChromeJson j;
    j["name"] = what;
    j["ph"] = "M";
    j["pid"] = pid;
    j["tid"] = tid;
    j["args"][key] = value;
    return j;
}

void append_chrome_links(const RunResult& result, const TraceLinks& links, const OpNames& names, double us_per_cycle,
                         const ChromeEmit& emit, const EventDetailOf& detail_of) {
    LinkWriter writer(links, names, us_per_cycle, emit, detail_of);
    writer.index(result);
    writer.write();
}

}  // namespace tmasim
