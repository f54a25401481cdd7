// XXH64 (scenarios/xxh64.h) against values of the reference library (Debian's libxxhash0
// 0.8.1, XXH64(data, len, 0), printed with %016llx).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "scenarios/xxh64.h"

using namespace tmasim;

namespace {

std::string hashed(const std::string& s) { return xxh64_hex(s.data(), s.size()); }

}  // namespace

TEST_CASE("xxh64 gives the reference library's values", "[scenarios]") {
    CHECK(hashed("") == "ef46db3751d8e999");
    CHECK(hashed("a") == "d24ec4f1a98c6e5b");
    CHECK(hashed("abc") == "44bc2cf5ad770999");
    CHECK(hashed("0123456789abcdef0123456789abcdef") == "642a94958e71e6c5");  // one whole stripe
    std::string long_input;
    for (int r = 0; r < 3; ++r)
        for (int b = 0; b < 256; ++b) long_input += static_cast<char>(b);
    long_input += "xyz";  // 771 bytes: stripes, 8-, 4- and 1-byte tails
    CHECK(hashed(long_input) == "e921a1b45bd779f8");
    std::vector<float> iota(1000);
    for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<float>(i);
    CHECK(xxh64_hex(iota.data(), iota.size() * 4) == "5e9b165867ee2b92");
}

TEST_CASE("xxh64 fed in pieces equals xxh64 of the whole", "[scenarios]") {
    std::vector<uint8_t> bytes(4099);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
    const uint64_t whole = xxh64(bytes.data(), bytes.size());
    for (size_t piece : {1, 3, 7, 31, 32, 33, 100, 4096}) {
        INFO(piece);
        Xxh64 h;
        for (size_t at = 0; at < bytes.size(); at += piece)
            h.update(bytes.data() + at, std::min(piece, bytes.size() - at));
        CHECK(h.digest() == whole);
    }
    CHECK(hex16(0x00ab) == "00000000000000ab");
}
