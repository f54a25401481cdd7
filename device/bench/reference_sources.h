#pragma once
// The hand-written reference kernels of device/reference/, built into the binary (the
// benchmark compiles them with NVRTC wherever it runs, without the source tree).
#include <string>
#include <vector>

namespace tmasim::device {

struct ReferenceSource {
    std::string file;  // "tma_stream.cu", "common.cuh"
    std::string text;
};
const std::vector<ReferenceSource>& reference_sources();

}  // namespace tmasim::device
