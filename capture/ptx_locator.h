#pragma once
// Where a captured kernel's PTX comes from: a PTX text the program JIT-loaded (raw/ptx/), or the
// PTX nvcc embedded in a fatbin (raw/fatbin/, or the program and libraries raw/images.txt
// lists), extracted with the toolkit's cuobjdump. The replay runs that PTX on both backends.
#include <string>
#include <vector>

namespace tmasim::capture {

class PtxLocator {
public:
    // raw: the capture's raw/ folder. cuobjdump: the tool's path ("" finds it in CUDA_ROOT/bin or
    // on the PATH; needed only for a kernel that is not in a JIT-loaded PTX).
    explicit PtxLocator(std::string raw, std::string cuobjdump = "");
    // The PTX file holding `.entry <entry>` (an sm_90a/sm_100a target first), or throws
    // std::runtime_error saying where it looked.
    std::string find(const std::string& entry);

private:
    void extract(const std::string& file);
    std::string raw_, cuobjdump_;
    std::vector<std::string> extracted_from_;
    int extractions_ = 0;
};

// Whether `ptx` declares the kernel `entry` (`.entry NAME(` or `.entry NAME` then a newline).
bool ptx_declares_entry(const std::string& ptx, const std::string& entry);

}  // namespace tmasim::capture
