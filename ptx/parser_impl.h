#pragma once
// The reader's state, shared by its files: parser.cpp (the module's statements),
// parse_declarations.cpp (variables, params, initializers), parse_function.cpp (signatures,
// bodies, blocks, `.reg`, `.loc`), parse_instruction.cpp (instructions and operands).
// Everything is iterative or of fixed depth: hostile text meets a ParseLimits check, never
// the end of the stack.
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ptx/lexer.h"
#include "ptx/parser.h"
#include "ptx/scoped_names.h"

namespace tmasim::ptx {

// Operand::label of a symbol that may name a label declared later: resolved when the body ends.
constexpr int kPendingLabel = -2;

// A `.loc` as written, before it is resolved into a chain.
struct LocDirective {
    LocPoint point;
    std::string function_name;
    bool inlined = false;
    LocPoint inlined_at;
};

// What a `.loc` resolves from: the directive and the loc its inlined_at point named then
// (-1 none). Equal keys resolve to equal chains, so most `.loc`s skip building theirs.
struct LocDirectiveKey {
    int values[7];
    std::string function_name;
    bool operator==(const LocDirectiveKey& o) const {
        return std::equal(values, values + 7, o.values) && function_name == o.function_name;
    }
    struct Hash {
        size_t operator()(const LocDirectiveKey& k) const {
            size_t h = std::hash<std::string>()(k.function_name);
            for (int v : k.values) h = h * 1000003u ^ size_t(uint32_t(v));
            return h;
        }
    };
};

class Parser {
public:
    Parser(const std::string& text, const std::string& path, const ParseLimits& limits);
    Module run();

private:
    // Tokens (parser.cpp).
    void advance() { tok_ = lex_.next(); }
    [[noreturn]] void fail(TextPos pos, const std::string& message) const { lex_.fail(pos, message); }
    [[noreturn]] void fail_here(const std::string& expected) const;  // "expected X, found Y"
    void expect(char punct, const char* context);
    std::string expect_name(const char* what);   // a PTX identifier, without dots
    int64_t expect_count(const char* what, int64_t min, int64_t max);  // an integer literal in range
    int64_t expect_alignment();                  // after `.align`

    // The module's statements (parser.cpp).
    void parse_statement();
    void parse_version();
    void parse_target();
    void parse_address_size();
    void parse_file();
    void parse_section();
    void parse_pragma();

    // Declarations (parse_declarations.cpp).
    // Reads `[.align N] [.vN] .type name[dims] [= init], ...;` after the state space: into
    // `f`'s variables in the innermost open block, or the module's when `f` is null.
    void parse_variables(Space space, bool is_extern, bool is_visible, Function* f, TextPos start);
    void add_variable(Variable v, Function* f);
    void parse_initializer(Variable& v);
    void write_initializer_entry(Variable& v, int64_t capacity);
    Param parse_param();
    void parse_param_list(std::vector<Param>& into);

    // Functions (parse_function.cpp).
    void parse_function(bool is_entry, bool is_extern, bool is_visible, TextPos start);
    void parse_performance_directive(Function& f);
    void parse_body(Function& f);
    void open_block(Function& f, const Token& brace);
    void close_block(Function& f);
    void parse_register_declaration(Function& f);
    void declare_register(Function& f, const std::string& name, const std::string& type, int vector, TextPos pos);
    void parse_loc(Function& f);
    int resolve_loc(Function& f, const LocDirective& d, TextPos pos);
    void parse_label(Function& f);
    void resolve_labels(Function& f);

    // Instructions and operands (parse_instruction.cpp).
    void parse_instruction(Function& f);
    Operand parse_operand(Function& f, const Instruction& ins, size_t& count);
    Operand parse_simple_operand(Function& f, const Instruction& ins, size_t& count);
    Operand parse_address(Function& f, const Instruction& ins, size_t& count);
    Operand parse_list(Function& f, const Instruction& ins, size_t& count, char close);
    Operand parse_immediate(const Instruction& ins, bool negative);
    Operand name_operand(Function& f, const Token& t);
    void count_operand(const Instruction& ins, size_t& count, TextPos pos);

    // The declarations in force and what the module has so far.
    bool is_declared_function(const std::string& name) const { return function_index_.count(name) != 0; }

    Lexer lex_;
    Token tok_;
    const std::string& path_;
    const ParseLimits& limits_;
    Module module_;
    std::unordered_map<std::string, int> variable_index_;   // module variables
    std::unordered_map<std::string, int> function_index_;   // the latest of each name
    int64_t registers_ = 0, instructions_ = 0, operands_ = 0;  // module-wide, for the limits

    // The function whose body is being read.
    ScopedNames registers_in_scope_;
    ScopedNames variables_in_scope_;
    std::unordered_map<std::string, int> params_in_scope_;   // params and returns
    std::vector<int> open_blocks_;
    std::unordered_map<std::string, int> labels_;            // name + '\0' + block -> index in labels
    std::unordered_map<std::string, int> loc_ids_;           // a resolved chain's key -> index in locs
    std::map<std::tuple<int, int, int>, int> loc_by_point_;  // a point -> the latest loc it starts
    int current_loc_ = -1;
    std::unordered_map<LocDirectiveKey, int, LocDirectiveKey::Hash> loc_by_directive_;  // see resolve_loc

    std::vector<Operand> operand_scratch_, list_scratch_;
};

// type_bytes() on a view (module.cpp): no string is made for each declaration's type.
int64_t type_size(std::string_view type);

// Literals (literals.cpp).
struct NumberValue {
    enum class Form { integer, f32_bits, f64_bits, decimal } form = Form::integer;
    uint64_t bits = 0;   // integer (two's complement), f32 or f64 bits
    double value = 0;    // decimal
};
// Reads a number token; returns "" and fills `out`, or says why `text` is not a number.
std::string read_number(std::string_view text, NumberValue& out);
NumberValue negate(NumberValue v);

// Special registers (parse_instruction.cpp): `%tid.x`, `%clock64`, `%envreg3`, ...
bool is_special_register(std::string_view name);
// A PTX identifier: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
bool is_identifier(std::string_view name);

}  // namespace tmasim::ptx
