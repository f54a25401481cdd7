#include "model/state/shared_access_history.h"

#include <algorithm>
#include <limits>

namespace tmasim::model {

const char* hazard_text(SharedHazard h) {
    switch (h) {
        case SharedHazard::raw: return "read after write";
        case SharedHazard::war: return "write after read";
        case SharedHazard::waw: return "write after write";
    }
    return "";
}

const char* SharedAccessHistory::rule_of(SharedHazard h) {
    switch (h) {
        case SharedHazard::raw: return "race.shared_raw";
        case SharedHazard::war: return "race.shared_war";
        case SharedHazard::waw: return "race.shared_waw";
    }
    return "";
}

SharedAccessHistory::WarpView SharedAccessHistory::view(const ProxyTracker& clocks, int warp) {
    WarpView v;
    v.warp = warp;
    std::vector<int> lanes;
    auto stamp = std::make_shared<LaneStamps>();
    for (int l = 0; l < 32; ++l) {
        const int t = warp * 32 + l;
        // A lane the CTA does not have never releases anything.
        (*stamp)[l] = t < clocks.num_threads() ? clocks.time_of(t) + 1 : std::numeric_limits<uint32_t>::max();
        if (t < clocks.num_threads()) lanes.push_back(t);
    }
    v.knows = clocks.known_by(lanes);
    v.stamp = std::move(stamp);
    v.clocks = &clocks;
    return v;
}

SharedAccessHistory::SharedAccessHistory(int64_t smem_bytes)
    : size_(std::max<int64_t>(smem_bytes, 0)),
      filled_(static_cast<size_t>((size_ + 63) / 64), 0),
      full_words_((filled_.size() + 63) / 64, 0) {}

void SharedAccessHistory::set_filled(int64_t first, int64_t end) {
    if (first >= end) return;
    const size_t w0 = static_cast<size_t>(first / 64), w1 = static_cast<size_t>((end - 1) / 64);
    const uint64_t head = ~uint64_t{0} << (first % 64);                // bits first%64.. of w0
    const uint64_t tail = ~uint64_t{0} >> (63 - (end - 1) % 64);       // bits ..(end-1)%64 of w1
    // A word known full is left alone; one that becomes full is noted.
    const auto mark = [this](size_t w, uint64_t bits) {
        const uint64_t known = uint64_t{1} << (w % 64);
        if (full_words_[w / 64] & known) return;
        if ((filled_[w] |= bits) == ~uint64_t{0}) full_words_[w / 64] |= known;
    };
    if (w0 == w1) {
        mark(w0, head & tail);
        return;
    }
    mark(w0, head);
    // The whole words in between, 64 at a time against the summary: only words not known
    // to be full are written (and then known to be).
    for (size_t w = w0 + 1; w < w1;) {
        const size_t s = w / 64, chunk_end = std::min(w1, (s + 1) * 64);
        const size_t n = chunk_end - w;
        const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << (w % 64);
        if ((full_words_[s] & mask) != mask) {
            std::fill(filled_.begin() + static_cast<std::ptrdiff_t>(w),
                      filled_.begin() + static_cast<std::ptrdiff_t>(chunk_end), ~uint64_t{0});
            full_words_[s] |= mask;
        }
        w = chunk_end;
    }
    mark(w1, tail);
}

SharedAccessHistory::Block& SharedAccessHistory::block_of(int64_t byte) {
    if (blocks_.empty())  // no block made yet: the pointers too are made with the first
        blocks_.resize(static_cast<size_t>((size_ + kBlockBytes - 1) / kBlockBytes));
    std::unique_ptr<Block>& block = blocks_[static_cast<size_t>(byte / kBlockBytes)];
    if (!block) {
        block = std::make_unique<Block>();
        any_block_ = true;
    }
    return *block;
}

int64_t SharedAccessHistory::Block::next_touched(int64_t i, int64_t end) const {
    while (i < end) {
        const uint64_t word = touched[static_cast<size_t>(i) / 64] >> (i % 64);
        if (word) return std::min(end, i + __builtin_ctzll(word));
        i = (i / 64 + 1) * 64;
    }
    return end;
}

bool SharedAccessHistory::fill_if_no_history(int64_t first, int64_t end) {
    if (first >= end) return true;
    // No block at all (a CTA whose threads never touch shared memory): no pointer to read.
    for (int64_t b = first / kBlockBytes; any_block_ && b <= (end - 1) / kBlockBytes; ++b)
        if (blocks_[static_cast<size_t>(b)]) return false;
    set_filled(first, end);
    return true;
}

bool SharedAccessHistory::fill_untouched(int64_t offset, int64_t bytes) {
    return fill_if_no_history(std::max<int64_t>(offset, 0), std::min<int64_t>(offset + bytes, size_));
}

bool SharedAccessHistory::ordered(const WarpView& now, int thread, const Stamp& earlier) const {
    if (!earlier.lanes) return true;
    if (earlier.thread / 32 == now.warp) {
        if (!lanes_apart_ || earlier.thread == thread || !now.clocks) return true;  // program order
        return now.clocks->knows(thread, earlier.thread, (*earlier.lanes)[static_cast<size_t>(earlier.thread % 32)]);
    }
    const int base = earlier.thread / 32 * 32;
    for (int l = 0; l < 32; ++l) {
        const size_t t = static_cast<size_t>(base + l);
        if (t < now.knows.size() && now.knows[t] >= (*earlier.lanes)[l]) return true;
    }
    return false;
}

std::optional<SharedRace> SharedAccessHistory::access(const WarpView& warp, int thread, int64_t offset,
                                                      int64_t bytes, bool is_write, int op, bool record) {
    std::optional<SharedRace> race;
    const Stamp now{thread, op, warp.stamp};
    const int64_t end = std::min<int64_t>(offset + bytes, size_);
    if (!record) {  // an async write's issue: block by block, the touched bytes only
        for (int64_t b = std::max<int64_t>(offset, 0); b < end;) {
            const int64_t block_end = std::min((b / kBlockBytes + 1) * kBlockBytes, end);
            const std::unique_ptr<Block>* block =
                blocks_.empty() ? nullptr : &blocks_[static_cast<size_t>(b / kBlockBytes)];
            if (block && *block) check_block_unrecorded(**block, b, block_end, warp, thread, race);
            set_filled(b, block_end);
            b = block_end;
        }
        return race;
    }
    for (int64_t b = std::max<int64_t>(offset, 0); b < end; ++b) {
        Block& block = block_of(b);
        ByteHistory& h = block.bytes[static_cast<size_t>(b % kBlockBytes)];
        block.touched[static_cast<size_t>(b % kBlockBytes) / 64] |= uint64_t{1} << (b % 64);
        check_byte(warp, thread, is_write, b, h, race);
        if (is_write) {
            h.write = now;
            h.reads.clear();
            continue;
        }
        auto mine = std::find_if(h.reads.begin(), h.reads.end(),
                                 [&](const Stamp& r) { return r.thread / 32 == thread / 32; });
        if (mine != h.reads.end()) *mine = now;
        else h.reads.push_back(now);
    }
    return race;
}

void SharedAccessHistory::check_byte(const WarpView& warp, int thread, bool is_write, int64_t b,
                                     const ByteHistory& h, std::optional<SharedRace>& race) const {
    const Stamp* other = nullptr;
    SharedHazard kind = SharedHazard::raw;
    if (!ordered(warp, thread, h.write)) {
        other = &h.write;
        kind = is_write ? SharedHazard::waw : SharedHazard::raw;
    } else if (is_write) {
        for (const Stamp& r : h.reads)
            if (!ordered(warp, thread, r)) {
                other = &r;
                kind = SharedHazard::war;
                break;
            }
    }
    if (!other) return;
    if (!race) {
        race = SharedRace{kind, other->thread, other->op, b, b};
    } else if (race->hazard == kind && race->thread == other->thread && race->op == other->op && race->last == b - 1) {
        race->last = b;
    }
}

// A byte no generic access touched has no write and no reads: nothing races with it, and it
// is only marked filled (by the caller, after: a touched byte's check reads its mark as it was).
void SharedAccessHistory::check_block_unrecorded(const Block& block, int64_t first, int64_t end, const WarpView& warp,
                                                 int thread, std::optional<SharedRace>& race) {
    const int64_t base = first / kBlockBytes * kBlockBytes;
    for (int64_t i = block.next_touched(first - base, end - base); i < end - base;
         i = block.next_touched(i + 1, end - base)) {
        const int64_t b = base + i;
        const ByteHistory& h = block.bytes[static_cast<size_t>(i)];
        if (!filled(b) && !h.write.lanes) continue;
        check_byte(warp, thread, true, b, h, race);
    }
}

bool SharedAccessHistory::fenced(const ProxyTracker& clocks, int issuer, const Stamp& access) {
    const int base = access.thread / 32 * 32;
    // The issuing warp's own accesses: its lanes run its ops in program order in the model
    // (C22), so a fence by any of its lanes after the access is on the path to the issue.
    const bool own_warp = base == issuer / 32 * 32;
    for (int l = 0; l < 32; ++l) {
        const int t = base + l;
        if (t >= clocks.num_threads()) break;
        const uint32_t stamp = (*access.lanes)[static_cast<size_t>(l)];
        if (own_warp ? clocks.fenced_since(t, stamp) : clocks.access_is_fenced(issuer, t, stamp)) return true;
    }
    return false;
}

std::optional<UnfencedAccess> SharedAccessHistory::unfenced_before_async_write(const ProxyTracker& clocks,
                                                                              const WarpView& issuer_warp, int issuer,
                                                                              int64_t offset, int64_t bytes) const {
    if (!any_block_) return std::nullopt;
    std::optional<UnfencedAccess> out;
    // One op instance of a warp stamps all the bytes it touched with one LaneStamps: judged
    // once per stamp, not once per byte (a 16 KB stage its consumers read is 16K lookups).
    std::vector<std::pair<const LaneStamps*, bool>> judged;
    const auto unfenced = [&](const Stamp& s) {
        if (!s.lanes || !ordered(issuer_warp, issuer, s)) return false;
        for (const auto& [p, ok] : judged)
            if (p == s.lanes.get()) return !ok;
        const bool ok = fenced(clocks, issuer, s);
        judged.emplace_back(s.lanes.get(), ok);
        return !ok;
    };
    const int64_t end = std::min<int64_t>(offset + bytes, size_);
    for (int64_t b = std::max<int64_t>(offset, 0); b < end; ++b) {
        const std::unique_ptr<Block>& block = blocks_[static_cast<size_t>(b / kBlockBytes)];
        const int64_t base = b / kBlockBytes * kBlockBytes;
        // An untouched byte has no history, nor does a block not made: on to the next touched one.
        const int64_t next = block ? base + block->next_touched(b - base, std::min(end - base, kBlockBytes)) : end;
        if (!block || next >= std::min(end, base + kBlockBytes)) {
            b = std::min(end, base + kBlockBytes) - 1;
            continue;
        }
        b = next;
        const ByteHistory& h = block->bytes[static_cast<size_t>(b % kBlockBytes)];
        if (!filled(b) && !h.write.lanes) continue;
        const Stamp* hit = unfenced(h.write) ? &h.write : nullptr;
        for (size_t i = 0; !hit && i < h.reads.size(); ++i)
            if (unfenced(h.reads[i])) hit = &h.reads[i];
        if (!hit) continue;
        if (!out) out = UnfencedAccess{hit->thread, hit->op, hit == &h.write, b, b};
        else if (out->thread == hit->thread && out->op == hit->op && out->last == b - 1) out->last = b;
    }
    return out;
}

}  // namespace tmasim::model
