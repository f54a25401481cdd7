#pragma once
// The global tensors of one run, shared by every CTA, plus which 128-byte lines the TMA
// has touched: the model's L2 residency, so a second access pays L2 latency, not HBM.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

class GlobalMemory {
public:
    static constexpr int64_t kLineBytes = 128;

    explicit GlobalMemory(const Scenario& s);

    // Throws std::out_of_range for an unknown tensor name. `bytes` is for writers: the
    // tensor then counts as changed; readers use read_bytes, so a tensor only read keeps
    // MemoryImage::equals_init (its trace may hold only its hash). A tensor's bytes are made
    // from its declared init when first asked for.
    std::vector<uint8_t>& bytes(const std::string& tensor);
    const std::vector<uint8_t>& read_bytes(const std::string& tensor);
    // Bytes [offset, offset + n) of a tensor into `out` (the range lies inside it): from its
    // bytes, or, while nobody has asked for them, made from the declared init for just this
    // range. A full-chip stream's TMA loads read its 276 MB input this way, a tile at a time,
    // and the input is never held whole (its first touch alone was a tenth of the run).
    void read_range(const std::string& tensor, int64_t offset, int64_t n, uint8_t* out);
    // Whether the tensor's bytes were never made: it still holds its declared init.
    bool holds_init(const std::string& tensor) { return !entry(tensor).made; }
    // Bytes [offset, offset + n) of the tensor's declared init, whatever it holds now.
    void read_initial_range(const std::string& tensor, int64_t offset, int64_t n, uint8_t* out);
    const GlobalTensor& tensor(const std::string& name) const;
    // True when every line of bytes [first, last] was touched before; marks them touched.
    // `cta`: the CTA touching them, for note_touching_ctas (-1: none, as at launch).
    bool touch(const std::string& tensor, int64_t first, int64_t last, int cta = -1);
    // From now on, the CTAs touch lines one CTA after another (model/run/cta_schedule.h): a
    // CTA touching a line an earlier CTA touched may have touched it earlier in time, and a run
    // that finds one (ctas_shared_lines) is run again with the CTAs together.
    void note_touching_ctas() { note_ctas_ = true; }
    bool ctas_shared_lines() const { return ctas_shared_lines_; }
    // Final images, in declaration order; the bytes move out (the tensors are empty after),
    // since a full-chip input tensor is hundreds of MB. A tensor of at least kXxh64MinBytes
    // whose bytes were never made is given as its size and XXH64 (MemoryImage::digest_only,
    // hashed block by block from its init: what a trace keeps of an unchanged input, FORMAT.md),
    // unless `unchanged_input_bytes` (tmasim run --memory-bytes all).
    std::vector<MemoryImage> take_images(bool unchanged_input_bytes = false);

private:
    struct Entry {
        const GlobalTensor* decl = nullptr;
        std::vector<uint8_t> bytes;
        std::vector<bool> resident;  // per line
        // With note_touching_ctas: the runs of lines the CTAs touched, disjoint, by first line,
        // each with its last line and its CTA (a stream touches a run per CTA, not a flag per line).
        struct Touched {
            int64_t last = 0;
            int cta = -1;
        };
        std::map<int64_t, Touched> by_cta;
        bool written = false;        // someone asked for the bytes to write them
        bool made = false;           // `bytes` holds the tensor (else: its declared init)
    };
    Entry& entry(const std::string& name);
    Entry& made_entry(const std::string& name);  // with its bytes made
    static void read_init(const GlobalTensor& t, int64_t offset, int64_t n, uint8_t* out);  // n > 0
    bool note_ctas_ = false;
    bool ctas_shared_lines_ = false;
    void note_touch(Entry& e, int64_t first_line, int64_t last_line, int cta);
    std::vector<std::string> order_;
    std::map<std::string, Entry> tensors_;
};

}  // namespace tmasim::model
