// `.loc F L C[, function_name LABEL][, inlined_at F L C]`: the source line of the
// instructions after it. nvcc writes one `.loc` per inlining level, each naming the point it
// was inlined at; that point is the own point of an earlier `.loc`, whose chain continues it.
#include <cstring>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

std::string chain_key(const std::vector<LocPoint>& chain, const std::string& function_name) {
    std::string key(chain.size() * sizeof(LocPoint), '\0');
    std::memcpy(key.data(), chain.data(), key.size());
    key += '\0';
    key += function_name;
    return key;
}

}  // namespace

void Parser::parse_loc(Function& f) {
    const TextPos start = tok_.pos;
    advance();  // .loc
    LocDirective d;
    d.point.file = int(expect_count("the file index of .loc", 0, INT32_MAX));
    d.point.line = int(expect_count("the line of .loc", 0, INT32_MAX));
    if (tok_.kind == TokenKind::number) d.point.col = int(expect_count("the column of .loc", 0, INT32_MAX));
    while (tok_.is(',')) {
        advance();
        if (tok_.is_word("function_name") && d.function_name.empty()) {
            advance();
            d.function_name = expect_name("the function_name label of .loc");
        } else if (tok_.is_word("inlined_at") && !d.inlined) {
            advance();
            d.inlined = true;
            d.inlined_at.file = int(expect_count("the file index after inlined_at", 0, INT32_MAX));
            d.inlined_at.line = int(expect_count("the line after inlined_at", 0, INT32_MAX));
            if (tok_.kind == TokenKind::number) d.inlined_at.col = int(expect_count("the column after inlined_at", 0, INT32_MAX));
        } else {
            fail(tok_.pos, fmt::format("unexpected {} after .loc; allowed: function_name LABEL, inlined_at FILE LINE COL", describe(tok_)));
        }
    }
    current_loc_ = resolve_loc(f, d, start);
}

int Parser::resolve_loc(Function& f, const LocDirective& d, TextPos pos) {
    int outer_index = -1;
    if (d.inlined) {
        auto outer = loc_by_point_.find({d.inlined_at.file, d.inlined_at.line, d.inlined_at.col});
        if (outer != loc_by_point_.end()) outer_index = outer->second;
    }
    LocDirectiveKey directive_key{{d.point.file, d.point.line, d.point.col, d.inlined ? d.inlined_at.file : -1, d.inlined_at.line,
                                   d.inlined_at.col, outer_index},
                                  d.function_name};
    auto known = loc_by_directive_.find(directive_key);
    if (known != loc_by_directive_.end()) {
        loc_by_point_[{d.point.file, d.point.line, d.point.col}] = known->second;
        return known->second;
    }
    DebugLoc loc;
    loc.function_name = d.function_name;
    loc.chain.push_back(d.point);
    if (d.inlined) {
        loc.chain.push_back(d.inlined_at);
        if (outer_index >= 0) {
            const std::vector<LocPoint>& rest = f.locs[size_t(outer_index)].chain;
            if (rest.size() + 1 > size_t(limits_.max_inline_depth))
                fail(pos, fmt::format("the inlined_at chain of this .loc is {} deep; allowed: at most {}", rest.size() + 1,
                                      limits_.max_inline_depth));
            loc.chain.insert(loc.chain.end(), rest.begin() + 1, rest.end());
        }
    }
    std::string key = chain_key(loc.chain, loc.function_name);
    auto [it, fresh] = loc_ids_.emplace(std::move(key), int(f.locs.size()));
    if (fresh) f.locs.push_back(std::move(loc));
    loc_by_point_[{d.point.file, d.point.line, d.point.col}] = it->second;
    loc_by_directive_.emplace(std::move(directive_key), it->second);
    return it->second;
}

}  // namespace tmasim::ptx
