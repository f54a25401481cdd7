#include "model/copy/shared_memory_image.h"

#include <algorithm>

#include "model/copy/tensor_copy.h"

namespace tmasim::model {

void InitLanding::write(GlobalMemory& global, uint8_t* at) const {
    box->gather_global_to(
        [&](int64_t offset, int64_t n, uint8_t* out) { global.read_initial_range(tensor->name, offset, n, out); },
        coords, at);
}

SharedMemoryImage::SharedMemoryImage(size_t bytes, GlobalMemory& global) : size_(bytes), global_(global) {}

void SharedMemoryImage::make_bytes() const {
    if (made_) return;
    bytes_.assign(size_, 0);
    made_ = true;
}

std::vector<uint8_t>& SharedMemoryImage::bytes() {
    make_bytes();
    write_held();
    return bytes_;
}

const std::vector<uint8_t>& SharedMemoryImage::bytes() const {
    make_bytes();
    write_held();
    return bytes_;
}

std::vector<uint8_t> SharedMemoryImage::copy_range(size_t offset, size_t n) const {
    const auto inside = [&](const InitLanding& h) {
        return static_cast<size_t>(h.smem_offset) >= offset && static_cast<size_t>(h.smem_offset + h.bytes) <= offset + n;
    };
    const auto outside = [&](const InitLanding& h) {
        return static_cast<size_t>(h.smem_offset + h.bytes) <= offset || static_cast<size_t>(h.smem_offset) >= offset + n;
    };
    const bool direct = !made_ && std::all_of(held_.begin(), held_.end(), [&](const InitLanding& h) {
        return inside(h) || outside(h);
    });
    if (!direct) {
        const std::vector<uint8_t>& all = bytes();
        return std::vector<uint8_t>(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                    all.begin() + static_cast<std::ptrdiff_t>(offset + n));
    }
    std::vector<uint8_t> out(n, 0);
    for (const InitLanding& h : held_)
        if (inside(h)) h.write(global_, out.data() + (static_cast<size_t>(h.smem_offset) - offset));
    return out;
}

void SharedMemoryImage::land_from_init(InitLanding landing) {
    // Landings whose every byte this one overwrites can never be seen: nothing read the
    // bytes since they landed (a read writes and clears the list).
    const int64_t first = landing.smem_offset, end = landing.smem_offset + landing.bytes;
    held_.erase(std::remove_if(held_.begin(), held_.end(),
                               [&](const InitLanding& h) {
                                   return h.smem_offset >= first && h.smem_offset + h.bytes <= end;
                               }),
                held_.end());
    if (held_.size() >= kMostHeld) write_held();
    held_.push_back(std::move(landing));
}

void SharedMemoryImage::write_held() const {
    if (held_.empty()) return;
    make_bytes();
    for (const InitLanding& h : held_) h.write(global_, bytes_.data() + h.smem_offset);
    held_.clear();
}

}  // namespace tmasim::model
