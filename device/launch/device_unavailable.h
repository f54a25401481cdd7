#pragma once
// The one error that means "no device run can happen here": no CUDA driver, no GPU, a GPU
// older than the scenario needs, or a tmasim built without the CUDA toolkit. Kept apart
// from cuda_driver.h so code that only reports it needs no CUDA headers; with it, the two checks
// that throw it before any run (defined where the driver is: launch/gpu_session.cpp, run/kernel_run.cpp).
#include <stdexcept>
#include <string>
#include <vector>

namespace tmasim::device {

class DeviceUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws DeviceUnavailable unless a GPU of compute capability `cc_major`.`cc_minor` runs PTX of
// the module's `.target`s: sm_90a only on 9.0, sm_100f on 10.x, plain sm_XY from XY up.
void require_ptx_targets(const std::vector<std::string>& targets, int cc_major, int cc_minor, const std::string& gpu);

// Throws DeviceUnavailable when no scenario can run on this machine at all: no CUDA driver, no
// GPU, one older than Hopper, a tmasim built without the toolkit. A batch asks once before its
// runs (cli/device_child.h). It opens the GPU as a run does, so call it in a child process, as
// the runs are: a process that has initialised CUDA cannot hand it to the children it forks.
void require_device();

}  // namespace tmasim::device
