#pragma once
// The request path from the SMs' L1s to L2: the crossbar and the L2 slices, shared by the
// whole chip. A warp's global load or store instruction leaves its SM as one request per
// 128-byte line it touches (the line's sector mask; a store also carries its bytes), however
// few bytes of the line it uses. The path serves a fixed number of slots per cycle; a
// request takes one slot per 32-byte sector it moves plus a fixed overhead (the tag lookup
// and the request itself). HBM (DramChannel) limits the bytes, this path the requests: an
// access pattern that uses 32 bytes of each line it touches costs the path
// (overhead + 1) / (overhead + 4) of a full-line request for a quarter of the bytes, and at
// full chip is bound here rather than by HBM (the Gluon layouts tutorial's R = 16 memcpy
// on Hopper; the transposed 2-D memcpy, one 4-byte sector per request).
//
// A plain class with no SystemC: the layout ops count each instruction's lines and sectors
// (scenarios/layout_access.h count_sectors) and ask `pass` when they are through.
#include <cstdint>

namespace tmasim::model {

class L2RequestPath {
public:
    // `sectors_per_cycle`: slots per SM cycle for the whole chip (0 or less: no limit);
    // `overhead_sectors`: the slots a request takes besides one per sector.
    L2RequestPath(double sectors_per_cycle, double overhead_sectors)
        : sectors_per_cycle_(sectors_per_cycle), overhead_sectors_(overhead_sectors) {}

    // `requests` line requests moving `sectors` sectors in all that reach the path at cycle
    // `now`: the cycle the last of them is served, after the requests queued before them
    // (first come first served).
    int64_t pass(int64_t now, int64_t requests, int64_t sectors);

    int64_t requests() const { return requests_; }

private:
    double sectors_per_cycle_, overhead_sectors_;
    double free_at_ = 0;  // fractional: a request takes a small fraction of a cycle
    int64_t requests_ = 0;
};

}  // namespace tmasim::model
