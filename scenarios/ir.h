#pragma once
// The typed scenario IR. Both backends consume this; neither parses YAML.
//
// Axis order: every shape, box, coordinate and element-stride list is written
// outermost-first (row-major, like numpy: [rows, cols]). The last entry is the
// fastest-moving dimension. Backends convert once, at the edge, to the driver's
// fastest-first order (see TensorMap::driver_*()).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/enums.h"
#include "scenarios/expr.h"
#include "scenarios/linear_layout.h"
#include "scenarios/shared_layouts.h"
#include "scenarios/source_loc.h"

namespace tmasim {

struct Launch {
    std::vector<int> grid{1};     // CTAs, outermost first (x is the last entry)
    std::vector<int> cluster{1};  // CTAs per cluster, outermost first; the grid is split into clusters
    int block = 128;              // threads per CTA (1-D)
    // Dynamic shared memory per CTA in bytes (kernel scenarios: the launch's
    // dynamicSmemBytes, the `.extern .shared` array's size); op scenarios lay out their own.
    int64_t dynamic_shared = 0;
    int num_ctas() const;
    // CTAs per cluster (the product of `cluster`). CTA c is rank c % cluster_size() of
    // cluster c / cluster_size() (%cluster_ctarank with the 1-D launch both backends use).
    int cluster_size() const;
    int num_warps() const { return (block + 31) / 32; }
    SourceLoc loc;
};

struct InitSpec {
    enum class Kind { iota, fill, random, file };
    Kind kind = Kind::fill;
    double fill_value = 0;       // fill
    uint64_t seed = 0;           // random
    double min = 0, max = 1;     // random: uniform in [min, max) (integers: [min, max])
    // file: the tensor's bytes as they are, read when the scenario loads (what `tmasim capture`
    // records of a real program's device memory). `file` as written, relative to the scenario.
    std::string file;
    SourceLoc file_loc;
    std::shared_ptr<const std::vector<uint8_t>> file_bytes;
};

// How `tmasim diff` compares a global tensor's final bytes across two runs (the model's and the
// GPU's): byte for byte; within an ulp bound per element (float outputs whose summation order
// differs between the model and the tensor cores); or not at all (bytes whose encoding the two
// backends do not share: CUtensorMap objects a kernel writes to global memory).
struct ImageCompare {
    enum class Kind { exact, ulps, opaque };
    Kind kind = Kind::exact;
    int64_t ulps = 0;  // Kind::ulps: the largest allowed distance per element
};

struct GlobalTensor {
    std::string name;
    DType type = DType::f32;
    std::vector<int64_t> shape;  // outermost first
    InitSpec init;
    ImageCompare compare;
    SourceLoc loc;
    int64_t num_elements() const;
    int64_t size_bytes() const { return num_elements() * dtype_size(type); }
};

struct TensorMap {
    std::string name;
    std::string tensor;                   // GlobalTensor name
    std::vector<int64_t> box;             // outermost first, same rank as the tensor
    std::vector<int64_t> element_strides; // outermost first; default all 1
    Swizzle swizzle = Swizzle::none;
    OobFill oob_fill = OobFill::zero;
    Interleave interleave = Interleave::none;
    MapLocation location = MapLocation::param;
    SourceLoc loc;
    // Bytes one load of the full box writes into shared memory (OOB fill included):
    // product over dims of ceil(box/elementStride) * element size, with interleave's units
    // and ignored dimension (see ir.cpp).
    int64_t box_bytes(DType type) const;
};

struct SharedBuffer {
    std::string name;
    DType type = DType::f32;
    std::vector<int64_t> shape;  // outermost first
    int64_t align = 128;         // bytes, power of two, >= 16
    int64_t array = 0;           // 0: a single buffer; N: buffer[0..N-1]
    SourceLoc loc;
    int64_t num_elements() const;
    int64_t size_bytes() const { return num_elements() * dtype_size(type); }
    int64_t count() const { return array == 0 ? 1 : array; }
};

struct BarrierDecl {
    std::string name;
    int64_t array = 0;  // 0: one barrier; N: name[0..N-1]
    SourceLoc loc;
    // A view (`at: "stage[1]", offset: 16`): the barriers lie in these bytes of a shared
    // buffer instead of a slot of their own, name[i] at at_offset + 8 * i of buffer element
    // at_buffer[at_index]. The bytes are a barrier while it is live and data otherwise
    // (semantics.md A11). at_buffer empty: a slot of its own.
    std::string at_buffer;
    int64_t at_index = 0;
    int64_t at_offset = 0;
    int64_t count() const { return array == 0 ? 1 : array; }
    bool is_view() const { return !at_buffer.empty(); }
};

// A warpgroup's wgmma accumulator: D of m64nNk16 with f32 elements, held in registers,
// one instance per warpgroup (4 consecutive warps) of every CTA.
struct AccumulatorDecl {
    std::string name;
    int n = 8;  // N of m64nNk16: 8..256, a multiple of 8
    SourceLoc loc;
};

// A declared layout (`layouts:`): a register layout (blocked, slice, linear) or a shared
// one (swizzled_shared, nvmma_shared).
struct LayoutDecl {
    std::string name;
    bool is_shared = false;
    RegLayoutSpec reg;
    SharedLayoutSpec smem;
    SourceLoc loc;
};

// A tile held in registers (`tiles:`), distributed over the CTA's threads by `layout`.
// Every warp holds its own registers; the backends keep the tile per warp.
struct TileDecl {
    std::string name;
    DType type = DType::f32;
    std::vector<int64_t> shape;  // outermost first, powers of two
    std::string layout;          // a register layout of `layouts`
    SourceLoc loc;
    int64_t num_elements() const;
};

// A reference to a shared buffer or barrier, optionally indexed: `full[i%2]`.
struct Ref {
    std::string name;
    Expr index;  // empty when not indexed
    SourceLoc loc;
    bool empty() const { return name.empty(); }
    std::string text() const;
};

// Which threads of the CTA execute an op.
struct Selector {
    enum class Kind { all, thread, warp, elected, not_elected, predicate };
    Kind kind = Kind::all;
    int n = 0;  // thread index or warp index (elected / not_elected: the warp, default 0)
    // `predicate`: the threads for which an expression over tid, lane and warp is non-zero,
    // e.g. "tid < 8" or "warp >= 1" (the guide's conditional copies, warp roles).
    Expr pred;
    // `elected`: one thread of warp `n` (elect.sync; the model uses its lane 0).
    // `not_elected`: every thread of the CTA except that one (the guide's "else" branch).
    // `per_iteration`: the predicate also names loop variables ("i == 0 && tid == 0", a
    // pipeline's prologue in its loop): which threads it picks changes from one iteration to
    // the next, so it is evaluated at each instance, never once per op.
    bool per_iteration = false;
    // Whether `thread` runs the op. The first form is for selectors that are not
    // per_iteration (a loop variable is then an unknown variable: ScenarioError). The second
    // evaluates in `env`, the instance's loop variables; it overwrites env's tid, lane, warp.
    bool includes(int thread) const;
    bool includes_at(int thread, std::map<std::string, int64_t>& env) const;
    std::string text() const;  // "all", "thread0", "warp1", "elected", "not_elected"
};

struct Op {
    OpKind kind = OpKind::sync;
    int id = -1;           // program-order index (pre-order over loops); stable trace key
    std::string label;     // optional user name, for expect and messages
    SourceLoc loc;
    Selector by;
    // A kernel scenario's op is one PTX instruction: its opcode as written, and the kernel
    // source line `.loc` gives it ("tma.cu:17:10", the outermost point of its inline chain;
    // empty without .loc). `loc` is then its PTX file:line:col. Empty for a program's ops.
    std::string ptx_opcode;
    std::string source;

