// `.entry` and `.func`: the signature, the performance directives, and the body with its
// blocks, `.reg` declarations, labels and `.loc`s. The instructions are parse_instruction.cpp's.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

// The performance-tuning directives a signature may carry and how many integers each takes.
struct DirectiveShape {
    const char* name;
    int min_values, max_values;
};
const DirectiveShape kPerformanceDirectives[] = {
    {".maxntid", 1, 3},        {".reqntid", 1, 3},         {".minnctapersm", 1, 1},     {".maxnctapersm", 1, 1},
    {".maxnreg", 1, 1},        {".reqnctapercluster", 1, 3}, {".explicitcluster", 0, 0}, {".maxclusterrank", 1, 1},
    {".noreturn", 0, 0},       {".blocksareclusters", 0, 0},
};
const char* kPerformanceDirectiveList =
    ".maxntid, .reqntid, .minnctapersm, .maxnctapersm, .maxnreg, .reqnctapercluster, .explicitcluster, .maxclusterrank, "
    ".noreturn, .blocksareclusters";

std::string label_key(const std::string& name, int scope) { return name + '\0' + std::to_string(scope); }

}  // namespace

void Parser::parse_function(bool is_entry, bool is_extern, bool is_visible, TextPos start) {
    advance();  // .entry / .func
    Function f;
    f.is_entry = is_entry;
    f.is_extern = is_extern;
    f.is_visible = is_visible;
    f.pos = start;
    if (!is_entry && tok_.is('(')) parse_param_list(f.returns);
    f.name = expect_name(is_entry ? "the kernel's name after .entry" : "the function's name after .func");
    if (tok_.is('(')) parse_param_list(f.params);
    while (tok_.is_directive()) parse_performance_directive(f);
    f.has_body = tok_.is('{');
    if (!f.has_body && !tok_.is(';')) fail_here(fmt::format("'{{' (the body) or ';' after the signature of '{}'", f.name));
    if (f.has_body && is_extern) fail(tok_.pos, fmt::format("the .extern function '{}' has a body; allowed: ';'", f.name));
    auto known = function_index_.find(f.name);
    if (known != function_index_.end() && f.has_body && module_.functions[size_t(known->second)].has_body) {
        const Function& was = module_.functions[size_t(known->second)];
        fail(start, fmt::format("function '{}' is defined again (first at {}:{})", f.name, was.pos.line, was.pos.col));
    }
    // The index answers for the name: the definition once there is one, else the first prototype.
    if (known == function_index_.end() || f.has_body) function_index_[f.name] = int(module_.functions.size());
    module_.functions.push_back(std::move(f));
    if (module_.functions.back().has_body)
        parse_body(module_.functions.back());
    else
        advance();  // ';'
}

void Parser::parse_performance_directive(Function& f) {
    const DirectiveShape* shape = nullptr;
    for (const DirectiveShape& d : kPerformanceDirectives)
        if (tok_.is_word(d.name)) shape = &d;
    if (!shape)
        fail(tok_.pos, fmt::format("unknown directive {} after the signature of '{}'; allowed: {}", describe(tok_), f.name,
                                   kPerformanceDirectiveList));
    TextPos at = tok_.pos;
    std::string key(tok_.text.substr(1));
    if (f.directives.count(key)) fail(at, fmt::format("'.{}' is given twice for '{}'", key, f.name));
    advance();
    std::vector<int64_t> values;
    if (shape->max_values > 0) {
        values.push_back(expect_count(shape->name, 1, INT32_MAX));
        while (tok_.is(',')) {
            if (int(values.size()) == shape->max_values)
                fail(tok_.pos, fmt::format("'{}' takes at most {} values; found more", shape->name, shape->max_values));
            advance();
            values.push_back(expect_count(shape->name, 1, INT32_MAX));
        }
    }
    f.directives.emplace(std::move(key), std::move(values));
}

