#include "cli/sweep_expand.h"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cli/sweep_template.h"
#include "scenarios/expr.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"
#include "scenarios/yaml_access.h"
#include "scenarios/yaml_document.h"

namespace tmasim::cli {
namespace fs = std::filesystem;
namespace {

// A regular file of at most kMaxScenarioBytes; `key` and `at` say who asked for it.
std::string read_bounded(const std::string& path, const SourceLoc& at, const std::string& key) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw ScenarioError(at, key, "cannot open " + path);
    if (!S_ISREG(st.st_mode)) throw ScenarioError(at, key, path + " is not a regular file; allowed: a YAML file");
    if (static_cast<size_t>(st.st_size) > kMaxScenarioBytes)
        throw ScenarioError(at, key, path + " is " + std::to_string(st.st_size) + " bytes; allowed: at most " +
                                         std::to_string(kMaxScenarioBytes));
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in) throw ScenarioError(at, key, "cannot read " + path);
    return ss.str();
}

bool is_name(const std::string& s) {
    if (s.empty() || s.size() > kMaxNameLength || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

// A value goes into the YAML text as is, so it may not change the text's structure.
bool is_plain_value(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-'))
            return false;
    return true;
}

std::vector<SweepParam> read_params(MapReader& top, const std::string& file) {
    const YAML::Node node = top.node("params");
    MapReader params(node, file, "params");
    if (node.size() == 0) top.fail("params", "no parameters; allowed: name: [value, ...]");
    if (node.size() > kMaxSweepParams)
        top.fail("params", fmt::format("{} parameters; allowed: at most {}", node.size(), kMaxSweepParams));
    std::vector<SweepParam> out;
    for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string name = it->first.Scalar();
        const std::string path = "params." + name;
        const SourceLoc at = loc_of(it->first, file);
        if (!is_name(name))
            throw ScenarioError(at, path, "not a parameter name; allowed: letters, digits and _, not starting with a digit");
        const YAML::Node list = it->second;
        if (!list.IsSequence() || list.size() == 0)
            throw ScenarioError(loc_of(list, file), path,
                                "expected a non-empty list of values, got " + node_kind(list) + "; allowed: [v1, v2, ...]");
        if (list.size() > kMaxSweepValues)
            throw ScenarioError(loc_of(list, file), path,
                                fmt::format("{} values; allowed: at most {}", list.size(), kMaxSweepValues));
        SweepParam p{name, {}, at};
        std::set<std::string> seen;
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string vpath = fmt::format("{}[{}]", path, i);
            if (!list[i].IsScalar() || !is_plain_value(list[i].Scalar()))
                throw ScenarioError(loc_of(list[i], file), vpath,
                                    "expected a plain value, got " + node_kind(list[i]) +
                                        "; allowed: up to 64 letters, digits, _ . + -");
            if (!seen.insert(list[i].Scalar()).second)
                throw ScenarioError(loc_of(list[i], file), vpath,
                                    "\"" + list[i].Scalar() + "\" is listed twice; allowed: each value once");
            p.values.push_back(list[i].Scalar());
        }
        out.push_back(std::move(p));
    }
    return out;
}

// The grid's size, refused past kMaxSweepPoints before any point is made.
size_t grid_size(const std::vector<SweepParam>& params, const MapReader& top) {
    size_t n = 1;
    for (const SweepParam& p : params) {
        n *= p.values.size();  // each factor <= 1000 and n <= 10000 so far: no overflow
        if (n > kMaxSweepPoints) break;
    }
    if (n > kMaxSweepPoints) {
        std::string sizes;
        for (const SweepParam& p : params) sizes += (sizes.empty() ? "" : " x ") + std::to_string(p.values.size());
        top.fail("params", fmt::format("a grid of {} points or more ({}); allowed: at most {} (split the sweep "
                                       "into several files)",
                                       n, sizes, kMaxSweepPoints));
    }
    return n;
}

}  // namespace

std::string point_id(size_t index) { return fmt::format("{:04d}", index); }

