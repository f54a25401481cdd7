#pragma once
// Typed, located access to YAML nodes for the loader. Every failure is a ScenarioError
// that names the file:line:col, the key path ("program[3].coords") and what is allowed.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "scenarios/expr.h"
#include "scenarios/source_loc.h"

namespace tmasim {

// Bounds on what one mapping may hold; scenarios use a few keys and short strings.
constexpr size_t kMaxMapKeys = 256;
constexpr size_t kMaxStringBytes = 16384;
constexpr size_t kMaxNameLength = 256;  // names of tensors, buffers, maps, loop variables

// Text read during one load, counted at every use of a YAML alias: an op with 1000-character
// expressions repeated 10000 times through aliases would otherwise parse gigabytes of trees.
// The loader holds one for each load; reads with none alive are not counted.
class ReadBudget {
public:
    explicit ReadBudget(size_t limit);
    ~ReadBudget();
    ReadBudget(const ReadBudget&) = delete;
    ReadBudget& operator=(const ReadBudget&) = delete;
    // Throws ScenarioError at `loc`, naming `key`, once the load has read more than the limit.
    static void charge(size_t bytes, const SourceLoc& loc, const std::string& key);

private:
    size_t limit_;
    size_t used_ = 0;
    ReadBudget* outer_;
};
constexpr size_t kMaxTextRead = size_t(256) << 10;

SourceLoc loc_of(const YAML::Node& node, const std::string& file);

// A YAML mapping being read; finish() rejects every key that was not consumed.
class MapReader {
public:
    MapReader(const YAML::Node& node, std::string file, std::string path);
    // A mapping made in place of an empty value (`A:` with nothing after it) has no position in
    // the file: its errors point at `at`, the key it stands for, not at 0:0.
    MapReader(const YAML::Node& node, std::string file, std::string path, const SourceLoc& at);

    bool has(const std::string& key) const;
    YAML::Node node(const std::string& key);          // required
    YAML::Node optional(const std::string& key);      // null node when absent
    std::string key_path(const std::string& key) const;
    SourceLoc loc() const { return loc_; }
    SourceLoc loc(const std::string& key) const;      // location of the value of key
    const std::string& file() const { return file_; }

    std::string string(const std::string& key);
    std::string string_or(const std::string& key, const std::string& fallback);
    int64_t integer(const std::string& key, int64_t min, int64_t max);
    int64_t integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max);
    double number(const std::string& key);
    bool boolean_or(const std::string& key, bool fallback);
    std::vector<int64_t> int_list(const std::string& key, size_t min_len, size_t max_len,
                                  int64_t min, int64_t max);
    Expr expr(const std::string& key);                // required: integer or expression string
    Expr expr_or_empty(const std::string& key);       // empty Expr when absent

    // Throws for the first key not in `allowed_keys` (comma-separated). Called before the
    // reads, so a misspelled key is reported as unknown rather than as a missing one.
    void only_keys(const std::string& allowed_keys, const std::string& note = "") const;
    // Throws for the first key not consumed, listing `allowed`.
    void finish(const std::string& allowed_keys) const;

    [[noreturn]] void fail(const std::string& key, const std::string& message) const;

private:
    YAML::Node node_;
    std::string file_;
    std::string path_;
    SourceLoc loc_;
    std::set<std::string> consumed_;
};

// Scalars outside a map (list entries).
int64_t scalar_integer(const YAML::Node& n, const std::string& file, const std::string& path,
                       int64_t min, int64_t max);
Expr scalar_expr(const YAML::Node& n, const std::string& file, const std::string& path);
std::string node_kind(const YAML::Node& n);  // "a mapping", "a list", "a scalar", "null"

}  // namespace tmasim
