// The HTML report's timeline: one SVG, a block per CTA with a row per warp (op slices),
// lanes of copies in flight, a row per barrier (tx-count and phase curves), flow arrows
// and hazard markers. Native SVG <title> tooltips; links to the source listing.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "traces/html_report.h"

namespace tmasim {
namespace {

constexpr double kLeft = 180, kPlotWidth = 1180, kRight = 30, kAxis = 34;
constexpr double kCtaHeader = 24, kWarpRow = 22, kCopyLane = 13, kBarrierRow = 48, kGap = 10;
constexpr int kMaxCopyLanes = 8;

using ExecId = std::tuple<int, std::vector<int64_t>, int, int, int>;

struct Slice {
    const TraceEvent* begin = nullptr;
    int64_t end = 0;
    bool finished = true;
};

// Colors by what an op does, so a pipeline's rhythm reads at a glance.
std::string op_class(const std::string& name) {
    if (name.find("wait") != std::string::npos || name == "sync" || name.rfind("cluster.", 0) == 0) return "wait";
    if (name.rfind("tma.", 0) == 0 || name.rfind("bulk.", 0) == 0 || name.rfind("cp.", 0) == 0 ||
        name.rfind("st.async", 0) == 0)
        return "copy";
    if (name.rfind("mbarrier.", 0) == 0) return "barrier";
    if (name.rfind("wgmma.", 0) == 0) return "mma";
    return "compute";
}

class Timeline {
public:
    Timeline(const RunResult& r, const TraceLinks& links, const ReportContext& c) : r_(r), links_(links), c_(c) {
        for (const TraceEvent& e : r.events) t_max_ = std::max(t_max_, e.t);
        if (t_max_ <= 0) t_max_ = 1;
    }

    // Straight to `out`: the height is known from the layout, so the body is never held as a
    // string (three copies of a 12 MB timeline were most of a large trace's report).
    void write(std::ostream& out) {
        collect();
        layout();
        out << fmt::format(
            "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"100%\" "
            "style=\"min-width:{2}px\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
            "aria-label=\"timeline\">\n",
            kLeft + kPlotWidth + kRight, height_, (kLeft + kPlotWidth + kRight) * 0.6);
        out << "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" "
               "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L8,4 L0,8 z\" class=\"arrowhead\"/>"
               "</marker></defs>\n";
        axis(out);
        for (int cta : ctas_) block(cta, out);
        flows(out);
        out << "</svg>\n";
    }

private:
    double x(double t) const { return kLeft + t / static_cast<double>(t_max_) * kPlotWidth; }

    std::string name_of(int op) const {
        auto it = c_.names.find(op);
        return it == c_.names.end() || it->second.empty() ? "op" : it->second;
    }

    std::string link_open(int op) const {
        auto it = c_.op_lines.find(op);
        return it == c_.op_lines.end() || !c_.scenario_found ? "" : fmt::format("<a href=\"#src-L{}\">", it->second);
    }
    std::string link_close(int op) const { return link_open(op).empty() ? "" : "</a>"; }

    void collect() {
        std::map<ExecId, const TraceEvent*> open;
        for (const TraceEvent* e : events_in_trace_order(r_)) {
            ctas_.insert(e->cta);
            if (e->model_only) continue;
            warps_[e->cta].insert(e->warp);
            const ExecId id{e->op, e->iters, e->cta, e->warp, e->lane};
            if (e->kind == EventKind::issue || e->kind == EventKind::wait_begin) open[id] = e;
            if ((e->kind == EventKind::complete || e->kind == EventKind::wait_end) && open.count(id)) {
                slices_.push_back({open[id], e->t, true});
                open.erase(id);
            }
        }
        for (const auto& [id, e] : open) slices_.push_back({e, t_max_, false});  // a hang, a fault
        for (const auto& [key, samples] : links_.barriers) barriers_[key.first].push_back(key.second);
    }

