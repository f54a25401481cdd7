// A fake libcuda.so.1 for the device tests on machines without a GPU: it hands out, through
// cuGetProcAddress_v2, the driver entry points tmasim resolves (device/launch/cuda_driver.h), with
// "device" memory in host memory. A launch runs no code: it logs what it was given (grid,
// block, cluster, shared memory, each param's bytes as the PTX's signature sizes them) and,
// for a module the timing rewrite made (it declares __tmasim_timing), writes what the rewritten
// kernel would into the timing buffer: each thread's entry and exit, one record of op 0 by
// thread 0. tests/device/test_kernel_run_fake_driver.cpp runs tmasim with it on
// LD_LIBRARY_PATH. Environment: TMASIM_FAKE_CUDA_LOG (the log's path), TMASIM_FAKE_CUDA_HANG
// ("all": no launch finishes; "rewritten": no launch of a rewrite does), TMASIM_FAKE_CUDA_FAULT
// (launches fault), TMASIM_FAKE_CUDA_REFUSE (the launch call fails).
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

struct Module {
    std::string ptx;
    uint64_t timing_variable = 0;  // the "device" storage of __tmasim_timing
    bool has_timing() const { return ptx.find("__tmasim_timing") != std::string::npos; }
};
struct Function {
    Module* module;
    std::string name;
};
struct Event {
    double ms = 0;
    bool pending = false, faulted = false;
};

double g_clock_ms = 0;
bool g_hung = false, g_faulted = false;

bool env(const char* name, const char* value = nullptr) {
    const char* v = std::getenv(name);
    return v && (!value || std::strcmp(v, value) == 0);
}

void log_line(const std::string& line) {
    const char* path = std::getenv("TMASIM_FAKE_CUDA_LOG");
    if (!path) return;
    if (FILE* f = std::fopen(path, "a")) {
        std::fprintf(f, "%s\n", line.c_str());
        std::fclose(f);
    }
}

