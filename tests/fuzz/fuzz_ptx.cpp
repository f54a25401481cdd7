// libFuzzer target: any bytes through the PTX reader (ptx/parser.h). A ParseError is the
// expected answer to bad input; a crash, a sanitizer report, another exception, a hang or
// an allocation past -rss_limit_mb is a bug. What parses must hold together
// (tests/ptx/ptx_invariants.h), and must parse the same with a line break inserted before
// each instruction (the device backend inserts its code at those spans).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ptx/parser.h"
#include "ptx/rewrite.h"
#include "tests/ptx/ptx_invariants.h"

namespace {

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_ptx: %s\n", what.c_str());
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    tmasim::ptx::Module m;
    try {
        m = tmasim::ptx::parse_module(text, "fuzz.ptx");
    } catch (const tmasim::ptx::ParseError& e) {
        if (e.message().empty()) finding("a ParseError without a message");
        return 0;
    }
    std::string why = tmasim::ptx::test::check_invariants(m);
    if (!why.empty()) finding("invariant: " + why);
    std::vector<tmasim::ptx::TextEdit> edits;
    size_t instructions = 0;
    for (const tmasim::ptx::Function& f : m.functions) {
        instructions += f.instructions.size();
        for (const tmasim::ptx::Instruction& ins : f.instructions) edits.push_back({ins.text_begin, "\n"});
    }
    // One module at a time: a text at the limits makes hundreds of MB of them.
    m = tmasim::ptx::Module();
    try {
        tmasim::ptx::Module again = tmasim::ptx::parse_module(tmasim::ptx::apply_edits(text, edits), "fuzz.ptx");
        size_t again_instructions = 0;
        for (const tmasim::ptx::Function& f : again.functions) again_instructions += f.instructions.size();
        if (again_instructions != instructions) finding("a line break before each instruction changed the instruction count");
    } catch (const tmasim::ptx::ParseError& e) {
        finding(std::string("a line break before each instruction made it unreadable: ") + e.what());
    }
    return 0;
}
