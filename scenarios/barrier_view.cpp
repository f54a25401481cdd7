#include "scenarios/barrier_view.h"

#include <string>

namespace tmasim {
namespace {

// "stage" or "stage[3]": a name, then an optional decimal element index. The index is a
// constant: a barrier's place cannot move with a loop variable.
bool split_ref(const std::string& text, std::string& name, int64_t& index, bool& indexed) {
    const size_t open = text.find('[');
    indexed = open != std::string::npos;
    name = text.substr(0, open);
    index = 0;
    if (!indexed) return !name.empty();
    if (text.back() != ']' || open + 2 > text.size() - 1) return false;
    const std::string digits = text.substr(open + 1, text.size() - open - 2);
    if (digits.size() > 6 || (digits.size() > 1 && digits[0] == '0')) return false;
    for (char c : digits)
        if (c < '0' || c > '9') return false;
    index = std::stoll(digits);
    return !name.empty();
}

}  // namespace

void read_barrier_view(MapReader& m, BarrierDecl& d, const Scenario& sc) {
    if (!m.has("at")) {
        if (m.has("offset"))
            m.fail("offset", "is the byte offset of a barrier inside the buffer named by `at`, which is missing; "
                             "allowed: offset with at: \"buffer\" or at: \"buffer[i]\"");
        return;
    }
    const std::string at = m.string("at");
    std::string name;
    int64_t index = 0;
    bool indexed = false;
    if (!split_ref(at, name, index, indexed))
        m.fail("at", "\"" + at.substr(0, 80) + "\" is not a buffer reference; allowed: \"name\" or \"name[i]\" with a "
                     "constant decimal index i");
    const SharedBuffer* b = sc.find_shared(name);
    if (!b) {
        std::string declared;
        for (const SharedBuffer& s : sc.shared) declared += (declared.empty() ? "" : ", ") + s.name;
        m.fail("at", "no shared buffer named '" + name + "' is declared before the barriers; declared: " +
                         (declared.empty() ? std::string("none") : declared));
    }
    if (b->array != 0 && !indexed)
        m.fail("at", "'" + name + "' is an array of " + std::to_string(b->array) + " buffers; allowed: one element, \"" +
                         name + "[0]\" .. \"" + name + "[" + std::to_string(b->array - 1) + "]\"");
    if (b->array == 0 && indexed)
        m.fail("at", "'" + name + "' is a single buffer, not an array; allowed: \"" + name + "\"");
    if (index >= b->count())
        m.fail("at", at + " is outside the array; allowed: index 0.." + std::to_string(b->count() - 1));
    const int64_t size = b->size_bytes();
    d.at_offset = m.integer_or("offset", 0, 0, size);
    if (d.at_offset % 8 != 0)
        m.fail("offset", std::to_string(d.at_offset) + " is not 8-byte aligned; allowed: a multiple of 8 (an mbarrier "
                         "is an 8-byte object with 8-byte alignment, PTX 9.7.13.15.1)");
    if (d.at_offset + 8 * d.count() > size)
        m.fail(m.has("offset") ? "offset" : "at",
               std::to_string(d.count()) + " barrier(s) of 8 bytes at byte " + std::to_string(d.at_offset) +
                   " reach past the " + std::to_string(size) + " bytes of " + at + "; allowed: offset + 8 * " +
                   std::to_string(d.count()) + " <= " + std::to_string(size));
    d.at_buffer = name;
    d.at_index = index;
}

void check_barrier_views(const Scenario& sc) {
    for (size_t j = 0; j < sc.barriers.size(); ++j) {
        const BarrierDecl& later = sc.barriers[j];
        if (!later.is_view()) continue;
        for (size_t i = 0; i < j; ++i) {
            const BarrierDecl& first = sc.barriers[i];
            if (!first.is_view() || first.at_buffer != later.at_buffer || first.at_index != later.at_index) continue;
            const int64_t a0 = first.at_offset, a1 = a0 + 8 * first.count();
            const int64_t b0 = later.at_offset, b1 = b0 + 8 * later.count();
            if (a0 < b1 && b0 < a1)
                throw ScenarioError(later.loc, "barriers." + later.name,
                                    "its bytes " + std::to_string(b0) + ".." + std::to_string(b1 - 1) + " of " +
                                        later.at_buffer + " overlap those of barrier '" + first.name + "' (line " +
                                        std::to_string(first.loc.line) +
                                        "); allowed: barriers in disjoint 8-byte words");
        }
    }
}

}  // namespace tmasim
