#include "device/bench/kernel_bench.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scenarios/loader.h"

namespace tmasim::device {

namespace {

KernelParam& scalar_param(Scenario& s, size_t i) {
    if (!s.kernel || i >= s.kernel->params.size() || s.kernel->params[i].kind != KernelParam::Kind::scalar)
        throw std::runtime_error(fmt::format("bench: {} has no scalar param {}: the scaling expects the catalog's params", s.file, i));
    return s.kernel->params[i];
}

// tiles (param 2) tiles per CTA of tensors that hold tiles * gridDim of them.
void scale_pipeline(Scenario& s, int ctas, int work) {
    if (s.launch.grid.size() != 1 || s.launch.cluster_size() != 1)
        throw std::runtime_error(fmt::format("bench: {} is not a 1-D launch without clusters", s.file));
    KernelParam& tiles = scalar_param(s, 2);
    const int64_t units = int64_t(s.launch.num_ctas()) * tiles.integer;
    for (GlobalTensor& g : s.globals) {
        if (units <= 0 || g.shape.empty() || g.shape[0] % units != 0)
            throw std::runtime_error(fmt::format("bench: {}'s tensor {} does not hold {} tiles", s.file, g.name, units));
        g.shape[0] = g.shape[0] / units * ctas * tiles.integer * work;
    }
    tiles.integer *= work;
    s.launch.grid = {ctas};
}

void scale_gemm(Scenario& s, int ctas, int work) {
    const int clusters = std::max(1, ctas / 2);
    int mp = 1;
    for (int d = 1; d * d <= clusters; ++d)
        if (clusters % d == 0) mp = d;
    const int64_t m = 256 * int64_t(mp), n = 128 * int64_t(clusters / mp);
    KernelParam &pm = scalar_param(s, 3), &pn = scalar_param(s, 4), &pk = scalar_param(s, 5);
    const int64_t k = pk.integer * work;
    auto tensor = [&](const char* name) -> GlobalTensor& {
        for (GlobalTensor& g : s.globals)
            if (g.name == name) return g;
        throw std::runtime_error(fmt::format("bench: {} has no tensor {}", s.file, name));
    };
    tensor("A").shape = {m, k};
    tensor("B").shape = {n, k};
    tensor("C").shape = {m, n};
    pm.integer = m;
    pn.integer = n;
    pk.integer = k;
    s.launch.grid = {2 * clusters};
}

}  // namespace

std::vector<std::string> kernel_bench_case_names() { return {"gemm_ws_tma_wgmma", "tma_prefetch_pipeline", "ldgsts_pipeline"}; }

Scenario kernel_bench_scenario(const std::string& name, const std::string& dir, int ctas, int work) {
    const std::vector<std::string> names = kernel_bench_case_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw std::invalid_argument(fmt::format("bench: no case named {}; allowed: {}", name, fmt::join(names, ", ")));
    if (ctas < 1 || work < 1) throw std::invalid_argument("bench: --ctas and --work must be at least 1");
    Scenario s = load_scenario_file(dir + "/" + name + ".yaml");
    if (!s.kernel) throw std::runtime_error(fmt::format("bench: {} is not a kernel scenario", s.file));
    if (name == "gemm_ws_tma_wgmma")
        scale_gemm(s, ctas, work);
    else
        scale_pipeline(s, ctas, work);
    s.name += fmt::format("@{}ctas_work{}", s.launch.num_ctas(), work);
    return s;
}

double bench_median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int kernel_bench_misses(const std::vector<KernelBenchRow>& rows) {
    return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const KernelBenchRow& r) { return !r.meets_target(); }));
}

std::string kernel_bench_table(const std::vector<KernelBenchRow>& rows) {
    std::string t = fmt::format("{:<22} {:>5} {:>13} {:>13} {:>13} {:>11} {:>11}  {}\n", "case", "CTAs", "untouched ms", "none ms",
                                "all ms", "none/untou", "all/untou", "target none/untouched <= 1.05");
    for (const KernelBenchRow& r : rows)
        t += fmt::format("{:<22} {:>5} {:>13.4f} {:>13.4f} {:>13.4f} {:>11.3f} {:>11.3f}  {}\n", r.name, r.ctas, r.untouched_ms, r.none_ms,
                         r.all_ms, r.none_ratio(), r.all_ratio(), r.meets_target() ? "met" : "MISSED");
    t += fmt::format("{} of {} rows miss the target\n", kernel_bench_misses(rows), rows.size());
    return t;
}

}  // namespace tmasim::device