void Parser::parse_body(Function& f) {
    registers_in_scope_.clear();
    variables_in_scope_.clear();
    params_in_scope_.clear();
    for (const Param& p : f.params) params_in_scope_.emplace(p.name, 0);
    for (const Param& p : f.returns) params_in_scope_.emplace(p.name, 0);
    open_blocks_.clear();
    labels_.clear();
    loc_ids_.clear();
    loc_by_point_.clear();
    loc_by_directive_.clear();
    current_loc_ = -1;
    const Token body_open = tok_;
    f.body_begin = tok_.offset + 1;
    open_block(f, tok_);
    while (!open_blocks_.empty()) {
        if (tok_.kind == TokenKind::end)
            fail(tok_.pos, fmt::format("expected '}}' to close the body of '{}' (opened at {}:{}), found the end of the text", f.name,
                                       body_open.pos.line, body_open.pos.col));
        if (tok_.is('{')) {
            open_block(f, tok_);
        } else if (tok_.is('}')) {
            if (open_blocks_.size() == 1) f.body_end = tok_.offset;
            close_block(f);
            advance();
        } else if (tok_.is('@')) {
            parse_instruction(f);
        } else if (tok_.is_word(".reg")) {
            parse_register_declaration(f);
        } else if (tok_.is_word(".loc")) {
            parse_loc(f);
        } else if (tok_.is_word(".pragma")) {
            parse_pragma();
        } else if (tok_.is_word(".local") || tok_.is_word(".shared") || tok_.is_word(".param") || tok_.is_word(".const")) {
            static const std::pair<const char*, Space> kSpaces[] = {
                {".local", Space::local}, {".shared", Space::shared}, {".param", Space::param}, {".const", Space::const_}};
            Space space = Space::local;
            for (const auto& [word, s] : kSpaces)
                if (tok_.is_word(word)) space = s;
            TextPos start = tok_.pos;
            advance();
            parse_variables(space, false, false, &f, start);
        } else if (tok_.is_directive()) {
            fail(tok_.pos, fmt::format("unknown directive {} in the body of '{}'; allowed: .reg, .local, .shared, .param, .const, "
                                       ".loc, .pragma",
                                       describe(tok_), f.name));
        } else if (tok_.kind == TokenKind::word && lex_.peek().is(':')) {
            parse_label(f);
        } else if (tok_.kind == TokenKind::word) {
            parse_instruction(f);
        } else {
            fail_here(fmt::format("an instruction, a label, a declaration or '}}' in the body of '{}'", f.name));
        }
    }
    resolve_labels(f);
    registers_in_scope_.clear();
    variables_in_scope_.clear();
}

void Parser::open_block(Function& f, const Token& brace) {
    // The body is block 0; max_block_depth counts the blocks inside it.
    if (int(open_blocks_.size()) > limits_.max_block_depth)
        fail(brace.pos, fmt::format("blocks nest {} deep in '{}'; allowed: at most {}", open_blocks_.size(), f.name, limits_.max_block_depth));
    Block b;
    b.parent = open_blocks_.empty() ? -1 : open_blocks_.back();
    b.first_instruction = b.end_instruction = int(f.instructions.size());
    open_blocks_.push_back(int(f.blocks.size()));
    f.blocks.push_back(b);
    registers_in_scope_.open_block();
    variables_in_scope_.open_block();
    advance();
}

void Parser::close_block(Function& f) {
    f.blocks[size_t(open_blocks_.back())].end_instruction = int(f.instructions.size());
    open_blocks_.pop_back();
    registers_in_scope_.close_block();
    variables_in_scope_.close_block();
}

