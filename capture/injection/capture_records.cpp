#include "capture/injection/capture_records.h"

#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace tmasim_capture {

namespace {

// FNV-1a over 64-bit words, then the tail bytes: names a content, nothing more (two equal
// names of different contents would share a file; the tool checks sizes when it reads them).
std::string content_hash(const std::vector<uint8_t>& b) {
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i = 0;
    for (; i + 8 <= b.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, b.data() + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < b.size(); ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    h = (h ^ b.size()) * 0x100000001b3ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

bool exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

void write_file(const std::string& path, const void* data, size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

std::string hex(const std::vector<uint8_t>& b) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (uint8_t v : b) s += digits[v >> 4], s += digits[v & 15];
    return s;
}

template <typename T>
std::string list(const T* v, size_t n) {
    std::ostringstream s;
    s << '[';
    for (size_t i = 0; i < n; ++i) s << (i ? "," : "") << v[i];
    s << ']';
    return s.str();
}
template <typename T>
std::string list(const std::vector<T>& v) { return list(v.data(), v.size()); }

// JSON string body: entries are mangled C++ names (printable ASCII); anything else escaped.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
        else if (c < 0x20 || c >= 0x7f) { char u[8]; std::snprintf(u, sizeof u, "\\u%04x", c); out += u; }
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

}  // namespace

Recorder::Recorder(const std::string& dir, const char* kernel, const char* limit)
    : dir_(dir), kernel_(kernel ? kernel : "") {
    if (limit) limit_ = std::strtol(limit, nullptr, 10);
    for (const char* sub : {"", "/raw", "/raw/data", "/raw/ptx", "/raw/fatbin"}) mkdir((dir_ + sub).c_str(), 0755);
    launches_ = std::fopen((dir_ + "/raw/launches.jsonl").c_str(), "w");
}

void Recorder::note_module_image(const void* image) {
    if (!image) return;
    const char* text = static_cast<const char*>(image);
    const uint32_t magic = *static_cast<const uint32_t*>(image);
    const std::string base = dir_ + "/raw/";
    // A fatbin wrapper (what nvcc's registration passes) points at the fatbin; a fatbin starts
    // with its header: magic, version, header size, then the size of what follows.
    const uint8_t* fatbin = nullptr;
    if (magic == 0x466243b1u) fatbin = *reinterpret_cast<const uint8_t* const*>(text + 8);
    else if (magic == 0xba55ed50u) fatbin = static_cast<const uint8_t*>(image);
    if (fatbin && *reinterpret_cast<const uint32_t*>(fatbin) == 0xba55ed50u) {
        uint16_t header = 0;
        uint64_t size = 0;
        std::memcpy(&header, fatbin + 6, 2);
        std::memcpy(&size, fatbin + 8, 8);
        write_file(base + "fatbin/" + std::to_string(modules_++) + ".fatbin", fatbin, header + size);
        return;
    }
    // PTX text: JIT-compiled by the driver (what tmasim's own device backend and many
    // frameworks load). An ELF cubin carries no PTX: the tool says so if a launch needs it.
    if (std::strncmp(text, "\x7f" "ELF", 4) == 0) return;
    const size_t n = strnlen(text, size_t(256) << 20);
    if (std::string(text, std::min<size_t>(n, 4096)).find(".version") != std::string::npos)
        write_file(base + "ptx/" + std::to_string(modules_++) + ".ptx", text, n);
}

void Recorder::note_missed_runtime_launch(const char* function) {
    if (missed_.size() < 16) missed_.push_back(function ? function : "?");
}

void Recorder::note_device() {
    if (device_noted_) return;
    device_noted_ = true;
    CUdevice device = 0;
    char name[256] = "unknown GPU";
    int driver = 0, clock_khz = 0;
    if (cuCtxGetDevice(&device) == CUDA_SUCCESS) {
        cuDeviceGetName(name, sizeof name, device);
        cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, device);
    }
    cuDriverGetVersion(&driver);
    std::ofstream out(dir_ + "/raw/device.txt");
    out << name << "\n" << driver << "\n" << clock_khz << "\n";
}

void Recorder::match_tensor_maps(LaunchRecord& r) const {
    for (size_t p = 0; p < r.params.size(); ++p) {
        const std::vector<uint8_t>& b = r.params[p].bytes;
        for (size_t at = 0; at + 128 <= b.size(); at += 64)
            for (size_t m = maps_.size(); m-- > 0;)  // the latest encoding of equal bytes
                if (std::memcmp(b.data() + at, maps_[m].bytes, 128) == 0) {
                    r.maps.push_back({p, at, m, maps_[m].global_address});
                    break;
                }
    }
}

std::string Recorder::store_device_bytes(uint64_t base, uint64_t size) {
    std::vector<uint8_t> bytes(size);
    if (cuMemcpyDtoH(bytes.data(), static_cast<CUdeviceptr>(base), size) != CUDA_SUCCESS) return "";
    const std::string h = content_hash(bytes);
    const std::string path = dir_ + "/raw/data/" + h + ".bin";
    if (!exists(path)) write_file(path, bytes.data(), bytes.size());
    return h;
}

void Recorder::begin(LaunchRecord r) {
    current_ = std::move(r);
    pending_ = true;
}

void Recorder::finish(int sync_after) {
    pending_ = false;
    current_.sync_after = sync_after;
    if (sync_after == CUDA_SUCCESS)
        for (auto& g : current_.regions) g.after = store_device_bytes(g.base, g.size);
    write_line(current_);
    ++captured_;
}

void Recorder::write_line(const LaunchRecord& r) {
    if (!launches_) return;
    std::ostringstream s;
    s << "{\"entry\":" << quoted(r.entry) << ",\"grid\":" << list(r.grid, 3) << ",\"block\":" << list(r.block, 3)
      << ",\"cluster\":" << list(r.cluster, 3) << ",\"dynamic_shared\":" << r.dynamic_shared
      << ",\"sync_before\":" << r.sync_before << ",\"sync_after\":" << r.sync_after
      << ",\"refused\":" << quoted(r.refused) << ",\"params\":[";
    for (size_t i = 0; i < r.params.size(); ++i)
        s << (i ? "," : "") << "{\"offset\":" << r.params[i].offset << ",\"hex\":\"" << hex(r.params[i].bytes) << "\"}";
    s << "],\"regions\":[";
    for (size_t i = 0; i < r.regions.size(); ++i)
        s << (i ? "," : "") << "{\"base\":" << r.regions[i].base << ",\"size\":" << r.regions[i].size
          << ",\"before\":\"" << r.regions[i].before << "\",\"after\":\"" << r.regions[i].after << "\"}";
    s << "],\"maps\":[";
    for (size_t i = 0; i < r.maps.size(); ++i) {
        const EncodedMap& m = maps_[r.maps[i].map];
        s << (i ? "," : "") << "{\"param\":" << r.maps[i].param << ",\"at\":" << r.maps[i].at << ",\"dtype\":" << m.dtype
          << ",\"global_address\":" << m.global_address << ",\"dims\":" << list(m.dims) << ",\"strides\":" << list(m.strides)
          << ",\"box\":" << list(m.box) << ",\"element_strides\":" << list(m.element_strides)
          << ",\"interleave\":" << m.interleave << ",\"swizzle\":" << m.swizzle << ",\"l2_promotion\":" << m.l2_promotion
          << ",\"oob_fill\":" << m.oob_fill << "}";
    }
    s << "]}\n";
    std::fputs(s.str().c_str(), launches_);
    std::fflush(launches_);
}

void Recorder::close() {
    if (closed_) return;
    closed_ = true;
    if (pending_) finish(-1);
    if (launches_) std::fclose(launches_);
    // The ELF files mapped executable: the program and its libraries, whose fatbins hold the
    // PTX of kernels the runtime loaded without a call this library sees.
    std::ifstream maps("/proc/self/maps");
    std::set<std::string> images;
    for (std::string line; std::getline(maps, line);) {
        const size_t slash = line.find('/');
        if (slash != std::string::npos && line.find(" r-xp ") != std::string::npos) images.insert(line.substr(slash));
    }
    std::ofstream out(dir_ + "/raw/images.txt");
    for (const auto& i : images) out << i << "\n";
    std::ofstream missed(dir_ + "/raw/missed.txt");
    for (const auto& m : missed_) missed << m << "\n";
    for (const auto& [result, n] : unnamed_) missed << n << " launch(es) of a kernel without a name (CUresult " << result << ")\n";
    // What CUPTI reported, per domain and callback id (cupti_driver_cbid.h, cupti_runtime_cbid.h).
    std::ofstream callbacks(dir_ + "/raw/callbacks.txt");
    for (const auto& [id, n] : callbacks_) callbacks << "domain " << id.first << " cbid " << id.second << ": " << n << "\n";
}

}  // namespace tmasim_capture
