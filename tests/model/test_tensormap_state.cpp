// The state of tensor maps in global memory without SystemC: the fields tensormap.replace
// changes, and rule B15's release/acquire bookkeeping (semantics.md B15; PTX 9.7.13.4).
#include <catch2/catch.hpp>

#include <set>
#include <utility>

#include "model/state/tensormap_state.h"

using namespace tmasim;
using namespace tmasim::model;

namespace {
GlobalTensor tensor(const std::string& name, DType type, std::vector<int64_t> shape) {
    GlobalTensor t;
    t.name = name;
    t.type = type;
    t.shape = std::move(shape);
    return t;
}
TensorMap map_over(const GlobalTensor& t, std::vector<int64_t> box) {
    TensorMap m;
    m.name = "m";
    m.tensor = t.name;
    m.box = std::move(box);
    m.location = MapLocation::global;
    return m;
}
ThreadEvent at(int cta, int thread, uint32_t time, int op) { return ThreadEvent{cta, thread, time, op}; }

// What one thread has synchronised with: (thread, time) pairs of its own CTA.
struct Known {
    std::set<std::pair<int, uint32_t>> events;
    KnowsFn fn() const {
        return [this](const ThreadEvent& e) {
            for (const auto& [t, time] : events)
                if (t == e.thread && time >= e.time) return true;
            return false;
        };
    }
};
const KnowsFn nothing = [](const ThreadEvent&) { return false; };
}  // namespace

TEST_CASE("tensormap fields: the host encoding of a dense tensor, and each replace", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::i32, {16, 64});
    const GlobalTensor b = tensor("B", DType::i32, {32, 128});
    MapFields f = MapFields::encode(map_over(a, {16, 64}), a);
    CHECK(f.tensor == "A");
    CHECK(f.global_dims == std::vector<int64_t>{16, 64});
    CHECK(f.global_strides == std::vector<int64_t>{256});  // 64 i32 per row
    CHECK(f.element_strides == std::vector<int64_t>{1, 1});
    CHECK(f.inner_unit_bytes() == 4);
    CHECK(f.invalid_reason().empty());

    f.replace(MapField::global_address, 0, 0, &b);
    f.replace(MapField::global_dim, 0, 32, nullptr);
    f.replace(MapField::global_dim, 1, 128, nullptr);
    f.replace(MapField::global_stride, 0, 512, nullptr);
    f.replace(MapField::box_dim, 0, 8, nullptr);
    f.replace(MapField::element_stride, 0, 2, nullptr);
    CHECK(f.tensor == "B");
    CHECK(f.global_dims == std::vector<int64_t>{32, 128});
    CHECK(f.global_strides == std::vector<int64_t>{512});
    CHECK(f.box == std::vector<int64_t>{8, 64});
    CHECK(f.element_strides == std::vector<int64_t>{2, 1});
    CHECK(f.invalid_reason().empty());
    // A rank-2 map has one global stride and two dims.
    CHECK_THROWS_AS(f.replace(MapField::global_stride, 1, 64, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(f.replace(MapField::box_dim, 2, 4, nullptr), std::invalid_argument);

    SECTION("valid values can combine into an invalid map") {
        f.replace(MapField::box_dim, 1, 3, nullptr);  // 12 bytes of i32
        CHECK(f.invalid_reason() == "the inner box is 12 bytes, not a multiple of 16");
    }
    SECTION("a stride that is not a multiple of 16") {
        f.replace(MapField::global_stride, 0, 520, nullptr);
        CHECK(f.invalid_reason() == "global stride 0 = 520 bytes is not a multiple of 16 below 2^40");
    }
    SECTION("an inner box wider than its swizzle span") {
        f.swizzle = Swizzle::b64;  // 64 i32 = 256 bytes > 64
        CHECK(f.invalid_reason() == "the inner box of 256 bytes exceeds the 64B swizzle span");
    }
}

TEST_CASE("tensormap B15: the host's copy needs an acquire at scope sys in the using CTA", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::i32, {16, 64});
    GlobalTensorMap m(MapFields::encode(map_over(a, {16, 64}), a), 2, 1);
    CHECK(m.latest().kind == MapWrite::Kind::host);
    CHECK(m.latest().version == 0);
    const ThreadEvent use = at(0, 0, 5, 9);
    UseVerdict v = m.check_use(use, nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why == "no thread of CTA 0 issued fence.proxy.tensormap.acquire on it after the host's copy before launch");

    m.acquire(at(0, 0, 3, 1), Scope::gpu, nothing);
    v = m.check_use(use, nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("it has scope gpu, but the host's copy needs an acquire at scope sys") != std::string::npos);

    m.acquire(at(0, 0, 4, 2), Scope::sys, nothing);
    CHECK(m.check_use(use, nothing).kind == UseVerdict::Kind::ok);
    // Another CTA still has to acquire for itself, and a thread of CTA 0 that no sync
    // ordered after thread 0's acquire is not covered either.
    CHECK(m.check_use(at(1, 0, 5, 9), nothing).kind == UseVerdict::Kind::no_acquire);
    v = m.check_use(at(0, 33, 5, 9), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("the acquire by thread 0 of CTA 0 (op #2) is not ordered before this use") != std::string::npos);
    Known synced;
    synced.events = {{0, 4}};  // a sync after the acquire at time 4
    CHECK(m.check_use(at(0, 33, 9, 9), synced.fn()).kind == UseVerdict::Kind::ok);
}

