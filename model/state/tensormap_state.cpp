#include "model/state/tensormap_state.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::model {

namespace {

bool covers(Scope have, Scope need) { return static_cast<int>(have) >= static_cast<int>(need); }

std::string thread_text(const ThreadEvent& e) {
    return e.cta < 0 ? "the host" : fmt::format("thread {} of CTA {}", e.thread, e.cta);
}

std::string who(const ThreadEvent& e) { return e.cta < 0 ? "the host" : fmt::format("{} (op #{})", thread_text(e), e.op); }

std::string write_text(const MapWrite& w) {
    switch (w.kind) {
        case MapWrite::Kind::host: return "the host's copy before launch";
        case MapWrite::Kind::replace:
            return fmt::format("op #{} tensormap.replace (space: global) by {}", w.op, thread_text(w.writers.front()));
        case MapWrite::Kind::copy:
            return fmt::format("op #{} tensormap.cp_fenceproxy by warp {} of CTA {}", w.op,
                               w.writers.front().thread / 32, w.cta);
    }
    return "";
}

bool any_known(const std::vector<ThreadEvent>& events, const ThreadEvent& by, const KnowsFn& knows) {
    return std::any_of(events.begin(), events.end(), [&](const ThreadEvent& e) {
        return e.cta == by.cta && (e.thread == by.thread || knows(e));
    });
}

}  // namespace

GlobalTensorMap::GlobalTensorMap(MapFields host, int num_ctas, int cluster_size)
    : host_(host),
      global_(std::make_shared<const MapFields>(host)),
      staged_(num_ctas),
      acquires_(num_ctas),
      cluster_size_(std::max(1, cluster_size)) {
    for (Staged& s : staged_) s.fields = host;
}

void GlobalTensorMap::record_staged_write(Staged& s, const ThreadEvent& e) {
    auto it = std::find_if(s.writes.begin(), s.writes.end(), [&](const ThreadEvent& w) { return w.thread == e.thread; });
    if (it != s.writes.end())
        *it = e;
    else
        s.writes.push_back(e);
}

void GlobalTensorMap::stage(const ThreadEvent& e) {
    Staged& s = staged_.at(e.cta);
    s.staged = true;
    // The template is the host encoding (the kernel parameter), whatever the global object holds now.
    s.fields = host_;
    record_staged_write(s, e);
}

void GlobalTensorMap::replace_staged(const ThreadEvent& e, MapField field, int64_t dim, int64_t value,
                                     const GlobalTensor* retarget) {
    Staged& s = staged_.at(e.cta);
    s.fields.replace(field, dim, value, retarget);
    record_staged_write(s, e);
}

std::vector<ThreadEvent> GlobalTensorMap::unseen_staged_writes(const ThreadEvent& reader, const KnowsFn& knows) const {
    std::vector<ThreadEvent> out;
    for (const ThreadEvent& w : staged_.at(reader.cta).writes)
        if (w.thread != reader.thread && !knows(w)) out.push_back(w);
    return out;
}

void GlobalTensorMap::new_write(MapWrite w) {
    w.version = latest_.version + 1;
    latest_ = std::move(w);
}

void GlobalTensorMap::replace_global(const std::vector<ThreadEvent>& writers, MapField field, int64_t dim,
                                     int64_t value, const GlobalTensor* retarget) {
    MapFields f = *global_;
    f.replace(field, dim, value, retarget);
    global_ = std::make_shared<const MapFields>(std::move(f));
    MapWrite w;
    w.kind = MapWrite::Kind::replace;
    w.op = writers.front().op;
    w.cta = writers.front().cta;
    w.writers = writers;
    w.released = false;
    new_write(std::move(w));
}

void GlobalTensorMap::copy_staged(const std::vector<ThreadEvent>& warp, Scope scope) {
    MapFields f = staged_.at(warp.front().cta).fields;
    f.map = global_->map;
    global_ = std::make_shared<const MapFields>(std::move(f));
    MapWrite w;
    w.kind = MapWrite::Kind::copy;
    w.op = warp.front().op;
    w.cta = warp.front().cta;
    w.writers = warp;
    w.releases = warp;
    w.released = true;
    w.scope = scope;
    new_write(std::move(w));
}

void GlobalTensorMap::release(const ThreadEvent& e, Scope scope) {
    MapWrite& w = latest_;
    if (w.released || w.cta != e.cta) return;
    const bool writer = std::any_of(w.writers.begin(), w.writers.end(),
                                    [&](const ThreadEvent& x) { return x.thread == e.thread; });
    const bool already = std::any_of(w.releases.begin(), w.releases.end(),
                                     [&](const ThreadEvent& x) { return x.thread == e.thread; });
    if (!writer || already) return;
    w.releases.push_back(e);
    // Several threads wrote the same field: the write is released once every one of them fenced.
    w.scope = w.releases.size() == 1 ? scope : std::min(w.scope, scope);
    w.released = w.releases.size() == w.writers.size();
}

