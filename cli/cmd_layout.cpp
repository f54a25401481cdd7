// tmasim layout FILE NAME: the element-ownership map of a tile or register layout declared
// in a scenario, printed as Gluon's layouts tutorial prints it ("T<thread>:<register>",
// broadcast copies joined by '|'); for a shared layout, the shared-memory element offset
// of each tile element.
#include <charconv>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/io/printable.h"
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

std::string offsets_map(const SharedLayoutSpec& spec, const std::vector<int64_t>& shape, int64_t esize) {
    check_shared_layout(spec, shape, esize);
    const std::vector<int64_t> offs = shared_offsets(spec, shape, esize);
    size_t widest = 1;
    for (int64_t o : offs) widest = std::max(widest, std::to_string(o).size());
    const int64_t cols = shape.back(), rows = shape.size() == 2 ? shape[0] : 1;
    std::ostringstream out;
    for (int64_t r = 0; r < rows; ++r) {
        out << (r == 0 ? (rows > 1 ? "[[" : "[") : " [");
        for (int64_t c = 0; c < cols; ++c) {
            const std::string o = std::to_string(offs[size_t(r * cols + c)]);
            out << (c ? ", " : "") << std::string(widest - o.size(), ' ') << o;
        }
        out << (r + 1 == rows ? (rows > 1 ? "]]" : "]") : "],") << '\n';
    }
    return out.str();
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
                    std::cout << (args->linear ? linear_text(l) + "\n" : ownership_map(l));
                    return kOk;
                }
                const LayoutDecl* d = s.find_layout(args->name);
                if (!d) throw std::invalid_argument("no tile or layout named '" + args->name + "' in " + args->file);
                if (d->is_shared) {
                    auto type = parse_dtype(args->type);
                    if (!type) throw std::invalid_argument("--type " + args->type + "; allowed: " + allowed_dtypes());
                    if (shape.empty()) throw std::invalid_argument("a shared layout needs --shape");
                    std::cout << offsets_map(d->smem, shape, dtype_size(*type));
                    return kOk;
                }
                if (shape.empty()) {
                    if (d->reg.kind != RegLayoutSpec::Kind::linear)
                        throw std::invalid_argument("layout " + d->name + " needs --shape (a linear layout has its own)");
                    shape = d->reg.linear.shape;
                }
                const LinearLayout l = to_linear(d->reg, shape);
                std::cout << (args->linear ? linear_text(l) + "\n" : ownership_map(l));
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
