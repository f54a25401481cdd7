#include "device/launch/cuda_driver.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace tmasim::device {

CudaError::CudaError(const std::string& call, CUresult code, const std::string& name,
                     const std::string& message)
    : std::runtime_error(fmt::format("{}: {}: {}", call, name, message)),
      call_(call),
      code_(code),
      name_(name),
      message_(message) {}

const CudaDriver& CudaDriver::get() {
    // A failed load throws out of the initializer, so the next call tries again.
    static const CudaDriver driver(kDefaultLibrary);
    return driver;
}

CudaDriver::CudaDriver(const std::string& library) {
    handle_ = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
        // The usual case (no file) gets the plain message; anything else (a broken or
        // foreign-architecture library) adds the loader's reason.
        const char* why = ::dlerror();
        const std::string reason = why ? why : "";
        const bool missing = reason.empty() || reason.find("No such file") != std::string::npos;
        throw DeviceUnavailable(fmt::format(
            "no CUDA driver ({} not found): the device backend needs an NVIDIA GPU; use "
            "--backend model{}",
            library, missing ? std::string() : " [dlopen: " + reason + "]"));
    }
    // cuGetProcAddress_v2 (CUDA 12.0+) hands out each function at the version we ask for.
    auto get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(
        ::dlsym(handle_, "cuGetProcAddress_v2"));
    if (!get_proc) {
        ::dlclose(handle_);
        handle_ = nullptr;
        throw DeviceUnavailable(
            "CUDA driver too old: " + library +
            " lacks cuGetProcAddress_v2 (CUDA 12.0+ needed); update the NVIDIA driver");
    }
    auto resolve = [&](const char* name, int version, void** slot) {
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        const CUresult rc = get_proc(name, slot, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
        if (rc != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*slot)
            throw DeviceUnavailable(fmt::format(
                "CUDA driver {} lacks {} (ABI version {}); update the NVIDIA driver", library,
                name, version));
    };
#define TMASIM_RESOLVE_PFN(name, version) \
    resolve(#name, version, reinterpret_cast<void**>(&name));
    try {
        TMASIM_CUDA_DRIVER_FUNCTIONS(TMASIM_RESOLVE_PFN)
    } catch (...) {
        ::dlclose(handle_);
        handle_ = nullptr;
        throw;
    }
#undef TMASIM_RESOLVE_PFN
}

CudaDriver::~CudaDriver() {
    if (handle_) ::dlclose(handle_);
}

std::string CudaDriver::error_name(CUresult rc) const {
    const char* s = nullptr;
    if (cuGetErrorName && cuGetErrorName(rc, &s) == CUDA_SUCCESS && s) return s;
    return fmt::format("CUresult {}", static_cast<int>(rc));
}

std::string CudaDriver::error_string(CUresult rc) const {
    const char* s = nullptr;
    if (cuGetErrorString && cuGetErrorString(rc, &s) == CUDA_SUCCESS && s) return s;
    return "unknown CUDA error";
}

void CudaDriver::check(CUresult rc, const char* call) const {
    if (rc != CUDA_SUCCESS) throw CudaError(call, rc, error_name(rc), error_string(rc));
}

}  // namespace tmasim::device
