#include "ptx/kernel_binding.h"

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ptx/cuda_source.h"
#include "ptx/instruction_kinds.h"
#include "ptx/parser.h"

namespace tmasim::ptx {
namespace {

constexpr size_t kMaxSourceBytes = size_t(4) << 20;
constexpr int64_t kMaxSharedBytes = 232448;  // 227 KB per block, sm_90 opt-in

std::string base_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string read_source(const KernelSpec& k, const std::string& path) {
    struct stat st {};
    const SourceLoc at = k.source_loc;
    const std::string key = k.cuda.empty() ? "kernel.ptx" : "kernel.cuda";
    if (::stat(path.c_str(), &st) != 0) throw ScenarioError(at, key, "cannot open " + path);
    if (!S_ISREG(st.st_mode)) throw ScenarioError(at, key, path + " is not a regular file");
    const size_t limit = k.cuda.empty() ? size_t(64) << 20 : kMaxSourceBytes;
    if (static_cast<uint64_t>(st.st_size) > limit)
        throw ScenarioError(at, key, fmt::format("{} is {} bytes; allowed: at most {}", path, st.st_size, limit));
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in && !in.eof()) throw ScenarioError(at, key, "cannot read " + path);
    return ss.str();
}

// The PTX param and what it was declared as, for messages: "param 2 `k_param_2` (.u32, 4 bytes,
// align 4) at k.ptx:14:2".
std::string ptx_param_text(const Module& m, const Param& p, size_t i) {
    std::string type = p.type;
    for (int64_t d : p.dims) type += fmt::format("[{}]", d);
    return fmt::format("the PTX's param {} `{}` ({}, {} bytes, align {}) at {}:{}:{}", i, p.name, type, p.size_bytes,
                       p.align, m.path, p.pos.line, p.pos.col);
}

void check_param(const Module& m, const Param& p, size_t i, const KernelParam& sp, const std::string& key) {
    auto fail = [&](const std::string& why) {
        throw ScenarioError(sp.loc, key, fmt::format("{} does not fit {}: {}", sp.text(), ptx_param_text(m, p, i), why));
    };
    switch (sp.kind) {
        case KernelParam::Kind::global:
            if (p.size_bytes != 8 || !p.dims.empty())
                fail("a device address is 8 bytes; allowed: a .u64, .s64 or .b64 param");
            break;
        case KernelParam::Kind::tensormap:
            if (p.size_bytes != 128) fail("a CUtensorMap is 128 bytes");
            if (p.align < 64) fail("a CUtensorMap must be 64-byte aligned (declare it `const __grid_constant__ CUtensorMap`)");
            break;
        case KernelParam::Kind::scalar:
            if (p.size_bytes != sp.size_bytes())
                fail(fmt::format("{} is {} bytes", sp.type, sp.size_bytes()));
            break;
        case KernelParam::Kind::bytes:
        case KernelParam::Kind::blob:
            if (p.size_bytes != sp.size_bytes()) fail(fmt::format("the scenario gives {} bytes", sp.size_bytes()));
            if (sp.align != 0 && sp.align != p.align) fail(fmt::format("the scenario's align is {}", sp.align));
            for (const auto& [at, f] : sp.fields)
                if (f.kind == KernelParam::Kind::tensormap && p.align < 64)
                    fail(fmt::format("a CUtensorMap at byte {} needs the param 64-byte aligned", at));
            break;
    }
}

void check_launch(const Scenario& s, const Module& m, const Function& f, int64_t static_shared) {
    const Launch& l = s.launch;
    auto where = [&]() { return fmt::format("{}:{}:{}", m.path, f.pos.line, f.pos.col); };
    auto product = [](const std::vector<int64_t>& v) {
        int64_t n = 1;
        for (int64_t x : v) n *= x;
        return n;
    };
    if (auto it = f.directives.find("reqntid"); it != f.directives.end() && product(it->second) != l.block)
        throw ScenarioError(l.loc, "launch.block", fmt::format("block is {} threads, but the kernel {} at {} requires .reqntid {} ({} threads)",
                                                               l.block, f.name, where(), fmt::join(it->second, ", "), product(it->second)));
    if (auto it = f.directives.find("maxntid"); it != f.directives.end() && l.block > product(it->second))
        throw ScenarioError(l.loc, "launch.block", fmt::format("block is {} threads, but the kernel {} at {} allows at most .maxntid {} ({} threads)",
                                                               l.block, f.name, where(), fmt::join(it->second, ", "), product(it->second)));
    if (auto it = f.directives.find("reqnctapercluster"); it != f.directives.end() && product(it->second) != l.cluster_size())
        throw ScenarioError(l.loc, "launch.cluster", fmt::format("clusters of {} CTAs, but the kernel {} at {} requires .reqnctapercluster {}",
                                                                 l.cluster_size(), f.name, where(), fmt::join(it->second, ", ")));
    if (static_shared + l.dynamic_shared > kMaxSharedBytes)
        throw ScenarioError(l.loc, "launch.dynamic_shared",
                            fmt::format("the kernel's {} bytes of static shared memory and {} bytes of dynamic shared memory make {}; "
                                        "allowed: at most {} per CTA", static_shared, l.dynamic_shared, static_shared + l.dynamic_shared,
                                        kMaxSharedBytes));
}

int64_t static_shared_bytes(const Module& m, const BoundKernel& k) {
    int64_t total = 0;
    auto add = [&](const Variable& v) {
        if (v.space != Space::shared || v.is_extern) return;
        const int64_t a = std::max<int64_t>(1, v.alignment());
        total = (total + a - 1) / a * a + v.size_bytes();
    };
    for (const Variable& v : m.variables) add(v);
    for (const Function* f : k.functions)
        for (const Variable& v : f->variables) add(v);
    return total;
}

std::vector<const Function*> reachable_functions(const Module& m, const Function& entry) {
    std::vector<const Function*> out{&entry};
    std::set<std::string> seen{entry.name};
    for (size_t i = 0; i < out.size(); ++i)
        for (const Instruction& ins : out[i]->instructions) {
            if (ins.parts.empty() || ins.parts[0] != "call") continue;
            for (const Operand& o : ins.operands) {
                if (o.kind != Operand::Kind::symbol) continue;
                const Function* callee = m.find_function(o.name);
                if (callee && callee->has_body && seen.insert(callee->name).second) out.push_back(callee);
            }
        }
    return out;
}

// What an instruction's modifiers say once for every instance, in the fields the units read
// of an op: a relaxed cluster arrive, a .noinc arrive, a fence's state space, a tensormap
// fence's scope, a reduction's operation, cp.async's cache mode. Values that vary per lane
// (addresses, counts, coordinates) come from the registers at run time.
void set_static_fields(Op& op, const Instruction& ins) {
    op.relaxed = ins.has("relaxed");
    op.noinc = ins.has("noinc");
    if (op.kind == OpKind::fence_proxy_async)
        op.proxy_space = ins.has("global") ? ProxySpace::global : ins.has("shared::cluster") ? ProxySpace::cluster
                         : ins.has("shared::cta") || ins.has("shared") ? ProxySpace::cta : ProxySpace::all;
    if (ins.has("cta")) op.scope = Scope::cta;
    if (ins.has("cluster")) op.scope = Scope::cluster;
    if (ins.has("gpu")) op.scope = Scope::gpu;
    if (ins.has("sys")) op.scope = Scope::sys;
    for (const char* r : {"add", "min", "max", "inc", "dec", "and", "or", "xor"})
        if (ins.has(r)) op.reduce = *parse_reduce_op(r);
    if (op.kind == OpKind::cp_async) op.cache = ins.has("cg") ? "cg" : "ca";
}

}  // namespace

