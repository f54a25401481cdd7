#pragma once
// Names declared in a body's blocks, each mapped to its innermost visible declaration (an
// index into the function's registers or variables). Closing a block takes its declarations
// back out, restoring what they shadowed, so a lookup is one probe however many blocks came
// and went. An open-addressing table over names copied into an arena: a `%r<1048576>` is a
// million declarations, which a node-based map made a second of mallocs and cache misses.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace tmasim::ptx {

class ScopedNames {
public:
    // The declaration `name` resolves to, -1 none.
    int find(std::string_view name) const;
    // `index` now answers for `name` until the innermost open block closes.
    void declare(std::string_view name, int index);
    void open_block() { marks_.push_back(live_.size()); }
    void close_block();
    void clear();

private:
    struct Slot {
        uint32_t hash = 0;
        int32_t key = -1;   // index in keys_; -1: empty
        int32_t value = -1;
    };
    struct Live {
        int32_t key;
        int32_t shadowed;   // what the name meant before, -1 nothing
    };
    static uint32_t hash_of(std::string_view name);
    size_t slot_of(std::string_view name, uint32_t hash) const;  // its slot, or the empty one it would take
    void grow();
    void erase(size_t slot);
    std::string_view intern(std::string_view name);

    std::vector<Slot> slots_;            // a power of two, at most half full
    size_t used_ = 0;
    std::vector<std::string_view> keys_;  // views into chunks_
    std::vector<std::unique_ptr<char[]>> chunks_;
    size_t chunk_left_ = 0;
    char* chunk_at_ = nullptr;
    std::vector<Live> live_;
    std::vector<size_t> marks_;
};

}  // namespace tmasim::ptx