    Ref barrier;           // mbarrier.*, tma.load, bulk.load
    Expr count;            // mbarrier.init: expected arrivals; mbarrier.arrive: arrival count (default 1)
    Expr bytes;            // mbarrier.arrive_expect_tx / expect_tx; bulk.load/bulk.store size
    Expr parity;           // mbarrier.wait
    Expr barrier_id;       // bar.sync / bar.arrive: the named barrier, 1..15 (0 is `sync`'s); count: its threads
    std::string map;       // tma.load/tma.store: TensorMap name
    std::vector<Expr> coords;  // tma: outermost first, in elements
    Ref dst;               // tma.load/bulk.load: shared buffer
    Ref src;               // tma.store/bulk.store: shared buffer
    std::string global;    // bulk.load source / bulk.store destination tensor
    Expr global_offset;    // bulk: element offset into `global` (default 0)
    Expr n;                // bulk.wait_group / bulk.wait_group_read: max pending groups
    // compute: buffer[e] = fn(x = buffer[e], idx = e) for e in [range_start, range_start+range_count)
    // (shared.load/store, st.async, wgmma.acc_store and shared.snapshot name their buffer here too)
    Ref buffer;
    Expr fn;
    Expr range_start;      // default 0
    Expr range_count;      // default: whole buffer
    // Per-thread ops (shared.load/store, global.load, cp.async): expressions may use the
    // thread's `tid`, `lane` and `warp` besides loop variables and `cta`.
    Expr index;            // shared.load/store: element of `buffer`; global.load: element of `global`
    Expr width;            // shared.load/store, global.load: bytes per access (1, 2, 4, 8, 16)
    Expr value;            // shared.store: the value written to each element covered
    Expr src_index;        // cp.async: element of `global` to copy from
    Expr dst_index;        // cp.async: element of `dst` to copy to
    Expr size;             // cp.async: cp-size in bytes (4, 8, 16)
    Expr src_size;         // cp.async: bytes read from global (< size zero-fills the rest)
    std::string cache = "ca";  // cp.async: "ca" or "cg" (cg needs size 16)
    ReduceOp reduce = ReduceOp::add;  // bulk.reduce / tma.reduce: the element operation
    // tma.gather4 / tma.scatter4: four row coordinates and one column coordinate of a
    // 2-D map whose box is [1, width]; the four rows move as one 4 x width tile.
    std::vector<Expr> rows;
    Expr col;
    bool noinc = false;    // cp.async.mbarrier.arrive.noinc
    // Clusters. `cta` names a peer CTA by its rank in the cluster (shared.load/store through
    // DSMEM, mbarrier.arrive/expect_tx/arrive_expect_tx on a remote barrier, st.async's
    // destination); empty: this CTA. Per-thread ops may use tid, lane and warp in it.
    Expr cta;
    Expr barrier_cta;      // st.async: rank of the CTA whose barrier gets complete_tx (default: `cta`)
    Expr multicast;        // tma.load / bulk.load: ctaMask (bit i = rank i); empty: no multicast
    bool relaxed = false;  // cluster.arrive.relaxed / cluster.sync with a relaxed arrive
    // `trace: true|false`: this op is timed (or not) on the device whatever the run's trace
    // level; unset, the level decides (scenarios/trace_level.h).
    std::optional<bool> trace;
    ProxySpace proxy_space = ProxySpace::cta;  // fence.proxy.async's state space
    // Tensor maps in global memory.
    MapField field = MapField::global_address;  // tensormap.replace
    Expr dim;              // tensormap.replace: which dimension, outermost first (like `box`)
    // tensormap.replace's new value is `value` (constant); global_address takes `global`.
    Space space = Space::shared;  // tensormap.replace: the staged copy (shared) or the map itself (global)
    Scope scope = Scope::gpu;     // fence.proxy.tensormap.*, tensormap.cp_fenceproxy
    // wgmma: D(acc) = A(a) * B(b)^T (+ D when scale_d is 1). A is a [64, K] and B an [N, K]
    // tile of f16/bf16 in shared memory, K-major, in the canonical layout of `swizzle`;
    // `k` selects the 16-wide K slice read by this instruction.
    std::string acc;
    Ref a, b;
    Expr k;                // default 0
    Expr scale_d;          // default 1
    Swizzle swizzle = Swizzle::b32;
    // Layout ops (layout.*, convert_layout): the register tile, its tensor view in global
    // memory (element `base` plus tile coordinate d times strides[d]; `mask` over i0, i1
    // and off) or the shared layout of `buffer`; convert_layout's destination tile.
    std::string tile;
    std::string to_tile;
    std::string shared_layout;  // empty: the buffer holds the tile row-major
    Expr base;
    std::vector<int64_t> strides;
    Expr mask;
    int64_t axis = 0;           // layout.reduce: the dimension reduced
    bool combine_max = false;   // layout.reduce: max instead of add
    // loop
    std::string var;
    Expr loop_count;
    std::vector<Op> body;