std::string Sweep::describe(const SweepPoint& p) const {
    std::string out;
    for (size_t i = 0; i < params.size(); ++i) out += (i ? " " : "") + params[i].name + "=" + p.values.at(i);
    return out;
}

std::string Sweep::fingerprint() const {
    std::string all;
    for (const SweepPoint& p : points) all += p.id + '\n' + p.text + '\0';
    return fnv1a64_hex(all.data(), all.size());
}

Sweep expand_sweep(const std::string& path) {
    const std::string text = read_bounded(path, SourceLoc{path, 0, 0}, "file");
    const YAML::Node root = load_single_yaml_document(text, path);
    if (!root.IsDefined() || root.IsNull()) throw ScenarioError(SourceLoc{path, 1, 1}, "sweep", "the file is empty");
    MapReader top(root, path, "");
    top.only_keys("sweep, summary, template, params, where");
    Sweep sweep;
    sweep.file = path;
    sweep.name = top.string("sweep");
    if (!is_name(sweep.name)) top.fail("sweep", "\"" + sweep.name + "\" is not a name; allowed: letters, digits, _");
    top.string_or("summary", "");
    const std::string tmpl = top.string("template");
    sweep.template_file = (fs::path(path).parent_path() / tmpl).lexically_normal().string();
    sweep.params = read_params(top, path);
    Expr where = top.expr_or_empty("where");
    top.finish("sweep, summary, template, params, where");
    sweep.grid_size = grid_size(sweep.params, top);

    SweepTemplate t = SweepTemplate::parse(read_bounded(sweep.template_file, top.loc("template"), "template"),
                                           sweep.template_file);
    std::set<std::string> declared;
    for (const SweepParam& p : sweep.params) declared.insert(p.name);
    t.require_known(declared);
    const std::set<std::string> used = t.names();
    for (const SweepParam& p : sweep.params)
        if (!used.count(p.name))
            throw ScenarioError(p.loc, "params." + p.name,
                                "the template (" + sweep.template_file + ") never uses it; allowed: parameters the "
                                "template names as ${" + p.name + "} or in a ${...} expression");
    for (const std::string& v : where.variables())
        if (!declared.count(v)) top.fail("where", "'" + v + "' is not a parameter of the sweep");

    size_t text_bytes = 0;
    std::vector<size_t> digit(sweep.params.size(), 0);  // the odometer: last parameter fastest
    for (size_t g = 0; g < sweep.grid_size; ++g) {
        SweepPoint point;
        std::map<std::string, std::string> values;
        Expr::IntEnv ints;
        for (size_t i = 0; i < sweep.params.size(); ++i) {
            point.values.push_back(sweep.params[i].values[digit[i]]);
            values[sweep.params[i].name] = point.values.back();
            int64_t v = 0;
            if (parse_int_value(point.values.back(), v)) ints[sweep.params[i].name] = v;
        }
        for (size_t i = sweep.params.size(); i-- > 0;) {
            if (++digit[i] < sweep.params[i].values.size()) break;
            digit[i] = 0;
        }
        const std::string at_point = " (sweep " + path + ", point " + sweep.describe(point) + ")";
        try {
            if (!where.empty() && where.eval_int(ints) == 0) continue;
            point.index = sweep.points.size();
            point.id = point_id(point.index);
            point.text = t.expand(values);
            load_scenario_text(point.text, sweep.template_file);
        } catch (const ScenarioError& e) {
            SourceLoc loc = e.loc();
            if (loc.file == sweep.template_file && loc.line > 0) loc.col = t.to_template_col(loc.line, loc.col);
            throw ScenarioError(loc, e.key(), e.message() + at_point);
        }
        text_bytes += point.text.size();
        if (text_bytes > kMaxSweepTextBytes)
            top.fail("params", fmt::format("the points' scenarios come to more than {} bytes; allowed: at most that "
                                           "(split the sweep)",
                                           kMaxSweepTextBytes));
        sweep.points.push_back(std::move(point));
    }
    if (sweep.points.empty()) top.fail("where", "no point of the grid passes it; allowed: a filter that keeps some");
    return sweep;
}

}  // namespace tmasim::cli