void Parser::parse_register_declaration(Function& f) {
    const TextPos start = tok_.pos;
    advance();  // .reg
    int vector = 0;
    std::string type;
    while (tok_.is_directive()) {
        if (vector == 0 && (tok_.is_word(".v2") || tok_.is_word(".v4") || tok_.is_word(".v8"))) {
            vector = tok_.text[2] - '0';
        } else if (type.empty() && type_size(tok_.text) > 0) {
            type = std::string(tok_.text);
        } else {
            fail(tok_.pos, fmt::format("unexpected {} in a .reg declaration; allowed: .v2, .v4, .v8, one type "
                                       "(.b32, .pred, .f32, ...), then the names",
                                       describe(tok_)));
        }
        advance();
    }
    if (type.empty()) fail_here("a type (.b32, .pred, .f32, ...) after .reg");
    for (;;) {
        TextPos name_pos = tok_.pos;
        std::string name = expect_name("a register name");
        if (tok_.is('<')) {
            // `%r<38>`: %r0..%r37. Counted against the limits before anything is made.
            advance();
            int64_t count = expect_count("the register count in <N>", 1, limits_.max_registers);
            expect('>', "after the register count");
            if (int64_t(f.registers.size()) + count > limits_.max_registers)
                fail(name_pos, fmt::format("'{}' has {} registers with {}<{}>; allowed: at most {}", f.name,
                                           int64_t(f.registers.size()) + count, name, count, limits_.max_registers));
            if (registers_ + count > limits_.max_module_registers)
                fail(name_pos, fmt::format("the module has {} registers with {}<{}>; allowed: at most {}", registers_ + count, name,
                                           count, limits_.max_module_registers));
            if (f.registers.capacity() < f.registers.size() + size_t(count))
                f.registers.reserve(std::max(f.registers.size() + size_t(count), 2 * f.registers.capacity()));
            // The names made in one buffer: %r0, %r1, ... without a string built per digit run.
            std::string each = name;
            for (int64_t i = 0; i < count; ++i) {
                each.resize(name.size());
                char digits[24];
                int n = 0;
                for (int64_t v = i; n == 0 || v > 0; v /= 10) digits[n++] = char('0' + v % 10);
                while (n > 0) each += digits[--n];
                declare_register(f, each, type, vector, start);
            }
        } else {
            if (int64_t(f.registers.size()) + 1 > limits_.max_registers || registers_ + 1 > limits_.max_module_registers)
                fail(name_pos, fmt::format("too many registers with '{}'; allowed: at most {} in a function, {} in the module", name,
                                           limits_.max_registers, limits_.max_module_registers));
            declare_register(f, name, type, vector, start);
        }
        if (!tok_.is(',')) break;
        advance();
    }
    expect(';', "after the .reg declaration");
}

void Parser::declare_register(Function& f, const std::string& name, const std::string& type, int vector, TextPos pos) {
    int was = registers_in_scope_.find(name);
    if (was >= 0 && f.registers[size_t(was)].scope == open_blocks_.back()) {
        const Register& w = f.registers[size_t(was)];
        fail(pos, fmt::format("register '{}' is declared again in its block (first at {}:{})", name, w.pos.line, w.pos.col));
    }
    registers_in_scope_.declare(name, int(f.registers.size()));
    Register r;
    r.name = name;
    r.type = type;
    r.vector = vector;
    r.scope = open_blocks_.back();
    r.pos = pos;
    f.registers.push_back(std::move(r));
    ++registers_;
}

void Parser::parse_label(Function& f) {
    Label l;
    l.pos = tok_.pos;
    if (!is_identifier(tok_.text)) fail(tok_.pos, fmt::format("{} is not a label name; allowed: a PTX identifier", describe(tok_)));
    l.name = std::string(tok_.text);
    l.scope = open_blocks_.back();
    l.instruction = int(f.instructions.size());
    advance();
    advance();  // ':'
    auto [it, fresh] = labels_.emplace(label_key(l.name, l.scope), int(f.labels.size()));
    if (!fresh) {
        const Label& was = f.labels[size_t(it->second)];
        fail(l.pos, fmt::format("label '{}' is declared again in its block (first at {}:{})", l.name, was.pos.line, was.pos.col));
    }
    f.labels.push_back(std::move(l));
    // `prototype_0 : .callprototype (...) _ (...);` and `.branchtargets`/`.calltargets`
    // lists: named for indirect calls and brx.idx, kept as the label only.
    if (tok_.is_word(".callprototype") || tok_.is_word(".branchtargets") || tok_.is_word(".calltargets")) {
        while (!tok_.is(';')) {
            if (tok_.kind == TokenKind::end || tok_.is('}')) fail_here("';' to end the declaration after the label");
            advance();
        }
        advance();
    }
}

}  // namespace tmasim::ptx
