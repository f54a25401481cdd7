// tmasim layout FILE NAME: the element-ownership map of a tile or register layout declared
// in a scenario, printed as Gluon's layouts tutorial prints it ("T<thread>:<register>",
// broadcast copies joined by '|'); for a shared layout, the shared-memory element offset
// of each tile element. A map wider than a terminal is printed in bands of columns, and a
// legend after it says what the cells mean.
#include <charconv>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/io/printable.h"
#include "cli/teaching.h"
#include "scenarios/checked_size.h"
#include "scenarios/layout_loader.h"
#include "scenarios/loader.h"

namespace tmasim::cli {
namespace {

// 1 or 2 extents 1..65536, and at most kMaxTileElements in all: the map has a line per row
// and an entry per element.
std::vector<int64_t> parse_shape(const std::string& text) {
    const std::string allowed = "allowed: 1 or 2 sizes 1..65536, comma-separated, at most " +
                                std::to_string(kMaxTileElements) + " elements in all";
    std::vector<int64_t> shape;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() || v < 1 || v > (1 << 16))
            throw std::invalid_argument("--shape " + text + ": " + allowed);
        shape.push_back(v);
    }
    if (shape.empty() || shape.size() > 2) throw std::invalid_argument("--shape " + text + ": " + allowed);
    if (!checked_product(shape, kMaxTileElements))
        throw std::invalid_argument("--shape " + text + ": " + std::to_string(shape[0] * shape[1]) +
                                    " elements; " + allowed);
    return shape;
}

// Lines of a map stay within this many columns (a 128x8 tile of 4 owners a cell was 234).
constexpr size_t kMapColumns = 100;

// One element a line, "(r, c): A| B| C" wrapped, for cells too wide for any map within
// kMapColumns (16 broadcast owners of an element are 127 columns).
std::string element_list(const std::vector<std::string>& cells, const std::vector<int64_t>& shape) {
    std::ostringstream out;
    const int64_t cols = shape.back();
    for (size_t e = 0; e < cells.size(); ++e) {
        const std::string where = shape.size() == 2 ? "(" + std::to_string(int64_t(e) / cols) + ", " +
                                                          std::to_string(int64_t(e) % cols) + "): "
                                                    : "(" + std::to_string(e) + "): ";
        std::string spaced;  // "A| B": a line may break after each '|'
        for (char ch : cells[e])
            if (ch != ' ') spaced += ch == '|' ? std::string("| ") : std::string(1, ch);
        out << where << wrap_text(spaced, where.size(), kMapColumns) << '\n';
    }
    return out.str();
}

// The cells of a 1-D (one element a line) or 2-D tile, row-major, as Gluon's tutorial prints
// them: each right-aligned to the widest, rows "[[a, b],\n [c, d]]". Columns that do not fit
// in kMapColumns go in bands of a power of two (as layouts repeat), each headed "columns i-j
// of n:" and printed as a whole map. `form` says which of the three the map took.
struct MapForm {
    bool listed = false;  // cells too wide even one a band: element_list
    bool banded = false;  // in bands of columns
};

std::string grid_text(const std::vector<std::string>& cells, const std::vector<int64_t>& shape, MapForm& form) {
    size_t widest = 1;
    for (const std::string& c : cells) widest = std::max(widest, c.size());
    form.listed = widest + 4 > kMapColumns;
    if (form.listed) return element_list(cells, shape);
    auto cell = [&](int64_t e) { return std::string(widest - cells[size_t(e)].size(), ' ') + cells[size_t(e)]; };
    std::ostringstream out;
    if (shape.size() == 1) {
        for (int64_t e = 0; e < shape[0]; ++e) out << (e == 0 ? "[" : " ") << cell(e) << (e + 1 == shape[0] ? "]" : ",") << '\n';
        return out.str();
    }
    const int64_t rows = shape[0], cols = shape[1];
    // "[[" + k cells + (k-1) ", " + "]]" must fit.
    const int64_t fit = std::max<int64_t>(1, int64_t((kMapColumns - 2) / (widest + 2)));
    int64_t band = 1;
    while (band * 2 <= fit) band *= 2;
    if (cols <= fit) band = cols;
    form.banded = band < cols;
    for (int64_t first = 0; first < cols; first += band) {
        const int64_t last = std::min(cols, first + band);
        if (band < cols) out << (first ? "\n" : "") << "columns " << first << "-" << last - 1 << " of " << cols << ":\n";
        for (int64_t r = 0; r < rows; ++r) {
            out << (r == 0 ? "[[" : " [");
            for (int64_t c = first; c < last; ++c) out << (c > first ? ", " : "") << cell(r * cols + c);
            out << (r + 1 == rows ? "]]" : "],") << '\n';
        }
    }
    return out.str();
}


