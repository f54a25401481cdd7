#pragma once
// The CUDA driver API, loaded at run time: tmasim never links libcuda, so it starts (and
// the model backend runs) on machines without an NVIDIA driver. Every entry point is
// resolved through cuGetProcAddress at the ABI version its PFN typedef names, so a newer
// driver never hands us a changed signature (cuCtxSynchronize gained a parameter in 13.0).
#include <cuda.h>
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "device/launch/device_unavailable.h"

namespace tmasim::device {


// A driver call failed; what() is "<call>: <CUDA_ERROR_NAME>: <CUDA's message>".
class CudaError : public std::runtime_error {
public:
    CudaError(const std::string& call, CUresult code, const std::string& name,
              const std::string& message);
    CUresult code() const { return code_; }
    const std::string& name() const { return name_; }        // "CUDA_ERROR_ILLEGAL_INSTRUCTION"
    const std::string& message() const { return message_; }  // CUDA's sentence
    const std::string& call() const { return call_; }

private:
    std::string call_;
    CUresult code_;
    std::string name_;
    std::string message_;
};

// X(name, version): the driver functions tmasim uses and the ABI version of each.
#define TMASIM_CUDA_DRIVER_FUNCTIONS(X)  \
    X(cuInit, 2000)                       \
    X(cuDeviceGetCount, 2000)             \
    X(cuDeviceGet, 2000)                  \
    X(cuDeviceGetName, 2000)              \
    X(cuDeviceGetAttribute, 2000)         \
    X(cuDriverGetVersion, 2020)           \
    X(cuDevicePrimaryCtxRetain, 7000)     \
    X(cuDevicePrimaryCtxRelease, 11000)   \
    X(cuCtxSetCurrent, 4000)              \
    X(cuCtxSynchronize, 2000)             \
    X(cuModuleLoadData, 2000)             \
    X(cuModuleLoadDataEx, 2010)           \
    X(cuModuleGetGlobal, 3020)            \
    X(cuModuleUnload, 2000)               \
    X(cuModuleGetFunction, 2000)          \
    X(cuFuncSetAttribute, 9000)           \
    X(cuFuncGetAttribute, 2020)           \
    X(cuMemAlloc, 3020)                   \
    X(cuMemFree, 3020)                    \
    X(cuMemcpyHtoD, 3020)                 \
    X(cuMemcpyDtoH, 3020)                 \
    X(cuMemsetD8, 3020)                   \
    X(cuLaunchKernelEx, 11060)            \
    X(cuEventCreate, 2000)                \
    X(cuEventRecord, 2000)                \
    X(cuEventSynchronize, 2000)           \
    X(cuEventQuery, 2000)                 \
    X(cuEventElapsedTime, 2000)           \
    X(cuEventDestroy, 4000)               \
    X(cuGetErrorName, 6000)               \
    X(cuGetErrorString, 6000)             \
    X(cuTensorMapEncodeTiled, 12000)

class CudaDriver {
public:
    static constexpr const char* kDefaultLibrary = "libcuda.so.1";

    // The process-wide driver (loaded once). Throws DeviceUnavailable when libcuda.so.1
    // cannot be loaded: "no CUDA driver (libcuda.so.1 not found): ...".
    static const CudaDriver& get();
    // Loads `library` (tests pass a name that does not exist). Same errors as get().
    explicit CudaDriver(const std::string& library);
    ~CudaDriver();
    CudaDriver(const CudaDriver&) = delete;
    CudaDriver& operator=(const CudaDriver&) = delete;

#define TMASIM_DECLARE_PFN(name, version) PFN_##name##_v##version name = nullptr;
    TMASIM_CUDA_DRIVER_FUNCTIONS(TMASIM_DECLARE_PFN)
#undef TMASIM_DECLARE_PFN

    // Throws CudaError naming `call` unless rc is CUDA_SUCCESS.
    void check(CUresult rc, const char* call) const;
    std::string error_name(CUresult rc) const;
    std::string error_string(CUresult rc) const;

private:
    void* handle_ = nullptr;
};

}  // namespace tmasim::device