    std::string display() const;  // "#5 tma.load (label) at file:line:col"
};

// One param of a kernel scenario's kernel, bound in the PTX's `.param` order
// (scenarios/FORMAT.md "Kernel scenarios").
struct KernelParam {
    enum class Kind {
        global,     // the device address of a global tensor (plus `offset` bytes): 8 bytes
        tensormap,  // a 128-byte CUtensorMap encoded from a declared tensor map
        scalar,     // a number of `type` (u8..u64, i8..i64, f16, bf16, f32, f64)
        bytes,      // raw bytes, written as hex
        blob,       // `size` bytes holding `fields` at byte offsets (a params struct, CuTe's TMA atoms)
    };
    Kind kind = Kind::scalar;
    std::string name;             // global / tensormap: the declaration it names
    int64_t offset = 0;           // global: bytes past the tensor's start
    std::string type = "u32";     // scalar: u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64
    int64_t integer = 0;          // scalar of an integer type
    double number = 0;            // scalar of a float type
    std::vector<uint8_t> bytes;   // bytes
    int64_t size = 0;             // blob: its size in bytes
    int64_t align = 0;            // blob: its alignment (0: as the PTX param says)
    std::vector<std::pair<int64_t, KernelParam>> fields;  // blob: (byte offset, value)
    SourceLoc loc;
    int64_t size_bytes() const;   // what the value occupies: 8, 128, the type's size, ...
    std::string text() const;     // "global A", "tensormap mapA", "u32 1024", "blob of 256 bytes"
    // The little-endian bytes of a scalar or `bytes` param (a scalar's value encoded in its type).
    std::vector<uint8_t> value_bytes() const;
};
// The scalar types a kernel param may name, and their sizes (0: not one).
const std::vector<std::string>& kernel_scalar_types();
int64_t kernel_scalar_bytes(const std::string& type);

// `kernel:` of a kernel scenario: a CUDA C++ or PTX file, its entry and its params. The
// scenario's `program` stays empty until the kernel is bound (ptx/kernel_binding.h), which
// reads or compiles the kernel, checks the params against the PTX and lists the kernel's
// instructions that the model's units see as its ops.
struct KernelSpec {
    std::string cuda;                  // path as written, relative to the scenario's folder
    std::string ptx;                   // (exactly one of cuda and ptx)
    std::string entry;                 // the kernel's PTX name (extern "C", or mangled)
    std::vector<std::string> defines;  // .cu only: NAME or NAME=VALUE, passed as -D
    std::vector<KernelParam> params;
    SourceLoc loc;
    SourceLoc source_loc;              // of the `cuda` or `ptx` key's value
    // Filled by the binding: the PTX text the backends run and the file it names in messages
    // (the .ptx itself, or the .cu's path with ".ptx" appended for NVRTC's output).
    std::string ptx_text;
    std::string ptx_file;
    bool bound() const { return !ptx_text.empty(); }
    // The source file, resolved against the scenario file's folder.
    std::string resolved_source(const std::string& scenario_file) const;
};

struct Expectation {
    Outcome outcome = Outcome::ok;
    std::string rule;   // for hazard: the rule id the model must report
    std::string op;     // op label (or "#id") the report must name; empty: any
    SourceLoc loc;
};

struct Scenario {
    std::string name;
    std::string summary;
    std::string source;          // where the example comes from
    std::string file;            // path it was loaded from
    std::string arch = "sm_90";  // minimum architecture
    Launch launch;
    std::vector<GlobalTensor> globals;
    std::vector<TensorMap> tensormaps;
    std::vector<SharedBuffer> shared;
    std::vector<BarrierDecl> barriers;
    std::vector<AccumulatorDecl> accumulators;
    std::vector<LayoutDecl> layouts;
    std::vector<TileDecl> tiles;
    std::vector<Op> program;
    std::optional<KernelSpec> kernel;  // a kernel scenario (then no shared/barriers/... and no program: the kernel has them)
    Expectation expect;
    std::string content_hash;    // fnv1a-64 of the file bytes, hex

    const GlobalTensor* find_global(const std::string& n) const;
    const TensorMap* find_map(const std::string& n) const;
    const SharedBuffer* find_shared(const std::string& n) const;
    const BarrierDecl* find_barrier(const std::string& n) const;
    const AccumulatorDecl* find_accumulator(const std::string& n) const;
    const LayoutDecl* find_layout(const std::string& n) const;
    const TileDecl* find_tile(const std::string& n) const;
    // The linear layout of tile `n` (its layout over its shape).
    LinearLayout tile_layout(const std::string& n) const;
    // Every op in program order, loops' bodies included (pointers into `program`).
    std::vector<const Op*> all_ops() const;
    const Op* find_op(int id) const;
    bool is_kernel() const { return kernel.has_value(); }
};

}  // namespace tmasim
