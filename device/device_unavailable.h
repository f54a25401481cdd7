#pragma once
// The one error that means "no device run can happen here": no CUDA driver, no GPU, a GPU
// older than the scenario needs, or a tmasim built without the CUDA toolkit. Kept apart
// from cuda_driver.h so code that only reports it needs no CUDA headers.
#include <stdexcept>

namespace tmasim::device {

class DeviceUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace tmasim::device
