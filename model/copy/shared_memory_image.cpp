#include "model/copy/shared_memory_image.h"

#include <algorithm>

#include "model/copy/tensor_copy.h"

namespace tmasim::model {

void InitLanding::write(GlobalMemory& global, std::vector<uint8_t>& smem) const {
    box->gather_global_to(
        [&](int64_t offset, int64_t n, uint8_t* out) { global.read_initial_range(tensor->name, offset, n, out); },
        coords, smem.data() + smem_offset);
}

SharedMemoryImage::SharedMemoryImage(size_t bytes, GlobalMemory& global) : bytes_(bytes, 0), global_(global) {}

std::vector<uint8_t>& SharedMemoryImage::bytes() {
    write_held();
    return bytes_;
}

const std::vector<uint8_t>& SharedMemoryImage::bytes() const {
    write_held();
    return bytes_;
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
    for (const InitLanding& h : held_) h.write(global_, bytes_);
    held_.clear();
}

}  // namespace tmasim::model