std::string hex(const uint8_t* p, size_t n) {
    std::string s;
    char b[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    return s;
}

// Each param's size, from the entry's signature: `.b8 name[128]`, `.u64 name`, ...
std::vector<size_t> param_sizes(const Function& fn) {
    const std::string& t = fn.module->ptx;
    const size_t at = t.find(".entry " + fn.name + "(");
    if (at == std::string::npos) return {};
    const std::string sig = t.substr(at, t.find(')', at) - at);
    std::vector<size_t> sizes;
    static const std::regex param(R"(\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\s+\w+(?:\[(\d+)\])?)");
    for (auto it = std::sregex_iterator(sig.begin(), sig.end(), param); it != std::sregex_iterator(); ++it) {
        const size_t bits = std::stoul((*it)[2].str());
        sizes.push_back((*it)[3].matched ? std::stoul((*it)[3].str()) * bits / 8 : bits / 8);
    }
    return sizes;
}

// What the rewritten kernel stores: per thread entry ns 1000 + 100 * cta and exit 3000 + 100 *
// cta; at a level that reads clocks, entry clock 10000, exit 14000, and thread 0's record of op
// 0 from 11000 for 200 cycles.
void write_timing(const Module& m, unsigned threads, unsigned block) {
    std::smatch s;
    if (!std::regex_search(m.ptx, s, std::regex(R"(mad\.wide\.u32 %tms_d1, %tms_r0, (\d+), %tms_d1;)")) || !m.timing_variable) return;
    const size_t stride = std::stoul(s[1].str());
    const bool clocks = m.ptx.find("%clock64") != std::string::npos;
    auto* base = reinterpret_cast<uint8_t*>(m.timing_variable);
    for (unsigned t = 0; t < threads; ++t) {
        uint64_t h[4] = {1000 + 100 * uint64_t(t / block), 10000, 3000 + 100 * uint64_t(t / block), 14000};
        if (!clocks) h[1] = h[3] = ~uint64_t{0};
        std::memcpy(base + t * stride, h, sizeof h);
        const uint32_t records = clocks ? (t == 0 && stride > 64 ? 1u : 0u) : ~0u;
        std::memcpy(base + t * stride + 32, &records, 4);
    }
    if (clocks && stride > 64) {
        const uint64_t begin = 11000;
        const uint32_t rec[2] = {200, 0};
        std::memcpy(base + 64, &begin, 8);
        std::memcpy(base + 72, rec, 8);
    }
}

#define OK return CUDA_SUCCESS
CUresult fInit(unsigned) { OK; }
CUresult fDeviceGetCount(int* n) { *n = 1; OK; }
CUresult fDeviceGet(CUdevice_v1* d, int) { *d = 0; OK; }
CUresult fDeviceGetName(char* name, int len, CUdevice_v1) { std::snprintf(name, size_t(len), "Fake H200"); OK; }
CUresult fDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice_v1) {
    static const std::map<int, int> values = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9}, {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000}, {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132}, {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472},
        {CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1024}, {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32}};
    const auto it = values.find(a);
    *v = it == values.end() ? 0 : it->second;
    OK;
}
CUresult fDriverGetVersion(int* v) { *v = 13000; OK; }
CUresult fPrimaryCtxRetain(CUcontext* c, CUdevice_v1) { *c = reinterpret_cast<CUcontext>(&g_clock_ms); OK; }
CUresult fPrimaryCtxRelease(CUdevice_v1) { OK; }
CUresult fCtxSetCurrent(CUcontext) { OK; }
CUresult fCtxSynchronize() { return g_hung ? CUDA_ERROR_LAUNCH_TIMEOUT : CUDA_SUCCESS; }
CUresult fModuleLoadData(CUmodule* m, const void*) { *m = reinterpret_cast<CUmodule>(new Module()); OK; }
CUresult fModuleLoadDataEx(CUmodule* m, const void* image, unsigned, CUjit_option*, void**) {
    auto* mod = new Module{static_cast<const char*>(image)};
    log_line("load ptx " + std::to_string(mod->ptx.size()) + " timing=" + std::to_string(mod->has_timing()));
    *m = reinterpret_cast<CUmodule>(mod);
    OK;
}
CUresult fModuleGetGlobal(CUdeviceptr_v2* p, size_t* bytes, CUmodule m, const char* name) {
    auto* mod = reinterpret_cast<Module*>(m);
    if (std::strcmp(name, "__tmasim_timing") != 0 || !mod->has_timing()) return CUDA_ERROR_NOT_FOUND;
    *p = reinterpret_cast<CUdeviceptr_v2>(&mod->timing_variable);
    *bytes = 8;
    OK;
}
CUresult fModuleUnload(CUmodule) { OK; }  // kept: functions may outlive it in a fake
CUresult fModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
    *f = reinterpret_cast<CUfunction>(new Function{reinterpret_cast<Module*>(m), name});
    OK;
}
CUresult fFuncSetAttribute(CUfunction, CUfunction_attribute a, int v) {
    log_line("attr " + std::to_string(int(a)) + " " + std::to_string(v));
    OK;
}
CUresult fFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) {
    *v = a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ? 64 : a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : 0;
    OK;
}
CUresult fMemAlloc(CUdeviceptr_v2* p, size_t n) {
    *p = reinterpret_cast<CUdeviceptr_v2>(std::calloc(1, n));
    log_line("alloc " + std::to_string(*p) + " " + std::to_string(n));
    OK;
}
CUresult fMemFree(CUdeviceptr_v2 p) { std::free(reinterpret_cast<void*>(p)); OK; }
CUresult fMemcpyHtoD(CUdeviceptr_v2 d, const void* s, size_t n) { std::memcpy(reinterpret_cast<void*>(d), s, n); OK; }
CUresult fMemcpyDtoH(void* d, CUdeviceptr_v2 s, size_t n) { std::memcpy(d, reinterpret_cast<void*>(s), n); OK; }
CUresult fMemsetD8(CUdeviceptr_v2 d, unsigned char v, size_t n) { std::memset(reinterpret_cast<void*>(d), v, n); OK; }
CUresult fLaunchKernelEx(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    if (env("TMASIM_FAKE_CUDA_REFUSE")) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    const auto* fn = reinterpret_cast<const Function*>(f);
    unsigned cluster[3] = {1, 1, 1};
    for (unsigned i = 0; i < c->numAttrs; ++i)
        if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            cluster[0] = c->attrs[i].value.clusterDim.x, cluster[1] = c->attrs[i].value.clusterDim.y, cluster[2] = c->attrs[i].value.clusterDim.z;
    char head[256];
    std::snprintf(head, sizeof head, "launch timing=%d grid %u %u %u block %u %u %u cluster %u %u %u smem %u extra %d params",
                  fn->module->has_timing(), c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                  cluster[0], cluster[1], cluster[2], c->sharedMemBytes, extra != nullptr);
    std::string line = head;
    const std::vector<size_t> sizes = param_sizes(*fn);
    for (size_t i = 0; i < sizes.size() && params; ++i)
        line += " " + std::to_string(static_cast<uint8_t*>(params[i]) - static_cast<uint8_t*>(params[0])) + ":" +
                hex(static_cast<const uint8_t*>(params[i]), sizes[i]);
    log_line(line);
    const bool hang = env("TMASIM_FAKE_CUDA_HANG", "all") || (env("TMASIM_FAKE_CUDA_HANG", "rewritten") && fn->module->has_timing());
    g_hung = g_hung || hang;
    g_faulted = g_faulted || env("TMASIM_FAKE_CUDA_FAULT");
    g_clock_ms += fn->module->has_timing() ? 0.130 : 0.125;
    const unsigned block = c->blockDimX * c->blockDimY * c->blockDimZ;
    if (!hang && !g_faulted && fn->module->has_timing()) write_timing(*fn->module, c->gridDimX * c->gridDimY * c->gridDimZ * block, block);
    OK;
}
CUresult fEventCreate(CUevent* e, unsigned) { *e = reinterpret_cast<CUevent>(new Event()); OK; }
CUresult fEventRecord(CUevent e, CUstream) {
    auto* ev = reinterpret_cast<Event*>(e);
    *ev = {g_clock_ms, g_hung, g_faulted};
    OK;
}
CUresult fEventQuery(CUevent e) {
    const auto* ev = reinterpret_cast<const Event*>(e);
    return ev->faulted ? CUDA_ERROR_ILLEGAL_ADDRESS : ev->pending ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}
