#include "model/state/global_memory.h"

#include <stdexcept>

#include "scenarios/values.h"

namespace tmasim::model {

GlobalMemory::GlobalMemory(const Scenario& s) {
    for (const auto& t : s.globals) {
        Entry e;
        e.decl = &t;
        e.bytes = initial_bytes(t);
        e.resident.assign((e.bytes.size() + kLineBytes - 1) / kLineBytes, false);
        order_.push_back(t.name);
        tensors_[t.name] = std::move(e);
    }
}

GlobalMemory::Entry& GlobalMemory::entry(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw std::out_of_range("model: unknown global tensor '" + name + "'");
    return it->second;
}

std::vector<uint8_t>& GlobalMemory::bytes(const std::string& name) {
    Entry& e = entry(name);
    e.written = true;
    return e.bytes;
}

const std::vector<uint8_t>& GlobalMemory::read_bytes(const std::string& name) { return entry(name).bytes; }

const GlobalTensor& GlobalMemory::tensor(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw std::out_of_range("model: unknown global tensor '" + name + "'");
    return *it->second.decl;
}

bool GlobalMemory::touch(const std::string& name, int64_t first, int64_t last) {
    Entry& e = entry(name);
    bool all = true;
    for (int64_t line = first / kLineBytes; line <= last / kLineBytes; ++line) {
        if (line < 0 || line >= static_cast<int64_t>(e.resident.size())) continue;
        all = all && e.resident[line];
        e.resident[line] = true;
    }
    return all;
}

std::vector<MemoryImage> GlobalMemory::take_images() {
    std::vector<MemoryImage> out;
    for (const auto& name : order_) {
        MemoryImage m;
        m.name = name;
        m.space = "global";
        Entry& e = tensors_.at(name);
        m.bytes = std::move(e.bytes);
        m.equals_init = !e.written;
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace tmasim::model
