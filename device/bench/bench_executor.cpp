#include "device/bench/bench_executor.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device/launch/cuda_driver.h"
#include "device/launch/gpu_session.h"
#include "device/emit/kernel_abi.h"
#include "device/launch/kernel_launch.h"
#include "device/launch/nvrtc_compiler.h"
#include "device/bench/reference_sources.h"
#include "scenarios/loader.h"

namespace tmasim::device {

namespace {

// One case: its scenario, how its global tensors scale, and the bytes it moves per tile.
struct BenchCase {
    const char* name;
    const char* scenario;     // under BenchOptions::scenario_dir
    int64_t elements_per_unit;  // each global's outermost extent per CTA (or cluster)
    bool cluster;             // clusters of two; a unit is a cluster
    bool steady_less_four;    // the loop over t counts tiles - 4 (a prologue and a drain of 4)
    int bytes_per_tile;       // bytes into shared memory per CTA and tile (plus stores)
};

const BenchCase kCases[] = {
    {"tma_stream", "tma_stream.yaml", 32768, false, true, 16384},
    {"bulk_stream", "bulk_stream.yaml", 2097152, false, true, 16384},
    {"ldgsts_stream", "ldgsts_stream.yaml", 2097152, false, true, 16384},
    {"tma_round_trip", "tma_round_trip.yaml", 32768, false, false, 2 * 16384},
    {"multicast_cluster", "multicast_cluster.yaml", 32768, true, true, 16384},
};

const BenchCase& find_case(const std::string& name) {
    for (const BenchCase& c : kCases)
        if (name == c.name) return c;
    throw std::invalid_argument("bench: no case named " + name);
}

const std::string& reference_file(const std::string& file) {
    for (const ReferenceSource& r : reference_sources())
        if (r.file == file) return r.text;
    throw std::invalid_argument("bench: no reference source " + file);
}

// The catalog scenario at `ctas` CTAs and `tiles` tiles per CTA.
Scenario scaled(const BenchCase& c, const std::string& dir, int ctas, int tiles) {
    Scenario s = load_scenario_file(dir + "/" + c.scenario);
    const int units = c.cluster ? (ctas + 1) / 2 : ctas;
    s.launch.grid = {c.cluster ? 2 * units : units};
    for (GlobalTensor& g : s.globals) g.shape.at(0) = units * c.elements_per_unit;
    bool found = false;
    for (Op& op : s.program)
        if (op.kind == OpKind::loop && op.var == "t") {
            op.loop_count = Expr::constant(c.steady_less_four ? tiles - 4 : tiles);
            found = true;
        }
    if (!found) throw std::runtime_error(fmt::format("bench: {} has no loop over t", c.scenario));
    return s;
}

std::vector<char> compile_or_throw(const std::string& source, const std::string& target, const std::string& cache,
                                   const std::string& what) {
    const CompileResult r = compile_cuda(source, target, cache);
    if (!r.ok) throw std::runtime_error("bench: " + what + " did not compile:\n" + r.log);
    return r.cubin;
}

// BenchOptions::keep_dir: the variant's source and cubin, named by case, CTA count and variant.
void keep_kernel(const BenchOptions& o, const BenchCase& c, int ctas, std::string variant, const std::string& source,
                 const std::vector<char>& cubin) {
    if (o.keep_dir.empty()) return;
    for (char& ch : variant)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    std::filesystem::create_directories(o.keep_dir);
    const std::string stem = fmt::format("{}/{}_{}_{}", o.keep_dir, c.name, ctas, variant);
    std::ofstream(stem + ".cu") << source;
    std::ofstream(stem + ".cubin", std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Row {
    std::string name;
    int ctas = 0;
    double ref_ms = 0, none_ms = 0, all_ms = 0;
    double untraced_over_ref_bw() const { return ref_ms / none_ms; }
    double traced_over_untraced_time() const { return all_ms / none_ms; }
};

Row measure(GpuSession& gpu, const BenchCase& c, const BenchOptions& o, int ctas, const std::string& target,
            std::ostream& out) {
    const Scenario s = scaled(c, o.scenario_dir, ctas, o.tiles);
    const TraceWordsIn words_in = trace_words_in(plan_trace_words(s, TraceLevel::all, gpu.info()));
    // Both executor kernels end at their last op, as `--trace none` runs: the ratio is what the
    // timestamps cost. What the final shared buffers' copy (--trace all's default) adds is its
    // own line.
    const std::string traced_source = generate_kernel_source(s, TraceLevel::all, words_in, SharedDump::skip);
    const std::string untraced_source = generate_kernel_source(s, TraceLevel::none, TraceWordsIn::global, SharedDump::skip);
    const std::string dumped_source = generate_kernel_source(s, TraceLevel::all, words_in, SharedDump::copy_out);
    const std::string reference_source = reference_kernel_source(c.name, o.tiles);
    const std::vector<char> traced = compile_or_throw(traced_source, target, o.cache_dir, "the traced kernel");
    const std::vector<char> untraced = compile_or_throw(untraced_source, target, o.cache_dir, "the untraced kernel");
    const std::vector<char> reference = compile_or_throw(reference_source, target, o.cache_dir, "the reference kernel");
    const std::vector<char> dumped = compile_or_throw(dumped_source, target, o.cache_dir, "the traced kernel with its dump");
    keep_kernel(o, c, ctas, "traced", traced_source, traced);
    keep_kernel(o, c, ctas, "untraced", untraced_source, untraced);
    keep_kernel(o, c, ctas, "reference", reference_source, reference);
    keep_kernel(o, c, ctas, "traced_dump", dumped_source, dumped);
    KernelLaunch launch(gpu, s, 10.0, TraceLevel::all, words_in);  // its trace buffer serves all three
    launch.prepare(traced);
    // The kernels timed, in this order in the table; --experiments adds variants of the
    // traced and the untraced kernel, each one define in front of its source.
    struct Variant {
        std::string name;
        std::function<double()> run;
    };
    std::vector<Variant> variants;
    variants.push_back({"untraced", [&, fn = launch.load_other(untraced, kKernelName)] { return launch.run_other(fn); }});
    variants.push_back({"traced", [&] {
                            launch.run();
                            return launch.kernel_ms();
                        }});
    variants.push_back({"reference", [&, fn = launch.load_other(reference, "reference_kernel")] {
                            return launch.run_other(fn);
                        }});
    variants.push_back({"traced with the shared dump (--trace all's default)",
                        [&, fn = launch.load_other(dumped, kKernelName)] { return launch.run_other(fn, true); }});
    const auto add_variant = [&](const char* define, bool traced_variant, TraceWordsIn in) {
        const std::string source =
            fmt::format("#define {}\n", define) +
            generate_kernel_source(s, traced_variant ? TraceLevel::all : TraceLevel::none, in, SharedDump::skip);
        const std::vector<char> cubin = compile_or_throw(source, target, o.cache_dir, define);
        keep_kernel(o, c, ctas, traced_variant ? std::string(define) : std::string("untraced_") + define, source, cubin);
        const CUfunction fn = launch.load_other(cubin, kKernelName);
        variants.push_back({traced_variant ? std::string(define) : fmt::format("untraced {}", define),
                            [&launch, fn, traced_variant] { return launch.run_other(fn, traced_variant); }});
    };
    if (o.experiments) {
        for (const char* define : {"TMASIM_TRACE_NO_STORE", "TMASIM_TRACE_NO_CLOCK", "TMASIM_TRACE_NO_SYNCWARP",
                                   "TMASIM_TRACE_NO_BRANCH_CLOCK"})
            add_variant(define, true, words_in);
        // The words stored straight into the trace buffer in global memory, as when they do not fit in shared.
        if (words_in == TraceWordsIn::shared) add_variant("TMASIM_TRACE_WORDS_IN_GLOBAL", true, TraceWordsIn::global);
        for (const char* define : {"TMASIM_WAIT_NO_WATCHDOG", "TMASIM_WAIT_NO_CLOCK_KEEP_ARGS"})
            add_variant(define, false, words_in);
    }
    for (const std::string& file : o.variant_files) {
        std::ifstream in(file);
        if (!in) throw std::invalid_argument("bench: cannot read the variant source " + file);
        const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const bool traced_variant = source.rfind("// traced", 0) == 0;
        const CUfunction fn = launch.load_other(compile_or_throw(source, target, o.cache_dir, file), kKernelName);
        variants.push_back({std::filesystem::path(file).filename().string(),
                            [&launch, fn, traced_variant] { return launch.run_other(fn, traced_variant); }});
    }
    for (int i = 0; i < o.warmup; ++i)
        for (Variant& v : variants) v.run();
    // Each round runs every variant once, in an order shuffled per round (a fixed seed): a
    // kernel that always ran right after the same other kernel could inherit its state.
    std::vector<std::vector<double>> ms(variants.size());
    std::vector<size_t> order(variants.size());
    std::mt19937 shuffle_rng(12345u);
    for (int i = 0; i < o.reps; ++i) {
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::shuffle(order.begin(), order.end(), shuffle_rng);
        for (size_t k : order) ms[k].push_back(variants[k].run());
    }
    if (launch.status().hang_flag) throw std::runtime_error(fmt::format("bench: {} hung at {} CTAs", c.name, ctas));
    Row r{c.name, s.launch.num_ctas(), median(ms[2]), median(ms[0]), median(ms[1])};
    const double bytes = double(c.bytes_per_tile) * o.tiles * r.ctas;
    const auto gbs = [&](double ms) { return bytes / (ms * 1e-3) / 1e9; };
    out << fmt::format("case {}, {} CTAs{}, {} tiles per CTA, {:.1f} MB through shared memory\n", c.name, r.ctas,
                       c.cluster ? fmt::format(" ({} clusters of 2)", r.ctas / 2) : "", o.tiles, bytes / 1e6);
    out << fmt::format("  reference: {:9.4f} ms {:9.1f} GB/s\n", r.ref_ms, gbs(r.ref_ms));
    out << fmt::format("  untraced:  {:9.4f} ms {:9.1f} GB/s\n", r.none_ms, gbs(r.none_ms));
    out << fmt::format("  traced:    {:9.4f} ms {:9.1f} GB/s\n", r.all_ms, gbs(r.all_ms));
    out << fmt::format("  untraced/reference bandwidth: {:.3f}\n", r.untraced_over_ref_bw());
    out << fmt::format("  traced/untraced time: {:.3f}\n", r.traced_over_untraced_time());
    out << fmt::format("  {}: {:.4f} ms, /untraced time {:.3f}\n", variants[3].name, median(ms[3]),
                       median(ms[3]) / r.none_ms);
    for (size_t k = 4; k < variants.size(); ++k) {
        out << fmt::format("  experiment {}: {:.4f} ms, /untraced time {:.3f}\n", variants[k].name, median(ms[k]),
                           median(ms[k]) / r.none_ms);
    }
    out << fmt::format("  trace: {} clock words per warp, kept in {} memory while the kernel runs\n",
                       launch.trace_capacity(), launch.trace_words_in_shared() ? "shared" : "global");
    out.flush();
    return r;
}

}  // namespace

std::vector<std::string> bench_case_names() {
    std::vector<std::string> names;
    for (const BenchCase& c : kCases) names.push_back(c.name);
    return names;
}

std::string reference_kernel_source(const std::string& name, int tiles) {
    const BenchCase& c = find_case(name);
    return fmt::format("#define TMASIM_TILES {}\n", tiles) + reference_file("common.cuh") +
           reference_file(std::string(c.name) + ".cu");
}

int run_executor_overhead(const BenchOptions& o, std::ostream& out) {
    if (o.tiles < 8 || o.tiles > 512 || o.tiles % 8 != 0)
        throw std::invalid_argument("bench: --tiles must be a multiple of 8 from 8 to 512 (each CTA's region holds 512)");
    if (o.reps < 1 || o.warmup < 0) throw std::invalid_argument("bench: --reps must be >= 1 and --warmup >= 0");
    const std::vector<std::string> names = o.cases.empty() ? bench_case_names() : o.cases;
    GpuSession gpu(CudaDriver::get());
    require_architecture("sm_90", gpu.info());
    const std::string target = fmt::format("sm_{}{}a", gpu.info().cc_major, gpu.info().cc_minor);
    out << fmt::format("GPU: {} ({}), driver {}, CUDA {}, SM clock {} MHz (device attribute); kernels by NVRTC {} for {}\n",
                       gpu.info().name, gpu.info().sm(), gpu.info().driver, gpu.info().cuda, gpu.info().sm_clock_mhz,
                       nvrtc_version(), target);
    out << fmt::format("{} warm-up and {} timed launches per variant (each round runs every variant once, in a "
                       "shuffled order), median; time = CUDA events around one launch\n\n", o.warmup, o.reps);
    std::vector<Row> rows;
    for (const std::string& name : names) {
        const BenchCase& c = find_case(name);
        for (int ctas : o.ctas) {
            if (c.cluster && ctas == 1 && std::count(o.ctas.begin(), o.ctas.end(), 2)) continue;
            rows.push_back(measure(gpu, c, o, ctas, target, out));
        }
    }
    int misses = 0;
    out << fmt::format("\n{:<18} {:>5} {:>11} {:>11} {:>11} {:>13} {:>13}  {}\n", "case", "CTAs", "ref ms",
                       "untraced ms", "traced ms", "untr/ref bw", "tr/untr time", "targets (1 and 132 CTAs)");
    for (const Row& r : rows) {
        const bool judged = r.ctas <= 2 || r.ctas == 132;
        const bool ok = r.untraced_over_ref_bw() >= 0.95 && r.traced_over_untraced_time() <= 1.10;
        if (judged && !ok) ++misses;
        out << fmt::format("{:<18} {:>5} {:>11.4f} {:>11.4f} {:>11.4f} {:>13.3f} {:>13.3f}  {}\n", r.name, r.ctas,
                           r.ref_ms, r.none_ms, r.all_ms, r.untraced_over_ref_bw(), r.traced_over_untraced_time(),
                           judged ? (ok ? "met" : "MISSED") : "-");
    }
    out << fmt::format("{} of the judged rows miss a target\n", misses);
    return misses;
}

}  // namespace tmasim::device