    void layout() {
        double y = kAxis;
        for (int cta : ctas_) {
            cta_top_[cta] = y;
            y += kCtaHeader;
            for (int w : warps_[cta]) {
                warp_y_[{cta, w}] = y + kWarpRow / 2;
                y += kWarpRow;
            }
            // Copies in flight, greedily packed into lanes.
            std::vector<int64_t> lane_end;
            for (size_t i = 0; i < links_.copies.size(); ++i) {
                const CopyFlight& c = links_.copies[i];
                if (c.first->cta != cta) continue;
                size_t lane = 0;
                while (lane < lane_end.size() && lane_end[lane] > c.start) ++lane;
                if (lane == lane_end.size()) {
                    if (lane_end.size() == kMaxCopyLanes) lane = kMaxCopyLanes - 1;  // overlap the last
                    else lane_end.push_back(0);
                }
                lane_end[lane] = std::max(lane_end[lane], c.end);
                copy_lane_[i] = lane;
            }
            copy_top_[cta] = y;
            y += lane_end.empty() ? 0 : kCopyLane * static_cast<double>(lane_end.size()) + 4;
            for (const std::string& b : barriers_[cta]) {
                barrier_top_[{cta, b}] = y;
                y += kBarrierRow;
            }
            cta_bottom_[cta] = y;
            y += kGap;
        }
        height_ = y + 4;
    }

    void axis(std::ostream& out) const {
        // About 10 ticks at 1, 2 or 5 times a power of ten.
        const double raw = static_cast<double>(t_max_) / 10;
        const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
        const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
        out << fmt::format("<text class=\"axis-title\" x=\"4\" y=\"14\">cycles since kernel entry</text>\n");
        for (double t = 0; t <= static_cast<double>(t_max_); t += step) {
            out << fmt::format("<line class=\"tick\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>"
                               "<text class=\"tick-label\" x=\"{0:.1f}\" y=\"{3}\">{4}</text>\n",
                               x(t), kAxis - 6, height_ - 4, kAxis - 10, static_cast<int64_t>(t));
        }
    }

    void block(int cta, std::ostream& out) {
        out << fmt::format("<rect class=\"cta-frame\" x=\"2\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
                           cta_top_[cta], kLeft + kPlotWidth + kRight - 4, cta_bottom_[cta] - cta_top_[cta]);
        out << fmt::format("<text class=\"cta-label\" x=\"8\" y=\"{:.1f}\">CTA {}</text>\n", cta_top_[cta] + 16, cta);
        for (int w : warps_[cta])
            out << fmt::format("<text class=\"row-label\" x=\"16\" y=\"{:.1f}\">warp {}</text>\n",
                               warp_y_[{cta, w}] + 4, w);
        for (const Slice& s : slices_)
            if (s.begin->cta == cta) slice(s, out);
        copies(cta, out);
        for (const std::string& b : barriers_[cta]) barrier(cta, b, out);
        for (const TraceEvent& e : r_.events)
            if (e.cta == cta && e.kind == EventKind::hazard) hazard(e, out);
    }

    void slice(const Slice& s, std::ostream& out) const {
        const TraceEvent& b = *s.begin;
        const std::string name = name_of(b.op);
        const double x0 = x(static_cast<double>(b.t)), x1 = std::max(x(static_cast<double>(s.end)), x0 + 1.5);
        const double y = warp_y_.at({b.cta, b.warp});
        auto line = c_.op_lines.find(b.op);
        out << link_open(b.op)
            << fmt::format("<rect class=\"op {}{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\">"
                           "<title>{} (lane {}): {} {} .. {} ({} cycles){}{}</title></rect>",
                           op_class(name), s.finished ? "" : " unfinished", x0, y - kWarpRow / 2 + 3, x1 - x0,
                           kWarpRow - 6, html_escape(op_label(b, c_.names)), b.lane, to_string(b.kind), b.t, s.end,
                           s.end - b.t, s.finished ? "" : ", never finished",
                           line == c_.op_lines.end() ? "" : fmt::format(", line {}", line->second))
            << link_close(b.op) << '\n';
    }

    void copies(int cta, std::ostream& out) const {
        for (const auto& [i, lane] : copy_lane_) {
            const CopyFlight& c = links_.copies[i];
            if (c.first->cta != cta) continue;
            const TraceEvent& at = c.issue ? *c.issue : *c.first;
            const double x0 = x(static_cast<double>(c.start)), x1 = std::max(x(static_cast<double>(c.end)), x0 + 2);
            const double y = copy_top_.at(cta) + kCopyLane * static_cast<double>(lane) + 1;
            const std::string bytes = c.first->detail.count("bytes") ? c.first->detail.at("bytes") + " B" : "";
            const std::string label = op_label(at, c_.names) + (bytes.empty() ? "" : " " + bytes);
            out << fmt::format("<rect class=\"flight\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\">"
                               "<title>{} in flight: {} .. {} ({} cycles, warp {})</title></rect>",
                               x0, y, x1 - x0, kCopyLane - 2, html_escape(label), c.start, c.end, c.end - c.start,
                               at.warp);
            if (x1 - x0 > 7.0 * static_cast<double>(label.size()))
                out << fmt::format("<text class=\"flight-label\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", x0 + 3,
                                   y + kCopyLane - 4, html_escape(label));
            out << '\n';
        }
        if (std::any_of(copy_lane_.begin(), copy_lane_.end(),
                        [&](const auto& p) { return links_.copies[p.first].first->cta == cta; }))
            out << fmt::format("<text class=\"row-label\" x=\"16\" y=\"{:.1f}\">copies in flight</text>\n",
                               copy_top_.at(cta) + 10);
    }