CUresult fEventSynchronize(CUevent e) { return fEventQuery(e); }
CUresult fEventElapsedTime(float* ms, CUevent a, CUevent b) {
    *ms = static_cast<float>(reinterpret_cast<Event*>(b)->ms - reinterpret_cast<Event*>(a)->ms);
    OK;
}
CUresult fEventDestroy(CUevent e) { delete reinterpret_cast<Event*>(e); OK; }
CUresult fGetErrorName(CUresult rc, const char** s) {
    *s = rc == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" : rc == CUDA_ERROR_INVALID_CLUSTER_SIZE ? "CUDA_ERROR_INVALID_CLUSTER_SIZE"
                                                                                                         : "CUDA_ERROR_FAKE";
    OK;
}
CUresult fGetErrorString(CUresult, const char** s) { *s = "fake driver error"; OK; }
CUresult fTensorMapEncodeTiled(CUtensorMap* m, CUtensorMapDataType, cuuint32_t rank, void* addr, const cuuint64_t* dims, const cuuint64_t*,
                               const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                               CUtensorMapFloatOOBfill) {
    // The address first, then the rank and the dimensions: what a test can recognise.
    std::memset(m, 0, sizeof *m);
    const uint64_t a = reinterpret_cast<uint64_t>(addr);
    std::memcpy(reinterpret_cast<uint8_t*>(m), &a, 8);
    std::memcpy(reinterpret_cast<uint8_t*>(m) + 8, &rank, 4);
    for (cuuint32_t i = 0; i < rank && i < 5; ++i) std::memcpy(reinterpret_cast<uint8_t*>(m) + 16 + 8 * i, &dims[i], 8);
    OK;
}

const std::map<std::string, void*>& table() {
    static const std::map<std::string, void*> t = {
        {"cuInit", (void*)fInit}, {"cuDeviceGetCount", (void*)fDeviceGetCount}, {"cuDeviceGet", (void*)fDeviceGet},
        {"cuDeviceGetName", (void*)fDeviceGetName}, {"cuDeviceGetAttribute", (void*)fDeviceGetAttribute},
        {"cuDriverGetVersion", (void*)fDriverGetVersion}, {"cuDevicePrimaryCtxRetain", (void*)fPrimaryCtxRetain},
        {"cuDevicePrimaryCtxRelease", (void*)fPrimaryCtxRelease}, {"cuCtxSetCurrent", (void*)fCtxSetCurrent},
        {"cuCtxSynchronize", (void*)fCtxSynchronize}, {"cuModuleLoadData", (void*)fModuleLoadData},
        {"cuModuleLoadDataEx", (void*)fModuleLoadDataEx}, {"cuModuleGetGlobal", (void*)fModuleGetGlobal},
        {"cuModuleUnload", (void*)fModuleUnload}, {"cuModuleGetFunction", (void*)fModuleGetFunction},
        {"cuFuncSetAttribute", (void*)fFuncSetAttribute}, {"cuFuncGetAttribute", (void*)fFuncGetAttribute},
        {"cuMemAlloc", (void*)fMemAlloc}, {"cuMemFree", (void*)fMemFree}, {"cuMemcpyHtoD", (void*)fMemcpyHtoD},
        {"cuMemcpyDtoH", (void*)fMemcpyDtoH}, {"cuMemsetD8", (void*)fMemsetD8}, {"cuLaunchKernelEx", (void*)fLaunchKernelEx},
        {"cuEventCreate", (void*)fEventCreate}, {"cuEventRecord", (void*)fEventRecord}, {"cuEventSynchronize", (void*)fEventSynchronize},
        {"cuEventQuery", (void*)fEventQuery}, {"cuEventElapsedTime", (void*)fEventElapsedTime}, {"cuEventDestroy", (void*)fEventDestroy},
        {"cuGetErrorName", (void*)fGetErrorName}, {"cuGetErrorString", (void*)fGetErrorString},
        {"cuTensorMapEncodeTiled", (void*)fTensorMapEncodeTiled}};
    return t;
}

}  // namespace

extern "C" CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* found) {
    const auto it = table().find(symbol);
    *pfn = it == table().end() ? nullptr : it->second;
    if (found) *found = it == table().end() ? CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND : CU_GET_PROC_ADDRESS_SUCCESS;
    return it == table().end() ? CUDA_ERROR_NOT_FOUND : CUDA_SUCCESS;
}
