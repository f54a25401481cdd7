#include "model/ops/element_compute.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "model/sm/cta_module.h"
#include "model/core/op_text.h"
#include "model/sm/shared_race_check.h"
#include "scenarios/values.h"

namespace tmasim::model {

int64_t ElementCompute::apply(CtaModule& cta, const Op& op, const std::vector<int>& lanes,
                              const Expr::IntEnv& env, int warp, const EventSite& site) {
    const Scenario& s = cta.run().scenario;
    const SharedBuffer* buf = s.find_shared(op.buffer.name);
    if (!buf) throw std::out_of_range(fmt::format("{}: unknown shared buffer '{}'", op_title(op), op.buffer.name));
    const int64_t index = op.buffer.index.empty() ? 0 : op.buffer.index.eval_int(env);
    const int64_t base = cta.run().layout.offset_of(buf->name, index);
    const int64_t n = buf->num_elements();
    const int64_t start = op.range_start.empty() ? 0 : op.range_start.eval_int(env);
    const int64_t count = op.range_count.empty() ? n - start : op.range_count.eval_int(env);
    if (start < 0 || count < 0 || start + count > n)
        throw std::out_of_range(fmt::format("{}: elements [{}, {}) leave {} ({} elements)", op_title(op),
                                            start, start + count, op.buffer.text(), n));

    // Thread order over the whole CTA decides which elements a thread owns.
    std::vector<int> executing;
    Expr::IntEnv selector_env = env;
    for (int t = 0; t < cta.num_threads(); ++t)
        if (op.by.includes_at(t, selector_env)) executing.push_back(t);
    const int64_t k = static_cast<int64_t>(executing.size());

    const int esize = dtype_size(buf->type);
    const bool is_float = dtype_is_float(buf->type);
    uint8_t* data = cta.smem().data() + base;
    Expr::FloatEnv fenv;
    for (const auto& [name, v] : env) fenv[name] = static_cast<float>(v);
    Expr::IntEnv ienv = env;
    const bool indexed = buf->array != 0;
    SharedRaceCheck races(cta, op, indexed ? fmt::format("{}[{}]", buf->name, index) : buf->name, base);

    int64_t most = 0;
    for (int lane : lanes) {
        const int thread = warp * 32 + lane;
        const int64_t pos =
            std::lower_bound(executing.begin(), executing.end(), thread) - executing.begin();
        int64_t handled = 0;
        for (int64_t e = start + pos; e < start + count; e += k) {
            // ld.shared then st.shared of the element: the write is the stricter check,
            // against the CTA's async copies and its peers' DSMEM accesses alike.
            races.generic(site, thread, base + e * esize, esize, true);
            if (is_float) {
                fenv["x"] = load_element_float(data, buf->type, e);
                fenv["idx"] = static_cast<float>(e);
                store_element_float(data, buf->type, e, op.fn.eval_float(fenv));
            } else {
                ienv["x"] = load_element_int(data, buf->type, e);
                ienv["idx"] = e;
                store_element_int(data, buf->type, e, op.fn.eval_int(ienv));
            }
            cta.tracker().generic_write(thread, base + e * esize, esize, op.id);
            ++handled;
        }
        most = std::max(most, handled);
    }
    return most;
}

}  // namespace tmasim::model
