// The device backend of a tmasim configured without the CUDA toolkit (model only): the
// CUDA-free parts (codegen, PTX wrappers) are built as usual; what needs NVRTC or the
// driver says it was not built, as DeviceUnavailable, so `run --backend device` exits 2
// with that sentence and a batch skips its device runs with it.
#include "device/bench/bench_executor.h"
#include "device/launch/device_unavailable.h"
#include "device/bench/kernel_bench.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/run/run_device.h"

namespace tmasim {
namespace {
[[noreturn]] void not_built() {
    throw device::DeviceUnavailable(
        "the device backend was not built: this tmasim was configured without the CUDA 13 toolkit "
        "(reconfigure with -DCUDA_ROOT=<toolkit> to build it)");
}
}  // namespace

RunResult run_device(const Scenario&, const DeviceOptions&) { not_built(); }

namespace device {
std::string nvrtc_version() { return "not built"; }
CompileResult compile_cuda(const std::string&, const std::string&, const std::string&, bool) { not_built(); }
std::string resolve_cache_dir(const std::string&) { return ""; }
int run_executor_overhead(const BenchOptions&, std::ostream&) { not_built(); }
int run_kernel_overhead(const KernelBenchOptions&, std::ostream&) { not_built(); }
std::vector<std::string> bench_case_names() { return {}; }
void require_device() { not_built(); }
std::string reference_kernel_source(const std::string&, int) { not_built(); }
}  // namespace device

}  // namespace tmasim
