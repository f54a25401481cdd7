#pragma once
// The PTX module as the reader (ptx/parser.h) hands it to both backends: the model's PTX
// front end executes it, the device backend loads it (and rewrites it to time a kernel).
// Structure only: no instruction is interpreted here. Every statement keeps where it came
// from (its PTX line and column, its byte span in the text) and the `.loc` in force, so a
// diagnostic can name the PTX line and, through `.loc`, the .cu line.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tmasim::ptx {

// A place in the PTX text: 1-based line and column.
struct TextPos {
    int line = 0;
    int col = 0;
};

// One point of a `.loc` directive: `.file` index, line, column (0 when the compiler gives none).
struct LocPoint {
    int file = 0;
    int line = 0;
    int col = 0;
};

// The `.loc` in force at an instruction: `.loc 2 130 5, function_name $L__info_string2,
// inlined_at 1 17 10`. `chain` is innermost first: chain[0] is the directive's own point,
// then the point it was inlined at, then where that one was inlined, and so on (each
// `inlined_at` resolved against the latest `.loc` whose own point it names). The last entry
// is the outermost: the line of the kernel's own function.
struct DebugLoc {
    std::vector<LocPoint> chain;
    std::string function_name;  // the `function_name` label, "" when absent
    bool empty() const { return chain.empty(); }
};

// A register declared with `.reg`: `%r<38>` declares %r0..%r37, each one entry here.
struct Register {
    std::string name;   // "%r12", "%p1", "p" (inline-asm blocks declare names without %)
    std::string type;   // ".b32", ".pred", ".f64", ...
    int vector = 0;     // `.reg .v2 .f32 x`: 2; 0 for a scalar
    int scope = 0;      // the block that declares it (0: the function's body)
    TextPos pos;
};

// A state space of a variable or param.
enum class Space { reg, sreg, const_, global, local, param, shared, tex };

// A variable: module scope (`.global .align 4 .u32 x = 3;`, `.extern .shared .align 16 .b8
// smem[];`) or declared in a function body (`.shared .align 8 .b8 bar[8];`, `.local ...`).
struct Variable {
    Space space = Space::global;
    std::string name;
    std::string type;                // ".b8", ".u32", ...
    int64_t align = 0;               // bytes; 0: the type's natural size
    int vector = 0;                  // `.v4`: 4
    std::vector<int64_t> dims;       // `x[4][8]`: {4, 8}; `x[]`: {0}; scalar: {}
    bool is_extern = false;          // `.extern .shared ... smem[]` (dynamic shared memory)
    bool is_visible = false;         // `.visible`
    std::vector<uint8_t> init;       // the initializer as little-endian bytes ("" when none)
                                     // (entries it leaves out, up to size_bytes(), are zero)
    // Initializer entries that name a symbol (`= {a, b}` of addresses, `generic(x)`): their
    // byte offset in `init` and the symbol; the reader does not resolve addresses. The
    // bytes of `init` at that offset hold the addend (`generic(x)+8`: 8; else 0).
    std::vector<std::pair<int64_t, std::string>> init_symbols;
    int scope = 0;                   // -1 module scope, else the function block (0: body)
    TextPos pos;
    int64_t element_bytes() const;   // the type's size times `vector` (1 for .b8)
    int64_t size_bytes() const;      // element_bytes() times the product of dims (0 for `x[]`)
    int64_t alignment() const { return align > 0 ? align : element_bytes(); }
};

// A param of a kernel (`.entry`) or device function (`.func`), with its place in the param
// buffer: in declaration order, each at the next multiple of its alignment.
struct Param {
    std::string name;
    std::string type;            // ".u64", ".b8", ...
    int64_t align = 0;           // the explicit `.align`, else the type's size
    std::vector<int64_t> dims;   // `.b8 p[128]`: {128}
    // `.ptr.global.align 16` (and .shared/.const/.local): the space and alignment the
    // pointed-to data has; "" when the param does not say.
    std::string ptr_space;
    int64_t ptr_align = 0;
    int64_t size_bytes = 0;
    int64_t offset = 0;          // byte offset in the param buffer
    TextPos pos;
};

// An instruction operand.
struct Operand {
    enum class Kind {
        reg,        // a declared register; `reg` is its index in Function::registers
        special,    // a special register: name "%tid.x", "%clock64", "%cluster_ctarank", ...
        imm_int,    // an integer literal (decimal, 0x hex, 0b binary, 0 octal), two's complement in `bits`
        imm_f32,    // 0fXXXXXXXX, or a decimal float where the type is .f32: IEEE bits in `bits`
        imm_f64,    // 0dXXXXXXXXXXXXXXXX or a decimal float: IEEE bits in `bits`
        symbol,     // a variable, param, function or label name (`name`)
        address,    // [base], [base+off], [base-off], [off]: `base` (reg or symbol, may be absent) and `offset`
        vector,     // {a, b, c, d}: `elems`
        pred_pair,  // `p|q` (setp's second destination): elems = {p, q}
        sink,       // `_`
    };
    Kind kind = Kind::imm_int;
    std::string name;             // reg / special / symbol: the text as written
    int reg = -1;                 // reg: the index of the register the name resolves to in its scope
    // symbol: what the name resolves to in the function, where it is one of these (else -1:
    // a param, a module variable or a function, found by name):
    int label = -1;               // the index in Function::labels of the label in scope
    int variable = -1;            // the index in Function::variables of the body variable in scope
    bool negated = false;         // `!%p`
    uint64_t bits = 0;            // imm_*: the value's bits
    // address: the base (kind reg, special or symbol; absent for `[0x100]`) and byte offset.
    std::vector<Operand> base;    // zero or one entry
    int64_t offset = 0;
    // vector / pred_pair: its entries. An address may also carry a vector: the tensor form
    // `[%rd10, {%r15, %r16}]` keeps its coordinates here (`coords`).
    std::vector<Operand> elems;
    std::vector<Operand> coords;  // address: the `{...}` after the base, if any
    TextPos pos;
};

