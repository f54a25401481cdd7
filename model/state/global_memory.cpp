#include "model/state/global_memory.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "scenarios/values.h"
#include "scenarios/xxh64.h"

namespace tmasim::model {

GlobalMemory::GlobalMemory(const Scenario& s) {
    for (const auto& t : s.globals) {
        Entry e;
        e.decl = &t;
        e.resident.assign(static_cast<size_t>((t.size_bytes() + kLineBytes - 1) / kLineBytes), false);
        order_.push_back(t.name);
        tensors_[t.name] = std::move(e);
    }
}

GlobalMemory::Entry& GlobalMemory::entry(const std::string& name) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw std::out_of_range("model: unknown global tensor '" + name + "'");
    return it->second;
}

GlobalMemory::Entry& GlobalMemory::made_entry(const std::string& name) {
    Entry& e = entry(name);
    if (!e.made) {
        e.bytes = initial_bytes(*e.decl);
        e.made = true;
    }
    return e;
}

std::vector<uint8_t>& GlobalMemory::bytes(const std::string& name) {
    Entry& e = made_entry(name);
    e.written = true;
    return e.bytes;
}

const std::vector<uint8_t>& GlobalMemory::read_bytes(const std::string& name) { return made_entry(name).bytes; }

void GlobalMemory::read_range(const std::string& name, int64_t offset, int64_t n, uint8_t* out) {
    Entry& e = entry(name);
    if (n <= 0) return;
    if (e.made) {
        std::memcpy(out, e.bytes.data() + offset, static_cast<size_t>(n));
        return;
    }
    read_init(*e.decl, offset, n, out);
}

void GlobalMemory::read_initial_range(const std::string& name, int64_t offset, int64_t n, uint8_t* out) {
    if (n > 0) read_init(*entry(name).decl, offset, n, out);
}

void GlobalMemory::read_init(const GlobalTensor& t, int64_t offset, int64_t n, uint8_t* out) {
    const int64_t esize = dtype_size(t.type);
    const int64_t first = offset / esize, last = (offset + n - 1) / esize;
    if (offset % esize == 0 && n % esize == 0) {
        initial_elements(t, first, n / esize, out);
        return;
    }
    std::vector<uint8_t> elements(static_cast<size_t>((last - first + 1) * esize));
    initial_elements(t, first, last - first + 1, elements.data());
    std::memcpy(out, elements.data() + (offset - first * esize), static_cast<size_t>(n));
}

const GlobalTensor& GlobalMemory::tensor(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw std::out_of_range("model: unknown global tensor '" + name + "'");
    return *it->second.decl;
}

bool GlobalMemory::touch(const std::string& name, int64_t first, int64_t last, int cta) {
    Entry& e = entry(name);
    bool all = true;
    const int64_t lines = static_cast<int64_t>(e.resident.size());
    const int64_t from = std::max<int64_t>(first / kLineBytes, 0), to = std::min(last / kLineBytes, lines - 1);
    for (int64_t line = from; line <= to; ++line) {
        all = all && e.resident[line];
        e.resident[line] = true;
    }
    if (note_ctas_ && cta >= 0 && from <= to) note_touch(e, from, to, cta);
    return all;
}

// The runs stay disjoint: a touch merges with the runs of its CTA it overlaps or adjoins, and one
// overlapping a run of another CTA is a line two CTAs share (and ends the noting: the run is
// simulated again with the CTAs together).
void GlobalMemory::note_touch(Entry& e, int64_t from, int64_t to, int cta) {
    if (ctas_shared_lines_) return;
    auto it = e.by_cta.upper_bound(from);
    if (it != e.by_cta.begin() && std::prev(it)->second.last + 1 >= from) --it;
    int64_t lo = from, hi = to;
    while (it != e.by_cta.end() && it->first <= to + 1) {
        if (it->second.cta != cta) {
            if (it->first <= to && it->second.last >= from) {
                ctas_shared_lines_ = true;
                return;
            }
            ++it;  // another CTA's run next to this one: neither shared nor merged
            continue;
        }
        lo = std::min(lo, it->first);
        hi = std::max(hi, it->second.last);
        it = e.by_cta.erase(it);
    }
    e.by_cta.emplace(lo, Entry::Touched{hi, cta});
}

std::vector<MemoryImage> GlobalMemory::take_images(bool unchanged_input_bytes) {
    std::vector<MemoryImage> out;
    for (const auto& name : order_) {
        MemoryImage m;
        m.name = name;
        m.space = "global";
        Entry& e = tensors_.at(name);
        const uint64_t size = static_cast<uint64_t>(e.decl->size_bytes());
        if (!e.made && size >= kXxh64MinBytes && !unchanged_input_bytes) {
            Xxh64 hash;
            hash_initial_bytes(*e.decl, hash);
            m.digest_only = MemoryImage::Digest{size, "xxh64", hex16(hash.digest())};
            m.equals_init = true;
            out.push_back(std::move(m));
            continue;
        }
        m.bytes = std::move(made_entry(name).bytes);
        m.equals_init = !e.written;
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace tmasim::model