TEST_CASE("tensormap B15: a replace needs the writer's release, then an acquire after a sync", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::i32, {16, 64});
    const GlobalTensor b = tensor("B", DType::i32, {16, 64});
    GlobalTensorMap m(MapFields::encode(map_over(a, {16, 64}), a), 1, 1);
    m.replace_global({at(0, 0, 1, 2)}, MapField::global_address, 0, 0, &b);
    CHECK(m.fields()->tensor == "B");
    CHECK(m.latest().version == 1);
    CHECK_FALSE(m.latest().released);
    UseVerdict v = m.check_use(at(0, 0, 9, 7), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_release);
    CHECK(v.why == "its last write, op #2 tensormap.replace (space: global) by thread 0 of CTA 0, has no later "
                   "fence.proxy.tensormap.release by thread 0 of CTA 0 (op #2)");

    m.release(at(0, 5, 2, 3), Scope::gpu);  // not the writer: releases nothing
    CHECK_FALSE(m.latest().released);
    m.release(at(0, 0, 2, 3), Scope::gpu);
    CHECK(m.latest().released);
    CHECK(m.latest().scope == Scope::gpu);

    // Thread 32 acquires with no sync after the release: the write was not visible to it.
    m.acquire(at(0, 32, 1, 5), Scope::gpu, nothing);
    v = m.check_use(at(0, 32, 4, 7), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("was not ordered before it by a sync or mbarrier wait") != std::string::npos);
    // After a sync that carries the release (thread 0 at time 2), its acquire covers it.
    Known after_sync;
    after_sync.events = {{0, 2}};
    m.acquire(at(0, 32, 3, 5), Scope::gpu, after_sync.fn());
    CHECK(m.check_use(at(0, 32, 4, 7), nothing).kind == UseVerdict::Kind::ok);

    // A second write makes every earlier acquire stale.
    m.replace_global({at(0, 0, 6, 8)}, MapField::box_dim, 0, 8, nullptr);
    m.release(at(0, 0, 7, 9), Scope::gpu);
    v = m.check_use(at(0, 32, 8, 7), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("came before the map's last write, op #8") != std::string::npos);
}

TEST_CASE("tensormap B15: a write by several threads is released once all of them fenced", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::i32, {16, 64});
    GlobalTensorMap m(MapFields::encode(map_over(a, {16, 64}), a), 1, 1);
    m.replace_global({at(0, 0, 1, 2), at(0, 1, 1, 2)}, MapField::global_dim, 0, 8, nullptr);
    m.release(at(0, 1, 2, 3), Scope::gpu);
    CHECK_FALSE(m.latest().released);
    m.release(at(0, 1, 3, 3), Scope::gpu);  // the same thread twice
    CHECK_FALSE(m.latest().released);
    m.release(at(0, 0, 2, 3), Scope::cta);
    CHECK(m.latest().released);
    CHECK(m.latest().scope == Scope::cta);  // the narrower of the two
}

