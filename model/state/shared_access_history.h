#pragma once
// Generic-vs-generic races between the warps of one CTA in its own shared memory
// (semantics.md C22): the hazard classes compute-sanitizer's racecheck reports, read after
// write, write after read and write after write, between two accesses nothing orders.
//
// It keeps no clocks of its own: "ordered" is the proxy tracker's happens-before
// (ProxyTracker), which barrier.sync, named barriers, mbarrier release/acquire and the
// cluster barrier feed. A warp's threads run its ops in program order in the model (a
// converged warp), so the check works per warp: an access is stamped with every lane's
// next clock value, and a later access of another warp is ordered after it when some lane
// of that warp knows some lane of the first at its stamp (a release by any lane of the
// first warp after the access, reaching any lane of the second before its access). In an
// op scenario two accesses of one warp are never reported: its ops are the warp's, and the
// executor orders a warp's lanes after each shared store (__syncwarp). A kernel's lanes are
// threads like any other (PTX 8.1, independent scheduling): lanes_apart(true) checks a later
// access by another lane of the same warp against that lane's own knowledge, so lane 0's
// store read by lane 1 with no bar.warp.sync (or other barrier) between them races. Reads
// are kept one per warp (its latest), so a write after reads by two lanes of its own warp
// is checked against the later read only.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "model/state/proxy_tracker.h"

namespace tmasim::model {

enum class SharedHazard { raw, war, waw };
const char* hazard_text(SharedHazard h);

// An earlier access the current one races with, and the bytes of the current access
// (CTA offsets) that race with it.
// A generic access an async-proxy write overwrites with no fence.proxy.async on the causality
// path between them (semantics.md B12), and the bytes of the write it covers (CTA offsets).
struct UnfencedAccess {
    int thread = -1;
    int op = -1;
    bool write = false;
    int64_t first = 0;
    int64_t last = 0;
};

struct SharedRace {
    SharedHazard hazard = SharedHazard::raw;
    int thread = -1;  // the earlier access's thread
    int op = -1;      // and its op id
    int64_t first = 0;
    int64_t last = 0;
};

class SharedAccessHistory {
public:
    using LaneStamps = std::array<uint32_t, 32>;
    // What one warp knows and its lanes' stamps, taken once per op instance of the warp
    // (no release or acquire happens inside one op, so they hold for all its lanes).
    struct WarpView {
        int warp = -1;
        VectorClock knows;                         // join of the lanes' knowledge
        std::shared_ptr<const LaneStamps> stamp;   // each lane's next clock value
        const ProxyTracker* clocks = nullptr;      // each lane's own knowledge (lanes_apart)
    };
    static WarpView view(const ProxyTracker& clocks, int warp);

    explicit SharedAccessHistory(int64_t smem_bytes);
    // Whether accesses by two lanes of one warp are checked (a kernel scenario's; see above).
    void lanes_apart(bool on) { lanes_apart_ = on; }

    // Checks thread `thread`'s access of [offset, offset + bytes) against the history, then
    // records it (unless `record` is false). Returns the first race found (earliest byte), if
    // any. An async copy's write is checked, unrecorded, at its issue: the reads and writes
    // of other warps not ordered before the issue race with it (its landing is
    // AsyncWriteRegistry's business). Only bytes that held data before count (a buffer
    // reused): a read of bytes nothing wrote yet, ahead of the copy that fills them, is
    // the read-before-wait bug C17's rules report at the read.
    std::optional<SharedRace> access(const WarpView& warp, int thread, int64_t offset, int64_t bytes, bool is_write,
                                     int op, bool record = true);

    // Every access recorded here is generic (wgmma's operand reads are not recorded). As for
    // the races, only bytes that held data count: a read of bytes nothing wrote yet reads
    // garbage either way. Call it before the issue's own access() marks its bytes filled.
    // An async-proxy write (a TMA or bulk load, a multicast delivery) that `issuer` issues now
    // into [offset, offset + bytes): the first generic access of these bytes ordered before the
    // issue (unordered ones are the races access() reports) whose causality path to it has no
    // fence.proxy.async, as ProxyTracker::access_is_fenced judges it for some lane of the
    // accessing warp.
    std::optional<UnfencedAccess> unfenced_before_async_write(const ProxyTracker& clocks, const WarpView& issuer_warp,
                                                              int issuer, int64_t offset, int64_t bytes) const;

