#include "ptx/scoped_names.h"

#include <algorithm>
#include <cstring>

namespace tmasim::ptx {

namespace {

constexpr size_t kChunkBytes = 64 * 1024;

}  // namespace

uint32_t ScopedNames::hash_of(std::string_view name) {
    // FNV-1a with a final mix: names differ mostly in their last digits (%r12, %r13).
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return uint32_t(h);
}

size_t ScopedNames::slot_of(std::string_view name, uint32_t hash) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.key < 0 || (s.hash == hash && keys_[size_t(s.key)] == name)) return i;
    }
}

int ScopedNames::find(std::string_view name) const {
    if (used_ == 0) return -1;
    const Slot& s = slots_[slot_of(name, hash_of(name))];
    return s.key < 0 ? -1 : s.value;
}

void ScopedNames::declare(std::string_view name, int index) {
    if (slots_.empty()) slots_.resize(64);
    const uint32_t hash = hash_of(name);
    size_t i = slot_of(name, hash);
    if (slots_[i].key >= 0) {
        live_.push_back(Live{slots_[i].key, slots_[i].value});
        slots_[i].value = index;
        return;
    }
    if (2 * (used_ + 1) > slots_.size()) {
        grow();
        i = slot_of(name, hash);
    }
    const int32_t key = int32_t(keys_.size());
    keys_.push_back(intern(name));
    slots_[i] = Slot{hash, key, index};
    ++used_;
    live_.push_back(Live{key, -1});
}

void ScopedNames::close_block() {
    const size_t mark = marks_.back();
    marks_.pop_back();
    while (live_.size() > mark) {
        const Live l = live_.back();
        live_.pop_back();
        std::string_view name = keys_[size_t(l.key)];
        const size_t i = slot_of(name, hash_of(name));
        if (l.shadowed < 0)
            erase(i);
        else
            slots_[i].value = l.shadowed;
    }
}

void ScopedNames::clear() {
    // A body that was read to its end left the table empty (closing block 0 took its names
    // out): no sweep over a table a large function grew, once per small function after it.
    if (used_ > 0) std::fill(slots_.begin(), slots_.end(), Slot{});
    used_ = 0;
    keys_.clear();
    // Keep one chunk: most functions' names fit in it.
    if (chunks_.size() > 1) chunks_.resize(1);
    chunk_at_ = chunks_.empty() ? nullptr : chunks_[0].get();
    chunk_left_ = chunks_.empty() ? 0 : kChunkBytes;
    live_.clear();
    marks_.clear();
}

void ScopedNames::grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.resize(old.size() * 2);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
        if (s.key < 0) continue;
        size_t i = s.hash & mask;
        while (slots_[i].key >= 0) i = (i + 1) & mask;
        slots_[i] = s;
    }
}

void ScopedNames::erase(size_t hole) {
    // Backward-shift deletion: move up each later entry of the run that may sit in the hole,
    // so that no probe from its home slot meets an empty slot before it.
    const size_t mask = slots_.size() - 1;
    for (size_t j = (hole + 1) & mask; slots_[j].key >= 0; j = (j + 1) & mask) {
        const size_t home = slots_[j].hash & mask;
        const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            slots_[hole] = slots_[j];
            hole = j;
        }
    }
    slots_[hole] = Slot{};
    --used_;
}

std::string_view ScopedNames::intern(std::string_view name) {
    if (name.size() > chunk_left_) {
        const size_t bytes = std::max(kChunkBytes, name.size());
        chunks_.push_back(std::unique_ptr<char[]>(new char[bytes]));  // not make_unique: that zeroes 64 KB
        chunk_at_ = chunks_.back().get();
        chunk_left_ = bytes;
    }
    std::memcpy(chunk_at_, name.data(), name.size());
    std::string_view kept(chunk_at_, name.size());
    chunk_at_ += name.size();
    chunk_left_ -= name.size();
    return kept;
}

}  // namespace tmasim::ptx