TEST_CASE("tensormap B15: another CTA needs both fences at a scope that reaches it", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::i32, {16, 64});
    // 4 CTAs in clusters of 2: CTA 1 shares CTA 0's cluster, CTA 2 does not.
    GlobalTensorMap m(MapFields::encode(map_over(a, {16, 64}), a), 4, 2);
    const std::vector<ThreadEvent> warp0 = {at(0, 0, 4, 6), at(0, 1, 4, 6)};
    m.stage(at(0, 0, 1, 1));
    m.replace_staged(at(0, 0, 2, 2), MapField::box_dim, 0, 8, nullptr);
    m.copy_staged(warp0, Scope::cta);
    CHECK(m.fields()->box == std::vector<int64_t>{8, 64});
    CHECK(m.latest().kind == MapWrite::Kind::copy);
    CHECK(m.latest().released);

    m.acquire(at(1, 0, 1, 7), Scope::gpu, nothing);
    UseVerdict v = m.check_use(at(1, 0, 2, 8), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("was released at scope cta, which does not reach CTA 1 (needs cluster)") != std::string::npos);

    m.copy_staged(warp0, Scope::cluster);
    m.acquire(at(1, 0, 3, 7), Scope::cluster, nothing);
    CHECK(m.check_use(at(1, 0, 4, 8), nothing).kind == UseVerdict::Kind::ok);
    m.acquire(at(2, 0, 3, 7), Scope::cluster, nothing);  // another cluster
    v = m.check_use(at(2, 0, 4, 8), nothing);
    CHECK(v.kind == UseVerdict::Kind::no_acquire);
    CHECK(v.why.find("was released at scope cluster, which does not reach CTA 2 (needs gpu)") != std::string::npos);

    m.copy_staged(warp0, Scope::gpu);
    m.acquire(at(2, 0, 5, 7), Scope::cluster, nothing);
    v = m.check_use(at(2, 0, 6, 8), nothing);
    CHECK(v.why.find("it has scope cluster, but the write came from CTA 0 (needs gpu)") != std::string::npos);
    m.acquire(at(2, 0, 7, 7), Scope::gpu, nothing);
    CHECK(m.check_use(at(2, 0, 8, 8), nothing).kind == UseVerdict::Kind::ok);
}

TEST_CASE("tensormap staged copy: writes a reader has not synchronised with", "[model][tensormap]") {
    const GlobalTensor a = tensor("A", DType::u8, {2, 16});
    GlobalTensorMap m(MapFields::encode(map_over(a, {2, 16}), a), 2, 1);
    CHECK_FALSE(m.staged(0));
    m.stage(at(0, 0, 1, 0));
    m.replace_staged(at(0, 0, 2, 1), MapField::box_dim, 1, 32, nullptr);
    CHECK(m.staged(0));
    CHECK_FALSE(m.staged(1));
    // Thread 0 wrote it itself; thread 1 saw nothing; thread 2 synced after time 2.
    CHECK(m.unseen_staged_writes(at(0, 0, 3, 5), nothing).empty());
    const auto unseen = m.unseen_staged_writes(at(0, 1, 3, 5), nothing);
    REQUIRE(unseen.size() == 1);
    CHECK(unseen[0].op == 1);  // the thread's latest write: the replace
    Known synced;
    synced.events = {{0, 2}};
    CHECK(m.unseen_staged_writes(at(0, 2, 3, 5), synced.fn()).empty());
    // The copy takes the staged fields; staging again starts from the host encoding.
    m.copy_staged({at(0, 0, 4, 5)}, Scope::gpu);
    CHECK(m.fields()->box == std::vector<int64_t>{2, 32});
    m.stage(at(0, 0, 5, 6));
    m.copy_staged({at(0, 0, 6, 7)}, Scope::gpu);
    CHECK(m.fields()->box == std::vector<int64_t>{2, 16});
    CHECK(m.latest().version == 2);
}

TEST_CASE("tensormap states: descriptor keys change with each write, in-flight reads", "[model][tensormap]") {
    Scenario s;
    s.globals = {tensor("A", DType::i32, {16, 64}), tensor("B", DType::i32, {16, 64})};
    TensorMap g = map_over(s.globals[0], {16, 64});
    TensorMap p = map_over(s.globals[1], {8, 64});
    p.name = "p";
    p.tensor = "B";
    p.location = MapLocation::param;
    s.tensormaps = {g, p};
    TensorMapStates states(s);
    REQUIRE(states.global_map("m"));
    CHECK_FALSE(states.global_map("p"));
    CHECK(states.descriptor_key("p") == "p");
    CHECK(states.descriptor_key("m") == "m@0");
    CHECK(states.fields("p")->box == std::vector<int64_t>{8, 64});
    CHECK_THROWS_AS(states.fields("nope"), std::out_of_range);

    const auto before = states.fields("m");
    states.global_map("m")->replace_global({at(0, 0, 1, 3)}, MapField::global_address, 0, 0, &s.globals[1]);
    CHECK(states.descriptor_key("m") == "m@1");
    CHECK(before->tensor == "A");  // an issued request keeps its snapshot
    CHECK(states.fields("m")->tensor == "B");

    const int r1 = states.start_read("m", 4, 0);
    const int r2 = states.start_read("m", 6, 1);
    REQUIRE(states.read_in_flight("m"));
    CHECK(states.read_in_flight("m")->op == 4);
    states.end_read(r1);
    CHECK(states.read_in_flight("m")->op == 6);
    CHECK(states.read_in_flight("m")->cta == 1);
    states.end_read(r2);
    states.end_read(-1);
    CHECK_FALSE(states.read_in_flight("m"));
}
