#pragma once
// Helpers of the PTX reader's tests: a module header, a kernel wrapper, and the error a
// text gives.
#include <string>

#include "ptx/parser.h"

namespace tmasim::ptx::test {

inline const char* kHeader = ".version 9.0\n.target sm_90a\n.address_size 64\n";

// `body` inside `.visible .entry k(PARAMS) { ... }` after the header; the body starts on
// line 6 (header 3 lines, `.entry` line 4, `{` line 5).
inline std::string kernel(const std::string& body, const std::string& params = ".param .u64 k_param_0") {
    return std::string(kHeader) + ".visible .entry k(" + params + ")\n{\n" + body + "}\n";
}

inline Module parse(const std::string& text, const ParseLimits& limits = {}) { return parse_module(text, "k.ptx", limits); }

// The error of a text that must not parse: "L:C: message", or "parsed" when it did.
inline std::string error_of(const std::string& text, const ParseLimits& limits = {}) {
    try {
        parse_module(text, "k.ptx", limits);
    } catch (const ParseError& e) {
        return std::to_string(e.pos().line) + ":" + std::to_string(e.pos().col) + ": " + e.message();
    }
    return "parsed";
}

// The text of an instruction as its span gives it.
inline std::string span_of(const Module& m, const Instruction& ins) {
    return m.text.substr(ins.text_begin, ins.text_end - ins.text_begin);
}

}  // namespace tmasim::ptx::test
