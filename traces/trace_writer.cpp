#include "traces/trace_writer.h"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "scenarios/values.h"
#include "traces/provenance_fields.h"

namespace tmasim {
namespace {

// ordered_json keeps insertion order, which is what makes the output byte-stable.
using Json = nlohmann::ordered_json;

// Messages come from backends and may hold stray bytes; a trace must still be written.
std::string dump(const Json& j) {
    return j.dump(-1, ' ', false, nlohmann::detail::error_handler_t::replace);
}

Json string_map(const std::map<std::string, std::string>& m) {
    Json j = Json::object();
    for (const auto& [k, v] : m) j[k] = v;  // std::map iterates in key order
    return j;
}

Json iters_json(const std::vector<int64_t>& iters) {
    Json j = Json::array();
    for (int64_t i : iters) j.push_back(i);
    return j;
}

Json header_json(const Provenance& p) {
    Json j;
    j["type"] = "header";
    j["format"] = kTraceFormat;
    j["version"] = kTraceVersion;
    put_provenance_fields(j, p);
    return j;
}

Json event_json(const TraceEvent& e, const OpNames& names) {
    Json j;
    j["type"] = "event";
    j["key"] = e.key();
    j["op"] = e.op;
    auto name = names.find(e.op);
    j["name"] = name == names.end() ? std::string() : name->second;
    j["iters"] = iters_json(e.iters);
    j["cta"] = e.cta;
    j["warp"] = e.warp;
    j["lane"] = e.lane;
    j["kind"] = to_string(e.kind);
    j["t"] = e.t;
    if (e.t_ns >= 0) j["t_ns"] = e.t_ns;  // FORMAT.md: absent when the backend has no timer
    j["model_only"] = e.model_only;
    if (!e.what.empty()) j["what"] = e.what;
    j["detail"] = string_map(e.detail);
    return j;
}

Json diagnostic_json(const Diagnostic& d) {
    Json j;
    j["type"] = "diagnostic";
    j["outcome"] = to_string(d.outcome);
    j["rule"] = d.rule;
    j["op"] = d.op;
    j["iters"] = iters_json(d.iters);
    j["cta"] = d.cta;
    j["message"] = d.message;
    j["detail"] = string_map(d.detail);
    return j;
}

Json memory_json(const MemoryImage& m) {
    Json j;
    j["type"] = "memory";
    j["name"] = m.name;
    j["space"] = m.space;
    j["cta"] = m.cta;
    j["size"] = m.bytes.size();
    j["fnv1a64"] = fnv1a64_hex(m.bytes.data(), m.bytes.size());
    j["hex"] = to_hex(m.bytes);
    return j;
}

bool event_order(const TraceEvent& a, const TraceEvent& b) {
    return std::make_tuple(a.cta, a.t, a.op, a.warp, a.lane, static_cast<int>(a.kind)) <
           std::make_tuple(b.cta, b.t, b.op, b.warp, b.lane, static_cast<int>(b.kind));
}

}  // namespace

OpNames op_names_of(const Scenario& scenario) {
    OpNames names;
    for (const Op* op : scenario.all_ops()) names[op->id] = to_string(op->kind);
    return names;
}

std::vector<const TraceEvent*> events_in_trace_order(const RunResult& result) {
    std::vector<const TraceEvent*> events;
    events.reserve(result.events.size());
    for (const TraceEvent& e : result.events) events.push_back(&e);
    std::stable_sort(events.begin(), events.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return event_order(*a, *b); });
    return events;
}

std::string to_hex(const std::vector<uint8_t>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string s(bytes.size() * 2, '0');
    for (size_t i = 0; i < bytes.size(); ++i) {
        s[2 * i] = digits[bytes[i] >> 4];
        s[2 * i + 1] = digits[bytes[i] & 15];
    }
    return s;
}

void write_trace(const RunResult& result, std::ostream& out, const OpNames& names) {
    out << dump(header_json(result.provenance)) << '\n';

    for (const TraceEvent* e : events_in_trace_order(result)) out << dump(event_json(*e, names)) << '\n';

    for (const Diagnostic& d : result.diagnostics) out << dump(diagnostic_json(d)) << '\n';
    for (const MemoryImage& m : result.memory) out << dump(memory_json(m)) << '\n';

    Json outcome;
    outcome["type"] = "outcome";
    outcome["outcome"] = to_string(result.outcome);
    out << dump(outcome) << '\n';
}

void write_trace_file(const RunResult& result, const std::string& path, const OpNames& names) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("traces: cannot open '" + path + "' for writing");
    write_trace(result, out, names);
    out.flush();
    if (!out) throw std::runtime_error("traces: error writing '" + path + "'");
}

}  // namespace tmasim
