#include "scenarios/yaml_access.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "scenarios/suggest.h"

namespace tmasim {

SourceLoc loc_of(const YAML::Node& node, const std::string& file) {
    SourceLoc loc;
    loc.file = file;
    YAML::Mark m = node.Mark();
    loc.line = m.line >= 0 ? m.line + 1 : 0;
    loc.col = m.column >= 0 ? m.column + 1 : 0;
    return loc;
}

namespace {
thread_local ReadBudget* current_budget = nullptr;
}  // namespace

ReadBudget::ReadBudget(size_t limit) : limit_(limit), outer_(current_budget) { current_budget = this; }
ReadBudget::~ReadBudget() { current_budget = outer_; }

void ReadBudget::charge(size_t bytes, const SourceLoc& loc, const std::string& key) {
    ReadBudget* b = current_budget;
    if (!b) return;
    b->used_ += bytes;
    if (b->used_ > b->limit_)
        throw ScenarioError(loc, key, "the scenario reads more than " + std::to_string(b->limit_) +
                                          " bytes of keys' text (YAML aliases counted at each use); allowed: at most " +
                                          std::to_string(b->limit_));
}

std::string node_kind(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "nothing";
    if (n.IsMap()) return "a mapping";
    if (n.IsSequence()) return "a list";
    // Messages are one line of bounded length, whatever the scalar holds.
    std::string shown;
    for (char c : n.Scalar().substr(0, 80)) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    return "\"" + shown + (n.Scalar().size() > 80 ? "...\"" : "\"");
}

namespace {

// Decimal integers only: YAML 1.1 readers and strtoll(…, 0) read "010" as 8 and "0x10" as
// 16, a person reads 10 and a typo; either way the scenario would run another program.
enum class IntText { ok, not_integer, leading_zero, too_large };

IntText parse_int64(const std::string& text, int64_t& out) {
    const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() == digits) return IntText::not_integer;
    for (size_t i = digits; i < text.size(); ++i)
        if (text[i] < '0' || text[i] > '9') return IntText::not_integer;
    if (text.size() > digits + 1 && text[digits] == '0') return IntText::leading_zero;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE) return IntText::too_large;
    out = v;
    return IntText::ok;
}

int64_t checked_integer(const YAML::Node& n, const SourceLoc& loc, const std::string& path,
                        int64_t min, int64_t max) {
    int64_t v = 0;
    const IntText parsed = n.IsScalar() ? parse_int64(n.Scalar(), v) : IntText::not_integer;
    const std::string allowed = "; allowed: " + std::to_string(min) + ".." + std::to_string(max);
    if (parsed == IntText::leading_zero)
        throw ScenarioError(loc, path, "\"" + n.Scalar() + "\" has a leading zero (octal in C and YAML 1.1); allowed: "
                                       "decimal integers without leading zeros");
    if (parsed == IntText::too_large)
        throw ScenarioError(loc, path, n.Scalar() + " does not fit in 64 bits" + allowed);
    if (parsed != IntText::ok) throw ScenarioError(loc, path, "expected an integer, got " + node_kind(n) + allowed);
    if (v < min || v > max)
        throw ScenarioError(loc, path, std::to_string(v) + " is out of range" + allowed);
    return v;
}

}  // namespace

MapReader::MapReader(const YAML::Node& node, std::string file, std::string path, const SourceLoc& at)
    : MapReader(node, std::move(file), std::move(path)) {
    if (loc_.line == 0) loc_ = at;
}

MapReader::MapReader(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)), loc_(loc_of(node, file_)) {
    if (!node_.IsMap())
        throw ScenarioError(loc_, path_.empty() ? "scenario" : path_,
                            "expected a mapping, got " + node_kind(node_));
    // An aliased mapping is read once per use; bounding its keys bounds that work.
    if (node_.size() > kMaxMapKeys)
        throw ScenarioError(loc_, path_.empty() ? "scenario" : path_,
                            "a mapping of " + std::to_string(node_.size()) + " keys; allowed: at most " +
                                std::to_string(kMaxMapKeys));
    // YAML parsers keep the first of two equal keys and drop the second without a word;
    // a scenario that says a thing twice is ambiguous, so it fails here.
    std::map<std::string, SourceLoc> seen;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const SourceLoc at = loc_of(it->first, file_);
        if (!it->first.IsScalar())
            throw ScenarioError(at, path_.empty() ? "scenario" : path_, "expected a key, got " + node_kind(it->first));
        auto [first, fresh] = seen.emplace(it->first.Scalar(), at);
        if (!fresh)
            throw ScenarioError(at, key_path(it->first.Scalar()),
                                "the key appears twice (first at line " + std::to_string(first->second.line) +
                                    "); allowed: each key once");
    }
}

bool MapReader::has(const std::string& key) const { return node_[key].IsDefined(); }

std::string MapReader::key_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

SourceLoc MapReader::loc(const std::string& key) const {
    YAML::Node n = node_[key];
    return n.IsDefined() ? loc_of(n, file_) : loc_;
}

void MapReader::fail(const std::string& key, const std::string& message) const {
    throw ScenarioError(loc(key), key_path(key), message);
}

YAML::Node MapReader::node(const std::string& key) {
    consumed_.insert(key);
    YAML::Node n = node_[key];
    if (!n.IsDefined()) throw ScenarioError(loc_, key_path(key), "required key is missing");
    return n;
}

YAML::Node MapReader::optional(const std::string& key) {
    consumed_.insert(key);
    return node_[key];
}