// What the lines and cells of a map are, for its legend.
std::string tile_words(const std::vector<int64_t>& shape, const MapForm& form) {
    const std::string tile = shape.size() == 2 ? "the " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " tile"
                                               : "the " + std::to_string(shape[0]) + "-element tile";
    if (form.listed) return "each line (r, c) is element (r, c) of " + tile + " (one element a line: its cells are too "
                       "wide for a map of " + std::to_string(kMapColumns) + " columns)";
    if (shape.size() == 1) return "line e is element e of " + tile;
    return "line r, cell c is element (r, c) of " + tile + (form.banded ? " (each band: the columns it names)" : "");
}

// "legend: ..." wrapped within kMapColumns, after a blank line.
std::string legend(const std::string& text) { return "\nlegend: " + wrap_text(text, 8, kMapColumns) + "\n"; }

std::string ownership_text(const LinearLayout& l) {
    MapForm form;
    const std::string map = grid_text(ownership_cells(l), l.shape, form);
    return map + legend(tile_words(l.shape, form) + ". T<t>:<r> = thread t (warp t/32, lane t%32) holds the "
                                                      "element in its register r; A|B = the element is broadcast: A "
                                                      "and B each hold a copy.");
}

std::string offsets_map(const SharedLayoutSpec& spec, const std::vector<int64_t>& shape, const std::string& type,
                        int64_t esize) {
    check_shared_layout(spec, shape, esize);
    std::vector<std::string> cells;
    for (int64_t o : shared_offsets(spec, shape, esize)) cells.push_back(std::to_string(o));
    MapForm form;
    const std::string map = grid_text(cells, shape, form);
    return map + legend(tile_words(shape, form) + ". Each number is where the element lies in the shared buffer, in " +
                        type + " elements (" + std::to_string(esize) + " bytes each) from its start.");
}

}  // namespace

void add_layout_command(CLI::App& app, Action& action) {
    struct Args {
        std::string file, name, shape, type = "f32";
        bool linear = false;
    };
    auto args = std::make_shared<Args>();
    CLI::App* sub = app.add_subcommand("layout", "Print the element-ownership map of a layout or tile of a scenario");
    sub->add_option("file", args->file, "Scenario YAML file")->required();
    sub->add_option("name", args->name, "A tile of `tiles:` or a layout of `layouts:`")->required();
    sub->add_option("--shape", args->shape, "Tile shape for a layout, e.g. 32,8 (default: the layout's own)");
    sub->add_option("--type", args->type, "Element type for a shared layout's offsets (default f32)");
    sub->add_flag("--linear", args->linear, "Print the linear layout's bases instead of the map");
    sub->footer("Exit codes: 0 printed; 2 bad input (an unknown name, a shape the layout cannot take).");
    sub->callback([args, &action] {
        action = [args]() -> int {
            try {
                const Scenario s = load_scenario_file(args->file);
                std::vector<int64_t> shape;
                if (!args->shape.empty()) shape = parse_shape(args->shape);
                if (const TileDecl* t = s.find_tile(args->name)) {
                    if (!shape.empty() && shape != t->shape)
                        throw std::invalid_argument("tile " + t->name + " has its own shape; leave --shape out");
                    const LinearLayout l = s.tile_layout(t->name);
                    std::cout << (args->linear ? linear_text(l) + "\n" : ownership_text(l));
                    return kOk;
                }
                const LayoutDecl* d = s.find_layout(args->name);
                if (!d) throw std::invalid_argument("no tile or layout named '" + args->name + "' in " + args->file);
                if (d->is_shared) {
                    auto type = parse_dtype(args->type);
                    if (!type) throw std::invalid_argument("--type " + args->type + "; allowed: " + allowed_dtypes());
                    if (shape.empty()) throw std::invalid_argument("a shared layout needs --shape");
                    std::cout << offsets_map(d->smem, shape, args->type, dtype_size(*type));
                    return kOk;
                }
                if (shape.empty()) {
                    if (d->reg.kind != RegLayoutSpec::Kind::linear)
                        throw std::invalid_argument("layout " + d->name + " needs --shape (a linear layout has its own)");
                    shape = d->reg.linear.shape;
                }
                const LinearLayout l = to_linear(d->reg, shape);
                std::cout << (args->linear ? linear_text(l) + "\n" : ownership_text(l));
                return kOk;
            } catch (const ScenarioError& e) {
                std::cerr << printable_line(e.what()) << '\n';
            } catch (const std::invalid_argument& e) {
                std::cerr << "tmasim: error: layout: " << printable_line(e.what()) << '\n';
            }
            return kBadInput;
        };
    });
}

}  // namespace tmasim::cli
