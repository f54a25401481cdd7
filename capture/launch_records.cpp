#include "capture/launch_records.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace tmasim::capture {

namespace {

using nlohmann::json;

std::vector<uint8_t> from_hex(const std::string& hex) {
    if (hex.size() % 2 != 0) throw std::runtime_error("odd number of hex digits");
    std::vector<uint8_t> out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    return out;
}

void dims3(const json& j, unsigned (&out)[3]) {
    if (!j.is_array() || j.size() != 3) throw std::runtime_error("expected 3 dimensions");
    for (int d = 0; d < 3; ++d) out[d] = j.at(d).get<unsigned>();
}

CapturedLaunch launch_of(const json& j) {
    CapturedLaunch l;
    l.entry = j.at("entry").get<std::string>();
    dims3(j.at("grid"), l.grid);
    dims3(j.at("block"), l.block);
    dims3(j.at("cluster"), l.cluster);
    l.dynamic_shared = j.at("dynamic_shared").get<unsigned>();
    l.sync_before = j.at("sync_before").get<int>();
    l.sync_after = j.at("sync_after").get<int>();
    l.refused = j.at("refused").get<std::string>();
    for (const json& p : j.at("params")) l.params.push_back({p.at("offset").get<uint64_t>(), from_hex(p.at("hex").get<std::string>())});
    for (const json& r : j.at("regions"))
        l.regions.push_back({r.at("base").get<uint64_t>(), r.at("size").get<uint64_t>(), r.at("before").get<std::string>(),
                             r.at("after").get<std::string>()});
    for (const json& m : j.at("maps")) {
        CapturedMap c;
        c.param = m.at("param").get<size_t>();
        c.at = m.at("at").get<size_t>();
        c.dtype = m.at("dtype").get<int>();
        c.global_address = m.at("global_address").get<uint64_t>();
        c.dims = m.at("dims").get<std::vector<uint64_t>>();
        c.strides = m.at("strides").get<std::vector<uint64_t>>();
        c.box = m.at("box").get<std::vector<uint32_t>>();
        c.element_strides = m.at("element_strides").get<std::vector<uint32_t>>();
        c.interleave = m.at("interleave").get<int>();
        c.swizzle = m.at("swizzle").get<int>();
        c.l2_promotion = m.at("l2_promotion").get<int>();
        c.oob_fill = m.at("oob_fill").get<int>();
        if (c.param >= l.params.size() || c.dims.empty() || c.box.size() != c.dims.size() ||
            c.element_strides.size() != c.dims.size() || c.strides.size() + 1 != c.dims.size())
            throw std::runtime_error("a tensor map whose param or dimensions disagree");
        l.maps.push_back(std::move(c));
    }
    return l;
}

}  // namespace

std::vector<CapturedLaunch> read_launches(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot read (no launch was captured?)");
    std::vector<CapturedLaunch> out;
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (line.empty()) continue;
        try {
            CapturedLaunch l = launch_of(json::parse(line));
            l.index = static_cast<int>(out.size());
            out.push_back(std::move(l));
        } catch (const std::exception& e) {
            throw std::runtime_error(path + ":" + std::to_string(line_no) + ": not a captured launch: " + e.what());
        }
    }
    return out;
}

}  // namespace tmasim::capture