std::string source_of(const Module& m, const Function& f, const Instruction& ins) {
    if (ins.loc < 0 || static_cast<size_t>(ins.loc) >= f.locs.size() || f.locs[ins.loc].empty()) return "";
    const LocPoint& p = f.locs[ins.loc].chain.back();
    auto it = m.files.find(p.file);
    if (it == m.files.end() || p.line <= 0) return "";
    return p.col > 0 ? fmt::format("{}:{}:{}", base_name(it->second), p.line, p.col)
                     : fmt::format("{}:{}", base_name(it->second), p.line);
}

void for_each_unit_instruction(const BoundKernel& k,
                               const std::function<void(const Function&, const Instruction&, OpKind, int op_id)>& visit) {
    int id = 0;
    for (const Function* f : k.functions)
        for (const Instruction& ins : f->instructions)
            if (const auto kind = unit_op_kind(ins)) visit(*f, ins, *kind, id++);
}

std::vector<Op> kernel_ops(const BoundKernel& k, const std::string& ptx_file) {
    std::vector<Op> ops;
    for_each_unit_instruction(k, [&](const Function& f, const Instruction& ins, OpKind kind, int id) {
        Op op;
        op.kind = kind;
        op.id = id;
        op.loc = SourceLoc{ptx_file, ins.pos.line, ins.pos.col};
        op.label = fmt::format("{}:{}", base_name(ptx_file), ins.pos.line);
        op.ptx_opcode = ins.opcode;
        op.source = source_of(k.module, f, ins);
        set_static_fields(op, ins);
        ops.push_back(std::move(op));
    });
    return ops;
}

