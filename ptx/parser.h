#pragma once
// The PTX reader: text -> Module (ptx/module.h). It accepts what nvcc, NVRTC, CUTLASS/CuTe
// and Triton emit for sm_90a and sm_100a (PTX ISA 8.x-9.x) and refuses the rest with the
// line and column of the first thing it cannot read. Hostile text (huge, deeply nested,
// absurd counts) is refused by the limits below, never by running out of memory or stack.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ptx/module.h"

namespace tmasim::ptx {

struct ParseLimits {
    size_t max_text_bytes = size_t(64) << 20;   // a CUTLASS kernel's PTX is a few MB
    int max_block_depth = 64;                   // nested `{ }` in a body
    int64_t max_registers = int64_t(1) << 20;   // per function, ranges expanded (`%r<N>`)
    int64_t max_variable_bytes = int64_t(1) << 30;
    size_t max_operands = 256;                  // per instruction (vector entries counted)
    // Module-wide counts, so that many small functions cannot add up to what one may not
    // have (a `.reg .b32 %r<1048576>;` is 80 MB of Register in 25 bytes of text).
    int64_t max_module_registers = int64_t(1) << 20;
    int64_t max_instructions = int64_t(1) << 22;     // a CUTLASS kernel has ~1e5
    int64_t max_module_operands = int64_t(1) << 23;
    int max_inline_depth = 256;                      // `.loc ... inlined_at` chain length
};

// Parses `text`; `path` is used in messages and kept in Module::path. Throws ParseError.
Module parse_module(const std::string& text, const std::string& path, const ParseLimits& limits = {});
// Reads a regular file of at most limits.max_text_bytes and parses it. Throws ParseError
// (line 0) when it cannot be read.
Module read_module_file(const std::string& path, const ParseLimits& limits = {});

}  // namespace tmasim::ptx