// An instruction: `@%p1 cp.async.bulk.tensor.2d.shared::cta.global... [%r13], [%rd10, {%r15, %r15}], [%r16];`
struct Instruction {
    std::string opcode;                  // "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
    std::vector<std::string> parts;      // opcode split at '.': {"cp","async","bulk","tensor","2d","shared::cta",...}
    std::optional<Operand> guard;        // `@%p` / `@!%p`: a reg operand (negated for `!`)
    std::vector<Operand> operands;
    TextPos pos;                         // of the first character (the guard, or the opcode)
    size_t text_begin = 0, text_end = 0; // byte span in Module::text, the `;` included
    int scope = 0;                       // the block it sits in
    int loc = -1;                        // index into Function::locs of the `.loc` in force; -1 none
    bool has(const std::string& part) const;  // whether `part` is one of `parts`
};

// A label: `$L__BB0_2:` names the instruction at index `instruction` (the next one; the
// instruction count when it ends the body).
struct Label {
    std::string name;
    int instruction = 0;
    int scope = 0;      // the block that declares it: a label is seen in its block and the blocks inside
    TextPos pos;
};

// A `{ ... }` block inside a body (inline asm is wrapped in one): its parent and span.
struct Block {
    int parent = -1;            // -1 for the body itself (block 0)
    int first_instruction = 0;  // the instructions it holds: [first, end)
    int end_instruction = 0;
};

struct Function {
    bool is_entry = false;                  // `.entry` (a kernel) or `.func`
    bool is_visible = false;
    bool is_extern = false;                 // `.extern .func` (a prototype: no body)
    bool has_body = false;
    std::string name;
    std::vector<Param> params;
    std::vector<Param> returns;             // `.func (.param .b32 ret) f(...)`
    // Performance-tuning directives as written: "maxntid" -> {256, 1, 1}, "reqntid",
    // "minnctapersm", "maxnreg", "reqnctapercluster", "explicitcluster" -> {}, "maxclusterrank", "noreturn".
    std::map<std::string, std::vector<int64_t>> directives;
    std::vector<Register> registers;
    std::vector<Variable> variables;        // declared in the body (shared, local, ...)
    std::vector<Instruction> instructions;
    std::vector<Label> labels;
    std::vector<Block> blocks;              // blocks[0] is the body
    std::vector<DebugLoc> locs;             // the distinct `.loc`s in force, referenced by Instruction::loc
    TextPos pos;
    size_t body_begin = 0;                  // byte offset just after the body's `{` (for inserting declarations)
    size_t body_end = 0;                    // byte offset of the body's closing `}`
    int64_t param_bytes() const;            // the param buffer's size: end of the last param
    const Param* find_param(const std::string& name) const;
    const Label* find_label(const std::string& name) const;  // the first of that name, any block
};

// A `.section .debug_str { ... }`: kept as text, not parsed (its content is DWARF as `.b8`
// lists and labels, for the debugger alone).
struct Section {
    std::string name;                     // ".debug_str"
    size_t text_begin = 0;                // just after its `{`
    size_t text_end = 0;                  // its closing `}`
    TextPos pos;
};

struct Module {
    std::string path;                     // for messages: the file it was read from
    std::string text;                     // the whole PTX text, as read
    std::string version;                  // ".version 9.0" -> "9.0"
    std::vector<std::string> targets;     // ".target sm_90a" -> {"sm_90a"}; several may be listed
    int address_size = 64;
    std::map<int, std::string> files;     // `.file 1 "/tmp/k/t1.cu"` -> {1, "/tmp/k/t1.cu"}
    std::vector<Variable> variables;      // module scope
    std::vector<Function> functions;      // in order, prototypes included
    std::vector<Section> sections;        // in order
    const Function* find_function(const std::string& name) const;
    const Variable* find_variable(const std::string& name) const;
    // "k.ptx:120:5 (t1.cu:17:10)": the PTX position of `ins` and, if it has a `.loc`, the
    // outermost point of its chain (the kernel's own source line), the file by its base name.
    std::string where(const Function& f, const Instruction& ins) const;
};

// What the reader refuses: the first error, with the PTX line and column.
class ParseError : public std::runtime_error {
public:
    ParseError(std::string path, TextPos pos, const std::string& message);
    const std::string& path() const { return path_; }
    TextPos pos() const { return pos_; }
    const std::string& message() const { return message_; }

private:
    std::string path_;
    TextPos pos_;
    std::string message_;
};

// Size in bytes of a PTX fundamental type (".b8" -> 1, ".u64" -> 8, ".f16x2" -> 4, ".pred" -> 1
// as a param, ".b128" -> 16); 0 for a name that is not one.
int64_t type_bytes(const std::string& type);

}  // namespace tmasim::ptx