std::string GlobalTensorMap::visible_why_not(const ThreadEvent& a, Scope scope, const KnowsFn& knows) const {
    const MapWrite& w = latest_;
    if (!w.released) return fmt::format("{} was not released yet", write_text(w));
    if (w.kind == MapWrite::Kind::host)
        return covers(scope, Scope::sys)
                   ? ""
                   : fmt::format("it has scope {}, but the host's copy needs an acquire at scope sys", to_string(scope));
    if (w.cta == a.cta)
        return any_known(w.releases, a, knows)
                   ? ""
                   : fmt::format("the release by {} was not ordered before it by a sync or mbarrier wait",
                                 who(w.releases.front()));
    const bool same_cluster = w.cta / cluster_size_ == a.cta / cluster_size_;
    const Scope need = same_cluster ? Scope::cluster : Scope::gpu;
    if (!covers(w.scope, need))
        return fmt::format("{} was released at scope {}, which does not reach CTA {} (needs {})", write_text(w),
                           to_string(w.scope), a.cta, to_string(need));
    if (!covers(scope, need))
        return fmt::format("it has scope {}, but the write came from CTA {} (needs {})", to_string(scope), w.cta,
                           to_string(need));
    return "";
}

void GlobalTensorMap::acquire(const ThreadEvent& e, Scope scope, const KnowsFn& knows) {
    MapAcquire a;
    a.at = e;
    a.scope = scope;
    a.why_not = visible_why_not(e, scope, knows);
    if (a.why_not.empty()) a.version = latest_.version;
    acquires_.at(e.cta).push_back(std::move(a));
}

UseVerdict GlobalTensorMap::check_use(const ThreadEvent& user, const KnowsFn& knows) const {
    const MapWrite& w = latest_;
    if (!w.released) {
        std::string missing;
        for (const ThreadEvent& x : w.writers)
            if (std::none_of(w.releases.begin(), w.releases.end(), [&](const ThreadEvent& r) { return r.thread == x.thread; }))
                missing = missing.empty() ? who(x) : missing;
        return {UseVerdict::Kind::no_release,
                fmt::format("its last write, {}, has no later fence.proxy.tensormap.release by {}", write_text(w), missing)};
    }
    const auto& mine = acquires_.at(user.cta);
    for (const MapAcquire& a : mine)
        if (a.version == w.version && (a.at.thread == user.thread || knows(a.at))) return {};
    std::string why;
    if (mine.empty()) {
        why = fmt::format("no thread of CTA {} issued fence.proxy.tensormap.acquire on it after {}", user.cta,
                          write_text(w));
    } else {
        // Explain with the user's own latest acquire, else the CTA's latest one.
        auto it = std::find_if(mine.rbegin(), mine.rend(), [&](const MapAcquire& a) { return a.at.thread == user.thread; });
        const MapAcquire& a = it != mine.rend() ? *it : mine.back();
        if (a.version == w.version)
            why = fmt::format("the acquire by {} is not ordered before this use by a sync or mbarrier wait (fences "
                              "order memory, they do not synchronise threads)", who(a.at));
        else if (a.version >= 0)
            why = fmt::format("the acquire by {} came before the map's last write, {}", who(a.at), write_text(w));
        else
            why = fmt::format("the acquire by {} did not make {} visible: {}", who(a.at), write_text(w), a.why_not);
    }
    return {UseVerdict::Kind::no_acquire, why};
}

TensorMapStates::TensorMapStates(const Scenario& s) {
    for (const TensorMap& m : s.tensormaps) {
        const GlobalTensor* t = s.find_global(m.tensor);
        if (!t || t->shape.size() != m.box.size()) continue;  // the validator refuses these; TensorCopy reports them
        MapFields f = MapFields::encode(m, *t);
        if (m.location == MapLocation::global)
            globals_[m.name] = std::make_unique<GlobalTensorMap>(f, s.launch.num_ctas(), s.launch.cluster_size());
        else
            params_[m.name] = std::make_shared<const MapFields>(std::move(f));
    }
}

GlobalTensorMap* TensorMapStates::global_map(const std::string& name) {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : it->second.get();
}

std::vector<GlobalTensorMap*> TensorMapStates::global_maps() {
    std::vector<GlobalTensorMap*> out;
    for (auto& [name, m] : globals_) out.push_back(m.get());
    return out;
}

std::shared_ptr<const MapFields> TensorMapStates::fields(const std::string& name) const {
    if (auto it = globals_.find(name); it != globals_.end()) return it->second->fields();
    if (auto it = params_.find(name); it != params_.end()) return it->second;
    throw std::out_of_range(fmt::format("model: unknown tensor map '{}'", name));
}

std::string TensorMapStates::descriptor_key(const std::string& name) const {
    auto it = globals_.find(name);
    return it == globals_.end() ? name : fmt::format("{}@{}", name, it->second->latest().version);
}

int TensorMapStates::start_read(const std::string& map, int op, int cta) {
    reads_[next_read_] = Read{map, op, cta};
    return next_read_++;
}

void TensorMapStates::end_read(int token) { reads_.erase(token); }

std::optional<TensorMapStates::Read> TensorMapStates::read_in_flight(const std::string& map) const {
    for (const auto& [token, r] : reads_)
        if (r.map == map) return r;
    return std::nullopt;
}

}  // namespace tmasim::model
