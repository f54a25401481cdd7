#include "ptx/module.h"

#include <string_view>

#include <algorithm>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

std::string error_text(const std::string& path, TextPos pos, const std::string& message) {
    // The house format (scenarios, traces): "FILE:LINE:COL: error: MESSAGE"; line 0 is the
    // file as a whole (it could not be read, or is too large).
    if (pos.line <= 0) return fmt::format("{}: error: {}", path, message);
    return fmt::format("{}:{}:{}: error: {}", path, pos.line, pos.col, message);
}

std::string base_name(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ParseError::ParseError(std::string path, TextPos pos, const std::string& message)
    : std::runtime_error(error_text(path, pos, message)), path_(std::move(path)), pos_(pos), message_(message) {}

int64_t type_size(std::string_view type) {
    // The fundamental types of PTX ISA 9.0 section 5.2, and the packed ones instructions name.
    // The parser asks for every declaration: a length test first keeps the scan cheap.
    static constexpr std::pair<std::string_view, int64_t> kSizes[] = {
        {".b8", 1},     {".u8", 1},     {".s8", 1},     {".pred", 1},     {".e4m3", 1},     {".e5m2", 1},
        {".b16", 2},    {".u16", 2},    {".s16", 2},    {".f16", 2},      {".bf16", 2},     {".e4m3x2", 2},
        {".e5m2x2", 2}, {".e2m3x2", 2}, {".e3m2x2", 2}, {".e2m1x2", 1},   {".ue8m0x2", 2},  {".b32", 4},
        {".u32", 4},    {".s32", 4},    {".f32", 4},    {".f16x2", 4},    {".bf16x2", 4},   {".tf32", 4},
        {".u16x2", 4},  {".s16x2", 4},  {".b64", 8},    {".u64", 8},      {".s64", 8},      {".f64", 8},
        {".f32x2", 8},  {".b128", 16},
    };
    for (const auto& [name, bytes] : kSizes)
        if (name.size() == type.size() && name == type) return bytes;
    return 0;
}

int64_t type_bytes(const std::string& type) { return type_size(type); }

int64_t Variable::element_bytes() const { return type_size(type) * std::max(vector, 1); }

int64_t Variable::size_bytes() const {
    // The reader checked the product against ParseLimits::max_variable_bytes, so it fits.
    int64_t bytes = element_bytes();
    for (int64_t d : dims) bytes *= d;
    return bytes;
}

int64_t Function::param_bytes() const {
    int64_t end = 0;
    for (const Param& p : params) end = std::max(end, p.offset + p.size_bytes);
    return end;
}

const Param* Function::find_param(const std::string& name) const {
    for (const Param& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

const Label* Function::find_label(const std::string& name) const {
    for (const Label& l : labels)
        if (l.name == name) return &l;
    return nullptr;
}

bool Instruction::has(const std::string& part) const {
    return std::find(parts.begin(), parts.end(), part) != parts.end();
}

const Function* Module::find_function(const std::string& name) const {
    // A forward declaration and the definition are both listed: prefer the one with a body.
    const Function* found = nullptr;
    for (const Function& f : functions) {
        if (f.name != name) continue;
        if (f.has_body) return &f;
        if (!found) found = &f;
    }
    return found;
}

const Variable* Module::find_variable(const std::string& name) const {
    for (const Variable& v : variables)
        if (v.name == name) return &v;
    return nullptr;
}

std::string Module::where(const Function& f, const Instruction& ins) const {
    std::string at = fmt::format("{}:{}:{}", path, ins.pos.line, ins.pos.col);
    if (ins.loc < 0 || size_t(ins.loc) >= f.locs.size() || f.locs[size_t(ins.loc)].empty()) return at;
    const LocPoint& outer = f.locs[size_t(ins.loc)].chain.back();
    auto file = files.find(outer.file);
    std::string source = file == files.end() ? fmt::format("<file {}>", outer.file) : base_name(file->second);
    if (outer.col > 0) return fmt::format("{} ({}:{}:{})", at, source, outer.line, outer.col);
    return fmt::format("{} ({}:{})", at, source, outer.line);
}

}  // namespace tmasim::ptx