    // An async copy's issue check (access with record false) of bytes no generic access has
    // touched finds no race and only marks them filled: does that and returns true when no
    // byte of [offset, offset + bytes) has a history, so the caller need not take a view.
    bool fill_untouched(int64_t offset, int64_t bytes);

    static const char* rule_of(SharedHazard h);
    // Bytes an async write filled that access() did not see issued (a peer's multicast
    // delivery, st.async): they hold data from now on.
    void mark_filled(int64_t offset, int64_t bytes) {
        set_filled(std::max<int64_t>(offset, 0), std::min<int64_t>(offset + bytes, size_));
    }

private:
    struct Stamp {
        int thread = -1;
        int op = -1;
        std::shared_ptr<const LaneStamps> lanes;
    };
    // Whether some lane of the warp that made `access` fenced it towards `issuer` (B12).
    static bool fenced(const ProxyTracker& clocks, int issuer, const Stamp& access);
    struct ByteHistory {
        Stamp write;
        std::vector<Stamp> reads;  // since `write`, at most one per warp (its latest)
    };
    // Histories live in blocks made on a byte's first generic access: a streaming CTA's
    // shared memory only ever sees async copies, and a 56-byte history per byte of every
    // CTA's shared memory was a third of a full-chip run's memory and a sixth of its time.
    static constexpr int64_t kBlockBytes = 256;
    struct Block {
        std::array<ByteHistory, kBlockBytes> bytes;
        // Per byte, one bit: a generic access recorded a history there (a history, once made,
        // is never emptied). An async copy's checks walk these bytes only: lane 0 of 4 warps
        // reading one element of a 16 KB stage makes 4 blocks, and walking their 1024 bytes at
        // every refill was a sixth of a full-chip run.
        std::array<uint64_t, kBlockBytes / 64> touched{};
        bool is_touched(int64_t i) const { return (touched[static_cast<size_t>(i) / 64] >> (i % 64)) & 1; }
        // The first touched byte of the block in [i, end), or end.
        int64_t next_touched(int64_t i, int64_t end) const;
    };
    // access() without recording (an async copy's issue) over [first, end) of one block.
    void check_block_unrecorded(const Block& block, int64_t first, int64_t end, const WarpView& warp, int thread,
                                std::optional<SharedRace>& race);
    // The race, if any, of an access now with byte `b`'s history, merged into `race`.
    void check_byte(const WarpView& warp, int thread, bool is_write, int64_t b, const ByteHistory& h,
                    std::optional<SharedRace>& race) const;
    // Whether `earlier` happens before thread `thread`'s access now.
    bool ordered(const WarpView& now, int thread, const Stamp& earlier) const;
    Block& block_of(int64_t byte);  // made on first use
    // Marks [first, end) filled when no byte in it has a history; false (nothing marked) else.
    bool fill_if_no_history(int64_t first, int64_t end);

    int64_t size_ = 0;
    bool lanes_apart_ = false;
    std::vector<std::unique_ptr<Block>> blocks_;  // sized with the first block made
    bool any_block_ = false;  // some entry of blocks_ is made
    // Per byte, one bit: an async copy was issued into it. Bits, not bytes: a streaming CTA
    // marks every tile it loads, and a byte per byte was 16 KB set per 16 KB tile.
    std::vector<uint64_t> filled_;
    bool filled(int64_t byte) const { return (filled_[static_cast<size_t>(byte) / 64] >> (byte % 64)) & 1; }
    void set_filled(int64_t byte) { filled_[static_cast<size_t>(byte) / 64] |= uint64_t{1} << (byte % 64); }
    void set_filled(int64_t first, int64_t end);  // [first, end)
    // Per word of filled_, one bit: that word is all ones (bits are never cleared, so it
    // stays so). A streaming CTA fills each 16 KB tile again at every load: 2 KB of bits,
    // cold at 132 CTAs, rewritten with what they held; the 32 bytes of this summary say so.
    // A clear bit claims nothing (single-byte marks do not update it).
    std::vector<uint64_t> full_words_;
};

}  // namespace tmasim::model
