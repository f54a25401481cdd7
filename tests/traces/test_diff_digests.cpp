// tmasim diff of images a trace kept only as size and hash (FORMAT.md, versions 3 and 4):
// against bytes (a device trace, or --memory-bytes all), against the same hash, and against a
// hash by the other algorithm, which cannot be compared.
#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "scenarios/values.h"
#include "scenarios/xxh64.h"
#include "traces/trace_diff.h"

using namespace tmasim;
using tmasim_test::sample_run;

namespace test_diff_digests {
namespace {

std::string printed(const DiffReport& r) {
    std::ostringstream out;
    print_diff(r, out);
    return out.str();
}

constexpr size_t kInputBytes = size_t(1) << 20;  // kXxh64MinBytes: hashed with XXH64

std::vector<uint8_t> input_bytes() {
    std::vector<uint8_t> bytes(kInputBytes);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 13 + 1);
    return bytes;
}

// A run whose first global is `input`.
RunResult with_input(MemoryImage input) {
    RunResult r = sample_run();
    input.name = "input";
    input.space = "global";
    r.memory.insert(r.memory.begin(), std::move(input));
    return r;
}

MemoryImage digest_of(const std::string& algorithm, const std::string& hex) {
    MemoryImage m;
    m.digest_only = MemoryImage::Digest{kInputBytes, algorithm, hex};
    m.equals_init = true;
    return m;
}

MemoryImage bytes_of(std::vector<uint8_t> bytes) {
    MemoryImage m;
    m.bytes = std::move(bytes);
    return m;
}

const MemoryDiff& input_diff(const DiffReport& r) {
    for (const MemoryDiff& m : r.memory)
        if (m.name == "input") return m;
    FAIL("no diff of the input");
    throw 0;
}

}  // namespace

TEST_CASE("an xxh64 digest equals the same bytes of another trace, and tells one changed byte", "[traces][diff]") {
    const std::vector<uint8_t> bytes = input_bytes();
    const RunResult model = with_input(digest_of("xxh64", xxh64_hex(bytes.data(), bytes.size())));
    const DiffReport same = diff_traces(model, with_input(bytes_of(bytes)));
    CHECK(same.functional_match());
    CHECK(input_diff(same).compared_by_hash);
    CHECK(input_diff(same).hash_algorithm == "xxh64");
    CHECK(printed(same).find("global input: equal (1048576 bytes, compared by xxh64") != std::string::npos);

    std::vector<uint8_t> changed = bytes;
    changed[777] ^= 0x40;
    const DiffReport differ = diff_traces(with_input(bytes_of(changed)), model);
    CHECK_FALSE(differ.memory_match());
    CHECK(input_diff(differ).status == MemoryDiff::Status::differ);
    CHECK(printed(differ).find("global input: DIFFER: xxh64 differs (1048576 bytes") != std::string::npos);
}

TEST_CASE("a version 3 fnv1a64 digest still compares with bytes, not with an xxh64 digest", "[traces][diff]") {
    const std::vector<uint8_t> bytes = input_bytes();
    const RunResult v3 = with_input(digest_of("fnv1a64", fnv1a64_hex(bytes.data(), bytes.size())));
    const DiffReport against_bytes = diff_traces(v3, with_input(bytes_of(bytes)));
    CHECK(against_bytes.functional_match());
    CHECK(input_diff(against_bytes).hash_algorithm == "fnv1a64");

    const RunResult v4 = with_input(digest_of("xxh64", xxh64_hex(bytes.data(), bytes.size())));
    const DiffReport r = diff_traces(v3, v4);
    CHECK_FALSE(r.memory_match());  // equal bytes cannot be shown: not a match
    CHECK(input_diff(r).hashes_incomparable);
    CHECK(printed(r).find("global input: DIFFER: cannot compare (1048576 bytes, both traces hold only a hash") !=
          std::string::npos);
}

}  // namespace test_diff_digests
