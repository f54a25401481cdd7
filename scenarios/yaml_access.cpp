#include "scenarios/yaml_access.h"

#include <cerrno>
#include <cstdlib>
#include <map>

namespace tmasim {

SourceLoc loc_of(const YAML::Node& node, const std::string& file) {
    SourceLoc loc;
    loc.file = file;
    YAML::Mark m = node.Mark();
    loc.line = m.line >= 0 ? m.line + 1 : 0;
    loc.col = m.column >= 0 ? m.column + 1 : 0;
    return loc;
}

std::string node_kind(const YAML::Node& n) {
    if (!n.IsDefined() || n.IsNull()) return "nothing";
    if (n.IsMap()) return "a mapping";
    if (n.IsSequence()) return "a list";
    return "\"" + n.Scalar() + "\"";
}

namespace {

bool parse_int64(const std::string& text, int64_t& out) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 0);
    if (errno != 0 || *end != '\0') return false;
    out = v;
    return true;
}

int64_t checked_integer(const YAML::Node& n, const SourceLoc& loc, const std::string& path,
                        int64_t min, int64_t max) {
    int64_t v = 0;
    if (!n.IsScalar() || !parse_int64(n.Scalar(), v))
        throw ScenarioError(loc, path, "expected an integer, got " + node_kind(n));
    if (v < min || v > max)
        throw ScenarioError(loc, path, std::to_string(v) + " is out of range; allowed: " +
                                           std::to_string(min) + ".." + std::to_string(max));
    return v;
}

}  // namespace

MapReader::MapReader(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)), loc_(loc_of(node, file_)) {
    if (!node_.IsMap())
        throw ScenarioError(loc_, path_.empty() ? "scenario" : path_,
                            "expected a mapping, got " + node_kind(node_));
    // YAML parsers keep the first of two equal keys and drop the second without a word;
    // a scenario that says a thing twice is ambiguous, so it fails here.
    std::map<std::string, SourceLoc> seen;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const SourceLoc at = loc_of(it->first, file_);
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
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(n.Scalar().c_str(), &end);
    if (n.Scalar().empty() || *end != '\0' || errno != 0)
        fail(key, "expected a number, got " + node_kind(n));
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
            throw ScenarioError(loc_of(it->first, file_), key_path(key), "unknown key; allowed: " + allowed_keys + note);
    }
}

void MapReader::finish(const std::string& allowed_keys) const {
    for (auto it = node_.begin(); it != node_.end(); ++it) {
        const std::string key = it->first.Scalar();
        if (!consumed_.count(key))
            throw ScenarioError(loc_of(it->first, file_), key_path(key),
                                "unknown key; allowed: " + allowed_keys);
    }
}

int64_t scalar_integer(const YAML::Node& n, const std::string& file, const std::string& path,
                       int64_t min, int64_t max) {
    return checked_integer(n, loc_of(n, file), path, min, max);
}

Expr scalar_expr(const YAML::Node& n, const std::string& file, const std::string& path) {
    SourceLoc loc = loc_of(n, file);
    if (!n.IsScalar()) throw ScenarioError(loc, path, "expected an integer or expression, got " + node_kind(n));
    int64_t v = 0;
    if (parse_int64(n.Scalar(), v)) {
        return Expr::parse(std::to_string(v), loc, path);
    }
    // A quoted scalar starts one column before its text.
    if (n.Tag() == "!") loc.col += 1;
    return Expr::parse(n.Scalar(), loc, path);
}

}  // namespace tmasim
