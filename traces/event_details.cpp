#include "traces/event_details.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/event_line_reader.h"
#include "traces/trace_error.h"
#include "traces/trace_writer.h"

namespace tmasim {

EventDetails::EventDetails(const std::string& path, const TraceFile& file) : path_(path), file_(file) {
    if (!file.trimmed_details.empty()) {
        in_.open(path, std::ios::binary);
        if (!in_) throw TraceError(path, 0, "cannot open the trace file again to read its events' details");
    }
}

// The line at `offset`, at most kMaxTraceLineBytes as when it was first read.
std::string EventDetails::read_line_at(uint64_t offset) {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    std::string line;
    std::vector<char> block(size_t(64) << 10);
    for (;;) {
        in_.read(block.data(), static_cast<std::streamsize>(block.size()));
        const size_t got = static_cast<size_t>(in_.gcount());
        const char* newline = static_cast<const char*>(std::memchr(block.data(), '\n', got));
        line.append(block.data(), newline ? static_cast<size_t>(newline - block.data()) : got);
        if (line.size() > kMaxTraceLineBytes) break;
        if (newline || got < block.size()) return line;
    }
    throw TraceError(path_, 0, "the event line at byte " + std::to_string(offset) + " changed since it was read");
}

const std::map<std::string, std::string>& EventDetails::of(const TraceEvent& e) {
    const auto& trimmed = file_.trimmed_details;
    const size_t index = static_cast<size_t>(&e - file_.result.events.data());
    const auto it = std::lower_bound(trimmed.begin(), trimmed.end(), std::make_pair(index, uint64_t(0)));
    if (it == trimmed.end() || it->first != index) return e.detail;
    const std::string line = read_line_at(it->second);
    const auto changed = [&] {
        return TraceError(path_, 0, "the event line at byte " + std::to_string(it->second) +
                                        " no longer holds the event " + e.key() + " (the file changed since it was read)");
    };
    TraceEvent again;
    std::string name;
    if (read_event_line_fast(line, file_.version, again, name)) {
        if (again.key() != e.key() || again.t != e.t) throw changed();
        read_ = std::move(again.detail);
        return read_;
    }
    // A line the writer did not write in its fast form, valid as the reader found it: its
    // detail through the JSON tree.
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    try {
        again.op = j.at("op").get<int>();
        again.iters = j.at("iters").get<std::vector<int64_t>>();
        again.cta = j.at("cta").get<int>();
        again.warp = j.at("warp").get<int>();
        again.lane = j.at("lane").get<int>();
        const auto kind = parse_event_kind(j.at("kind").get<std::string>());
        if (!kind) throw changed();
        again.kind = *kind;
        if (again.key() != e.key() || j.at("t").get<int64_t>() != e.t) throw changed();
        read_ = j.at("detail").get<std::map<std::string, std::string>>();
    } catch (const nlohmann::json::exception&) {
        throw changed();
    }
    return read_;
}

}  // namespace tmasim