    // tx-count (upper curve, scaled to its largest value) and completed phases (lower step
    // curve) of one barrier; dots where bytes landed, diamonds where a phase completed.
    void barrier(int cta, const std::string& b, std::ostream& out) const {
        const auto& samples = links_.barriers.at({cta, b});
        const double top = barrier_top_.at({cta, b});
        int64_t tx_max = 1, phase_max = 1;
        for (const BarrierSample& s : samples) {
            tx_max = std::max({tx_max, s.tx_before, s.tx_count});
            phase_max = std::max(phase_max, s.phases_completed);
        }
        const double tx_top = top + 6, tx_h = 20, ph_top = top + 30, ph_h = 12;
        auto ty = [&](int64_t v) { return tx_top + tx_h * (1.0 - static_cast<double>(v) / static_cast<double>(tx_max)); };
        auto py = [&](int64_t v) { return ph_top + ph_h * (1.0 - static_cast<double>(v) / static_cast<double>(phase_max)); };
        out << fmt::format("<line class=\"barrier-sep\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>",
                           kLeft - 140, kLeft + kPlotWidth, top + 1);
        out << fmt::format("<text class=\"row-label\" x=\"16\" y=\"{:.1f}\">barrier {}</text>", top + 16,
                           html_escape(b));
        out << fmt::format("<text class=\"row-sub\" x=\"16\" y=\"{:.1f}\">tx-count (max {} B), phase</text>\n",
                           top + 30, tx_max);
        // Step curves: level until the next sample, then straight up or down at its time.
        // The tx-count is known where bytes land (the model logs it then); between two
        // samples an arrive.expect_tx may have raised it, drawn as a rise at the next one.
        // A copy's bytes are pending on the barrier from its issue: the level its first
        // transaction starts from is drawn from then on.
        std::vector<std::pair<int64_t, int64_t>> levels;  // (t, tx-count), in time order
        for (const CopyFlight& c : links_.copies) {
            if (c.complete_tx.empty()) continue;
            const TraceEvent& tx = *c.complete_tx.front();
            auto same = std::find_if(samples.begin(), samples.end(), [&](const BarrierSample& s) { return s.t == tx.t; });
            if (tx.cta == cta && tx.detail.count("barrier") && tx.detail.at("barrier") == b && same != samples.end())
                levels.push_back({c.start, same->tx_before});
        }
        for (const BarrierSample& s : samples) {
            levels.push_back({s.t, s.tx_before});
            levels.push_back({s.t, s.tx_count});
        }
        std::stable_sort(levels.begin(), levels.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
        std::string tx_path = fmt::format("M{:.1f},{:.1f}", x(0), ty(0));
        for (const auto& [t, level] : levels)
            tx_path += fmt::format(" H{:.1f} V{:.1f}", x(static_cast<double>(t)), ty(level));
        std::string ph_path = fmt::format("M{:.1f},{:.1f}", x(0), py(0));
        for (const BarrierSample& s : samples)
            ph_path += fmt::format(" H{:.1f} V{:.1f}", x(static_cast<double>(s.t)), py(s.phases_completed));
        if (!samples.empty()) {
            const double end = x(static_cast<double>(t_max_));
            tx_path += fmt::format(" H{:.1f}", end);
            ph_path += fmt::format(" H{:.1f}", end);
        }
        out << fmt::format("<path class=\"tx-curve\" d=\"{}\"/><path class=\"phase-curve\" d=\"{}\"/>\n", tx_path,
                           ph_path);
        for (const BarrierSample& s : samples) {
            const double sx = x(static_cast<double>(s.t));
            if (s.tx_before != s.tx_count)
                out << fmt::format("<circle class=\"tx-dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\"><title>t={}: "
                                   "complete_tx {} B, tx-count {} -> {}</title></circle>",
                                   sx, ty(s.tx_count), s.t, s.tx_before - s.tx_count, s.tx_before, s.tx_count);
        }
        for (const PhaseFlip& f : links_.flips) {
            if (f.event->cta != cta || f.barrier != b) continue;
            const double fx = x(static_cast<double>(f.event->t)), fy = ph_top + ph_h / 2;
            out << fmt::format("<path class=\"flip\" d=\"M{0:.1f},{1:.1f} l4,4 l-4,4 l-4,-4 z\"><title>t={2}: phase "
                               "{3} of {4} completed; {5} wait(s) released</title></path>",
                               fx, fy - 4, f.event->t, f.phase, html_escape(b), f.released.size());
        }
        out << '\n';
    }

    void hazard(const TraceEvent& e, std::ostream& out) const {
        const double hx = x(static_cast<double>(e.t));
        auto y = warp_y_.find({e.cta, e.warp});
        const double hy = y == warp_y_.end() ? cta_top_.at(e.cta) + kCtaHeader : y->second;
        out << fmt::format("<line class=\"hazard-line\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>",
                           hx, cta_top_.at(e.cta) + 4, cta_bottom_.at(e.cta) - 2);
        out << link_open(e.op)
            << fmt::format("<path class=\"hazard\" d=\"M{0:.1f},{1:.1f} l6,10 l-12,0 z\"><title>hazard {2} at {3}, "
                           "t={4}</title></path>",
                           hx, hy - 6, html_escape(e.what), html_escape(op_label(e, c_.names)), e.t)
            << link_close(e.op) << '\n';
    }

    // issue -> each complete_tx -> the phase flip -> every wait it released.
    void flows(std::ostream& out) const {
        auto curve = [&](double x0, double y0, double x1, double y1, bool arrow) {
            const double mid = (x0 + x1) / 2;
            out << fmt::format("<path class=\"flow\" d=\"M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"{}/>",
                               x0, y0, mid, y0, mid, y1, x1, y1, arrow ? " marker-end=\"url(#arrow)\"" : "");
        };
        auto barrier_y = [&](int cta, const std::string& b) {
            auto it = barrier_top_.find({cta, b});
            return it == barrier_top_.end() ? -1.0 : it->second + 16;
        };
        std::set<size_t> drawn_flips;
        for (const CopyFlight& c : links_.copies) {
            if (!c.issue) continue;
            double px = x(static_cast<double>(c.issue->t)), py = warp_y_.at({c.issue->cta, c.issue->warp});
            for (const TraceEvent* tx : c.complete_tx) {
                const double by = barrier_y(tx->cta, tx->detail.count("barrier") ? tx->detail.at("barrier") : "?");
                if (by < 0) continue;
                const double tx_x = x(static_cast<double>(tx->t));
                if (tx_x != px || by != py) curve(px, py, tx_x, by, true);
                px = tx_x;
                py = by;
            }
            for (size_t fi : c.flips) drawn_flips.insert(fi);
        }
        for (const PhaseFlip& f : links_.flips) {
            const double fx = x(static_cast<double>(f.event->t)), fy = barrier_y(f.event->cta, f.barrier);
            if (fy < 0) continue;
            for (const TraceEvent* w : f.released) {
                auto wy = warp_y_.find({w->cta, w->warp});
                if (wy != warp_y_.end()) curve(fx, fy, x(static_cast<double>(w->t)), wy->second, true);
            }
        }
        out << '\n';
    }

    const RunResult& r_;
    const TraceLinks& links_;
    const ReportContext& c_;
    int64_t t_max_ = 1;
    double height_ = 0;
    std::set<int> ctas_;
    std::map<int, std::set<int>> warps_;
    std::map<int, std::vector<std::string>> barriers_;
    std::vector<Slice> slices_;
    std::map<std::pair<int, int>, double> warp_y_;
    std::map<int, double> cta_top_, cta_bottom_, copy_top_;
    std::map<std::pair<int, std::string>, double> barrier_top_;
    std::map<size_t, size_t> copy_lane_;
};

}  // namespace

void write_timeline_svg(const RunResult& result, const TraceLinks& links, const ReportContext& context,
                        std::ostream& out) {
    Timeline(result, links, context).write(out);
}

std::string timeline_svg(const RunResult& result, const TraceLinks& links, const ReportContext& context) {
    std::ostringstream out;
    write_timeline_svg(result, links, context, out);
    return out.str();
}

}  // namespace tmasim
