#pragma once
// Tensor maps in global memory, without time (semantics.md B15, C17; PTX 9.7.9.28-29,
// 9.7.13.4; CUDA PG 4.11.2.2.2-3). For each map declared `location: global`: the 128-byte
// object's current fields, its latest write (the host's copy before launch, a
// tensormap.replace with space: global, a tensormap.cp_fenceproxy) and whether that write
// was released to the tensormap proxy, each CTA's staged copy in shared memory, and the
// tensormap acquires each CTA made. The TMA ops still reading a map are tracked too.
//
// Rule B15, checked at each TMA use by thread T of CTA C: the latest write must be released
// (cp_fenceproxy releases; a replace needs the writer's later fence.proxy.tensormap.release;
// the host's copy counts as released) AND acquired in C: a fence.proxy.tensormap.acquire on
// the map, by T or by a thread of C that a sync or mbarrier wait orders before T's use, made
// after the write was visible to it: same CTA, a sync or wait after the release; another CTA,
// both fences at scope cluster (same cluster) or gpu; the host, an acquire at scope sys.
// Fences order memory; they do not synchronise threads.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/state/tensormap_state_fields.h"
#include "scenarios/ir.h"

namespace tmasim::model {

// One thread's event: its CTA, its tid, its logical clock then (ProxyTracker), the op.
struct ThreadEvent {
    int cta = -1;  // -1: the host
    int thread = -1;
    uint32_t time = 0;
    int op = -1;
};

// Whether the asking thread has synchronised with `e` (a sync or mbarrier wait after it).
using KnowsFn = std::function<bool(const ThreadEvent& e)>;

struct MapWrite {
    enum class Kind { host, replace, copy };
    Kind kind = Kind::host;
    int op = -1;
    int cta = -1;                       // -1: the host
    std::vector<ThreadEvent> writers;   // a replace: its threads; a copy: the warp
    std::vector<ThreadEvent> releases;  // the writers' release fences (a copy is its own release)
    bool released = true;
    Scope scope = Scope::sys;           // of the release
    int64_t version = 0;                // 0: the host's copy; +1 per write
};

struct MapAcquire {
    ThreadEvent at;
    Scope scope = Scope::gpu;
    int64_t version = -1;  // the write it made visible; -1: none
    std::string why_not;   // version -1: why the latest write was not visible to it
};

struct UseVerdict {
    enum class Kind { ok, no_release, no_acquire };
    Kind kind = Kind::ok;
    std::string why;  // which fence is missing, where
};

class GlobalTensorMap {
public:
    GlobalTensorMap(MapFields host, int num_ctas, int cluster_size);

    const std::string& name() const { return global_->map; }
    // A snapshot: a request keeps the fields it was issued with.
    std::shared_ptr<const MapFields> fields() const { return global_; }
    const MapWrite& latest() const { return latest_; }
    // A write a kernel made of the map's 128 bytes (its own bytes hold the fields: this keeps
    // only who wrote them and whether that was released, for B15).
    void record_write(MapWrite w) { new_write(std::move(w)); }

    // The staged copy in CTA `e.cta`'s shared memory.
    void stage(const ThreadEvent& e);
    bool staged(int cta) const { return staged_.at(cta).staged; }
    void replace_staged(const ThreadEvent& e, MapField field, int64_t dim, int64_t value, const GlobalTensor* retarget);
    // Writes of the staged copy that `reader` has not synchronised with (race.tensormap_staged).
    std::vector<ThreadEvent> unseen_staged_writes(const ThreadEvent& reader, const KnowsFn& knows) const;

    // Writes of the global object: a replace (unreleased until its writers fence) and the
    // warp's copy of its CTA's staged copy, a release at `scope`.
    void replace_global(const std::vector<ThreadEvent>& writers, MapField field, int64_t dim, int64_t value,
                        const GlobalTensor* retarget);
    void copy_staged(const std::vector<ThreadEvent>& warp, Scope scope);
    // fence.proxy.tensormap.release by `e`: releases `e`'s part of the latest write.
    void release(const ThreadEvent& e, Scope scope);
    // fence.proxy.tensormap.acquire by `e`; `knows` answers for `e`'s thread.
    void acquire(const ThreadEvent& e, Scope scope, const KnowsFn& knows);
    // Rule B15 for a TMA use by `user`; `knows` answers for the user's thread.
    UseVerdict check_use(const ThreadEvent& user, const KnowsFn& knows) const;

private:
    struct Staged {
        bool staged = false;
        MapFields fields;
        std::vector<ThreadEvent> writes;  // the latest write of each thread
    };
    void record_staged_write(Staged& s, const ThreadEvent& e);
    std::string visible_why_not(const ThreadEvent& acquirer, Scope scope, const KnowsFn& knows) const;
    void new_write(MapWrite w);

    MapFields host_;  // what the host encoded: tensormap.stage's template
    std::shared_ptr<const MapFields> global_;
    MapWrite latest_;
    std::vector<Staged> staged_;                     // per CTA
    std::vector<std::vector<MapAcquire>> acquires_;  // per CTA
    int cluster_size_ = 1;
};

// Every map of a run: fields for each TMA use, the global objects, the in-flight reads.
class TensorMapStates {
public:
    TensorMapStates(const Scenario& s);

    // Null for a map passed as a __grid_constant__ parameter (or an unknown name).
    GlobalTensorMap* global_map(const std::string& name);
    std::vector<GlobalTensorMap*> global_maps();
    // The fields a TMA op on `name` reads now: the host encoding of a parameter map, the
    // global object's of a map in global memory.
    std::shared_ptr<const MapFields> fields(const std::string& name) const;
    // Changes whenever the descriptor changes, so a CTA's first use after a write fetches it again.
    std::string descriptor_key(const std::string& name) const;

    // TMA ops reading a map in global memory, from issue until the read is over (C17).
    struct Read {
        std::string map;
        int op = -1;
        int cta = -1;
    };
    int start_read(const std::string& map, int op, int cta);
    void end_read(int token);  // -1: nothing
    std::optional<Read> read_in_flight(const std::string& map) const;

private:
    std::map<std::string, std::shared_ptr<const MapFields>> params_;
    std::map<std::string, std::unique_ptr<GlobalTensorMap>> globals_;
    std::map<int, Read> reads_;
    int next_read_ = 0;
};

}  // namespace tmasim::model