BoundKernel parse_bound_kernel(const Scenario& s) {
    if (!s.kernel || !s.kernel->bound())
        throw ScenarioError(s.kernel ? s.kernel->loc : s.launch.loc, "kernel", "the kernel scenario is not bound to its PTX");
    BoundKernel k;
    try {
        k.module = parse_module(s.kernel->ptx_text, s.kernel->ptx_file);
    } catch (const ParseError& e) {
        throw ScenarioError(SourceLoc{e.path(), e.pos().line, e.pos().col}, "kernel", e.message());
    }
    k.entry = k.module.find_function(s.kernel->entry);
    if (!k.entry || !k.entry->is_entry || !k.entry->has_body) {
        std::vector<std::string> entries;
        for (const Function& f : k.module.functions)
            if (f.is_entry && f.has_body) entries.push_back(f.name);
        throw ScenarioError(s.kernel->loc, "kernel.entry",
                            fmt::format("no kernel (.entry) named '{}' in {}; allowed: {}", s.kernel->entry, s.kernel->ptx_file,
                                        entries.empty() ? std::string("(none: the module has no .entry)") : fmt::format("{}", fmt::join(entries, ", "))));
    }
    k.functions = reachable_functions(k.module, *k.entry);
    return k;
}

void bind_kernel(Scenario& s, const std::string& cache_dir) {
    if (!s.kernel) return;
    KernelSpec& spec = *s.kernel;
    const std::string path = spec.resolved_source(s.file);
    const std::string source = read_source(spec, path);
    if (!spec.cuda.empty()) {
        const CudaCompile c = compile_cuda_to_ptx(path, source, s.arch, spec.defines, cache_dir);
        if (!c.ok) throw ScenarioError(spec.source_loc, "kernel.cuda", "NVRTC cannot compile " + path + ":\n" + c.log);
        spec.ptx_text = c.ptx;
        spec.ptx_file = c.ptx_file.empty() ? path + ".ptx" : c.ptx_file;
    } else {
        spec.ptx_text = source;
        spec.ptx_file = path;
    }
    if (spec.ptx_text.empty()) throw ScenarioError(spec.source_loc, "kernel", path + " is empty");
    const BoundKernel k = parse_bound_kernel(s);
    const Function& f = *k.entry;
    if (f.params.size() != spec.params.size())
        throw ScenarioError(spec.loc, "kernel.params",
                            fmt::format("the scenario gives {} params, but the kernel {} at {}:{}:{} takes {}{}", spec.params.size(), f.name,
                                        k.module.path, f.pos.line, f.pos.col, f.params.size(),
                                        f.params.empty() ? std::string() : fmt::format(" ({})", [&] {
                                            std::vector<std::string> v;
                                            for (const Param& p : f.params) v.push_back(p.name + " " + p.type);
                                            return fmt::format("{}", fmt::join(v, ", "));
                                        }())));
    for (size_t i = 0; i < f.params.size(); ++i)
        check_param(k.module, f.params[i], i, spec.params[i], fmt::format("kernel.params[{}]", i));
    check_launch(s, k.module, f, static_shared_bytes(k.module, k));
    s.program = kernel_ops(k, spec.ptx_file);
    if (!s.expect.op.empty()) {
        bool found = false;
        for (const Op& op : s.program)
            found = found || op.label == s.expect.op || "#" + std::to_string(op.id) == s.expect.op ||
                    (!op.source.empty() && (op.source == s.expect.op || op.source.rfind(s.expect.op + ":", 0) == 0));
        if (!found)
            throw ScenarioError(s.expect.loc, "expect.op",
                                fmt::format("no instruction of the kernel is '{}'; allowed: an op's label (<ptx file>:<line>), "
                                            "#id, or its source line (<file>.cu:<line>)", s.expect.op));
    }
}

}  // namespace tmasim::ptx
