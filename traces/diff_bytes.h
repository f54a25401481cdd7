#pragma once
// The bytes behind a memory mismatch in `tmasim diff`: which elements differ, at which byte
// offsets, and both values decoded by the buffer's element type, so "DIFFER: 4 of 4096
// bytes" becomes "element 5 (bytes 20..23): A 5, B 7".
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

struct ElementDifference {
    int64_t offset = 0;   // byte offset of the element's first byte
    int64_t element = 0;  // element index (the byte index when the type is unknown)
    int size = 1;         // bytes per element
    std::string a, b;     // the values: decoded ("17", "1.5") or hex bytes ("0x1f")
};

struct ByteDifferences {
    std::string type;              // "i32", ...; "bytes" when the element type is unknown
    size_t elements_differing = 0;  // all of them, not only those listed
    std::vector<ElementDifference> first;  // the first `limit`, in offset order
};

// Element types of the scenario's buffers, keyed "global:<name>" and "shared:<name>", so
// a diff can decode the images it compares (traces carry bytes, not types).
using ElementTypes = std::map<std::string, DType>;
ElementTypes element_types_of(const Scenario& scenario);
// The global tensors whose `compare:` is not exact, keyed "global:<name>".
using ImageCompares = std::map<std::string, ImageCompare>;
ImageCompares image_compares_of(const Scenario& scenario);

// The largest distance in ulps between corresponding elements of two equally sized f32, f16
// or bf16 images (values as ordered integers: -0 and +0 are 0 apart; a NaN on either side is
// infinitely far, INT64_MAX).
int64_t max_ulp_distance(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, DType type);

// The element type of a memory image: global tensors by name; final shared buffers and
// snapshots ("put[3]:stage[1]") by their buffer's base name ("stage").
std::optional<DType> element_type_of(const ElementTypes& types, const std::string& space,
                                     const std::string& image_name);

// Compares two equally sized images element by element (a trailing partial element is
// compared as bytes). `type` unknown: byte by byte, values in hex.
ByteDifferences differing_elements(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                                   std::optional<DType> type, size_t limit);

// One value as text: integers in decimal, floats with the shortest round-trip digits.
std::string element_text(const uint8_t* base, DType type, int64_t element);

}  // namespace tmasim
