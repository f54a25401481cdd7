#include "scenarios/ir.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <stdexcept>

#include "scenarios/run_result.h"
#include "scenarios/values.h"
#include "scenarios/xxh64.h"

namespace tmasim {

int Launch::num_ctas() const {
    int n = 1;
    for (int g : grid) n *= g;
    return n;
}

int Launch::cluster_size() const {
    int n = 1;
    for (int c : cluster) n *= c;
    return n;
}

int64_t GlobalTensor::num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

int64_t SharedBuffer::num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

int64_t TensorMap::box_bytes(DType type) const {
    // As the H200 moves boxes (model/copy/tensor_copy.cpp; device/scripts/probes/README.md): the
    // innermost element stride is ignored without interleave; with interleave the innermost
    // dimension counts 16/32-byte units and dimension 1 moves at its single coordinate.
    const bool interleaved = interleave != Interleave::none;
    const size_t rank = box.size();
    int64_t n = interleaved ? interleave_bytes(interleave) : dtype_size(type);
    for (size_t d = 0; d < rank; ++d) {
        if (interleaved && rank >= 2 && d == 1) continue;
        int64_t stride = d < element_strides.size() ? element_strides[d] : 1;
        if (d + 1 == rank && !interleaved) stride = 1;
        n *= (box[d] + stride - 1) / stride;
    }
    return n;
}

std::string Ref::text() const { return index.empty() ? name : name + "[" + index.text() + "]"; }

bool Selector::includes(int thread) const {
    switch (kind) {
    case Kind::all: return true;
    case Kind::thread: return thread == n;
    case Kind::warp: return thread / 32 == n;
    case Kind::elected: return thread == n * 32;
    case Kind::not_elected: return thread != n * 32;
    case Kind::predicate: return pred.eval_int({{"tid", thread}, {"lane", thread % 32}, {"warp", thread / 32}}) != 0;
    }
    return false;
}

bool Selector::includes_at(int thread, std::map<std::string, int64_t>& env) const {
    if (kind != Kind::predicate) return includes(thread);
    env["tid"] = thread;
    env["lane"] = thread % 32;
    env["warp"] = thread / 32;
    return pred.eval_int(env) != 0;
}

std::string Selector::text() const {
    switch (kind) {
    case Kind::all: return "all";
    case Kind::thread: return "thread" + std::to_string(n);
    case Kind::warp: return "warp" + std::to_string(n);
    case Kind::elected: return n == 0 ? "elected" : "elected" + std::to_string(n);
    case Kind::not_elected: return n == 0 ? "not_elected" : "not_elected" + std::to_string(n);
    case Kind::predicate: return "\"" + pred.text() + "\"";
    }
    return "?";
}

std::string Op::display() const {
    std::string s = "#" + std::to_string(id) + " " + to_string(kind);
    if (!ptx_opcode.empty()) return s + " `" + ptx_opcode + "` at " + loc.str() + (source.empty() ? "" : " (" + source + ")");
    if (!label.empty()) s += " (" + label + ")";
    return s + " at " + loc.str();
}

namespace {
template <typename T>
const T* find_named(const std::vector<T>& v, const std::string& n) {
    auto it = std::find_if(v.begin(), v.end(), [&](const T& x) { return x.name == n; });
    return it == v.end() ? nullptr : &*it;
}
}  // namespace

const GlobalTensor* Scenario::find_global(const std::string& n) const { return find_named(globals, n); }
const TensorMap* Scenario::find_map(const std::string& n) const { return find_named(tensormaps, n); }
const SharedBuffer* Scenario::find_shared(const std::string& n) const { return find_named(shared, n); }
const BarrierDecl* Scenario::find_barrier(const std::string& n) const { return find_named(barriers, n); }
const AccumulatorDecl* Scenario::find_accumulator(const std::string& n) const { return find_named(accumulators, n); }
const LayoutDecl* Scenario::find_layout(const std::string& n) const { return find_named(layouts, n); }
const TileDecl* Scenario::find_tile(const std::string& n) const { return find_named(tiles, n); }

LinearLayout Scenario::tile_layout(const std::string& n) const {
    const TileDecl* t = find_tile(n);
    const LayoutDecl* l = t ? find_layout(t->layout) : nullptr;
    if (!l || l->is_shared) throw std::out_of_range("no tile '" + n + "' with a register layout");
    return to_linear(l->reg, t->shape);
}

int64_t TileDecl::num_elements() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

std::vector<const Op*> Scenario::all_ops() const {
    std::vector<const Op*> out;
    std::function<void(const std::vector<Op>&)> walk = [&](const std::vector<Op>& ops) {
        for (const Op& op : ops) {
            out.push_back(&op);
            walk(op.body);
        }
    };
    walk(program);
    return out;
}

const Op* Scenario::find_op(int id) const {
    for (const Op* op : all_ops())
        if (op->id == id) return op;
    return nullptr;
}

Provenance provenance_for(const Scenario& s, const std::string& backend) {
    Provenance p;
    p.backend = backend;
    p.tool_version = TMASIM_VERSION;
    p.scenario = s.name;
    p.scenario_file = s.file;
    p.scenario_hash = s.content_hash;
    return p;
}

uint64_t image_size(const MemoryImage& m) { return m.digest_only ? m.digest_only->size : m.bytes.size(); }

std::string hash_algorithm_for(uint64_t size) { return size >= kXxh64MinBytes ? "xxh64" : "fnv1a64"; }

ImageHash image_hash(const MemoryImage& m) {
    if (m.digest_only) return {m.digest_only->algorithm, m.digest_only->hex};
    return *image_hash_by(m, hash_algorithm_for(m.bytes.size()));
}

std::optional<ImageHash> image_hash_by(const MemoryImage& m, const std::string& algorithm) {
    if (m.digest_only) {
        if (m.digest_only->algorithm != algorithm) return std::nullopt;
        return ImageHash{algorithm, m.digest_only->hex};
    }
    if (algorithm == "xxh64") return ImageHash{algorithm, xxh64_hex(m.bytes.data(), m.bytes.size())};
    return ImageHash{algorithm, fnv1a64_hex(m.bytes.data(), m.bytes.size())};
}

std::string TraceEvent::key() const {
    // Spelt with to_chars into one reserved string: readers and diff build a key per event
    // (a million for a full-chip trace), and a chain of temporaries cost more than the read.
    std::string k;
    k.reserve(48);
    char digits[24];
    auto number = [&](int64_t v) { k.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr); };
    k += "op";
    number(op);
    if (!iters.empty()) {
        k += '[';
        for (size_t i = 0; i < iters.size(); ++i) {
            if (i) k += ',';
            number(iters[i]);
        }
        k += ']';
    }
    k += "@cta";
    number(cta);
    k += ".w";
    number(warp);
    k += ".l";
    number(lane);
    k += ':';
    k += to_string(kind);
    return k;
}

}  // namespace tmasim