std::string MapReader::string(const std::string& key) {
    YAML::Node n = node(key);
    if (!n.IsScalar()) fail(key, "expected a string, got " + node_kind(n));
    // An aliased long string would be copied once per use.
    if (n.Scalar().size() > kMaxStringBytes)
        fail(key, "a string of " + std::to_string(n.Scalar().size()) + " bytes; allowed: at most " +
                      std::to_string(kMaxStringBytes));
    ReadBudget::charge(n.Scalar().size() + 1, loc(key), key_path(key));
    return n.Scalar();
}

std::string MapReader::string_or(const std::string& key, const std::string& fallback) {
    return has(key) ? string(key) : (consumed_.insert(key), fallback);
}

int64_t MapReader::integer(const std::string& key, int64_t min, int64_t max) {
    return checked_integer(node(key), loc(key), key_path(key), min, max);
}

int64_t MapReader::integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
    return has(key) ? integer(key, min, max) : (consumed_.insert(key), fallback);
}

double MapReader::number(const std::string& key) {
    YAML::Node n = node(key);
    if (!n.IsScalar()) fail(key, "expected a number, got " + node_kind(n));
    const std::string& text = n.Scalar();
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    // strtod also reads hex floats, "inf" and "nan"; none of them is a scenario number.
    const bool plain = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
    if (!plain || *end != '\0') fail(key, "expected a number, got " + node_kind(n));
    // Element values become float32 (or narrower): a larger magnitude would be cast with
    // undefined behaviour.
    if (errno == ERANGE || !std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
        fail(key, text + " is outside float's range; allowed: magnitudes up to 3.4e38");
    return v;
}

bool MapReader::boolean_or(const std::string& key, bool fallback) {
    if (!has(key)) {
        consumed_.insert(key);
        return fallback;
    }
    YAML::Node n = node(key);
    if (n.IsScalar() && (n.Scalar() == "true" || n.Scalar() == "false")) return n.Scalar() == "true";
    fail(key, "expected true or false, got " + node_kind(n));
}

std::vector<int64_t> MapReader::int_list(const std::string& key, size_t min_len, size_t max_len,
                                         int64_t min, int64_t max) {
    YAML::Node n = node(key);
    if (!n.IsSequence()) fail(key, "expected a list of integers, got " + node_kind(n));
    if (n.size() < min_len || n.size() > max_len)
        fail(key, "expected " + std::to_string(min_len) + ".." + std::to_string(max_len) +
                      " entries, got " + std::to_string(n.size()));
    std::vector<int64_t> out;
    for (size_t i = 0; i < n.size(); ++i)
        out.push_back(checked_integer(n[i], loc_of(n[i], file_),
                                      key_path(key) + "[" + std::to_string(i) + "]", min, max));
    return out;
}

Expr MapReader::expr(const std::string& key) {
    return scalar_expr(node(key), file_, key_path(key));
}

Expr MapReader::expr_or_empty(const std::string& key) {
    return has(key) ? expr(key) : (consumed_.insert(key), Expr());
}

namespace {
// "did you mean parity? " for a key near one of `allowed_keys` ("a, b, c"); empty otherwise.
std::string guess_of(const std::string& key, const std::string& allowed_keys) {
    std::vector<std::string> names;
    std::string item;
    for (char c : allowed_keys + ",") {
        if (c == ',') {
            if (!item.empty()) names.push_back(item);
            item.clear();
        } else if (c != ' ') {
            item += c;
        }
    }
    const std::string guess = did_you_mean(key, names);
    return guess.empty() ? guess : guess + " ";
}
}  // namespace

void MapReader::only_keys(const std::string& allowed_keys, const std::string& note) const {
    std::set<std::string> allowed;
    std::string item;
    for (char c : allowed_keys + ",") {
        if (c == ',') {
            if (!item.empty()) allowed.insert(item);
            item.clear();
        } else if (c != ' ') {
            item += c;
        }
    }
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const std::string key = it->first.Scalar();
        if (!allowed.count(key))
            throw ScenarioError(loc_of(it->first, file_), key_path(key),
                                "unknown key; " + guess_of(key, allowed_keys) + "allowed: " + allowed_keys + note);
    }
}

void MapReader::finish(const std::string& allowed_keys) const {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const std::string key = it->first.Scalar();
        if (!consumed_.count(key))
            throw ScenarioError(loc_of(it->first, file_), key_path(key),
                                "unknown key; " + guess_of(key, allowed_keys) + "allowed: " + allowed_keys);
    }
}

int64_t scalar_integer(const YAML::Node& n, const std::string& file, const std::string& path,
                       int64_t min, int64_t max) {
    return checked_integer(n, loc_of(n, file), path, min, max);
}

Expr scalar_expr(const YAML::Node& n, const std::string& file, const std::string& path) {
    SourceLoc loc = loc_of(n, file);
    if (!n.IsScalar()) throw ScenarioError(loc, path, "expected an integer or expression, got " + node_kind(n));
    ReadBudget::charge(n.Scalar().size() + 1, loc, path);
    int64_t v = 0;
    const IntText parsed = parse_int64(n.Scalar(), v);
    if (parsed == IntText::ok) return Expr::parse(std::to_string(v), loc, path);
    if (parsed == IntText::too_large)
        throw ScenarioError(loc, path, n.Scalar() + " does not fit in 64 bits; allowed: -9223372036854775808..9223372036854775807");
    // A quoted scalar starts one column before its text.
    if (n.Tag() == "!") loc.col += 1;
    Expr e = Expr::parse(n.Scalar(), loc, path);
    // Every key read through here is an integer (counts, bytes, coordinates, ranks).
    if (e.has_float_literal())
        throw ScenarioError(loc, path, "\"" + n.Scalar() + "\" is not an integer; allowed: integers and integer expressions");
    return e;
}

}  // namespace tmasim
