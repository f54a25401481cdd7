#include "device/sanitizer/sanitizer_ops.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace tmasim::device {

const char* const kKernelSourceName = "tmasim_scenario.cu";
const char* const kKernelFileName = "tmasim_kernel.cu";

namespace {

const char* const kWrapperFilePrefix = "tmasim_wrapper_";
const char* const kOpFilePrefix = "tmasim_op_";

// A function the tool names that is an op's own copy of a device function
// ("ld_volatile_shared_b32__op8(unsigned int)+0xee0", mangled or not) -> 8; -1 otherwise.
// The copy's name is what identifies the op: the tool gave copies with the same body the
// file name of another op's copy (an H200, compute-sanitizer 2025.3).
int op_of_function(const std::string& function) {
    static const std::regex copy(R"(__op(\d{1,9})(?!\d))");
    std::smatch m;
    return std::regex_search(function, m, copy) ? std::stoi(m[1].str()) : -1;
}

// "tmasim_op_7.cu" -> 7; -1 for any other file.
int op_of_file(const std::string& file) {
    static const std::regex op_file(R"(^tmasim_op_(\d{1,9})\.cu$)");
    std::smatch m;
    const std::string name = file.substr(file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/') + 1);
    return std::regex_match(name, m, op_file) ? std::stoi(m[1].str()) : -1;
}

bool is_kernel_start(const std::string& line) { return line.rfind("extern \"C\" __global__", 0) == 0; }

// "__device__ __forceinline__ void st_volatile_shared_b32(unsigned addr, ..." -> its name.
std::string defined_function(const std::string& line) {
    static const std::regex definition(R"(^\s*__device__\s.*?\b([A-Za-z_]\w*)\s*\(.*$)");
    std::smatch m;
    return std::regex_match(line, m, definition) ? m[1].str() : "";
}

// The names a line calls: identifiers followed by '('.
std::set<std::string> called_names(const std::string& line) {
    static const std::regex call(R"(\b([A-Za-z_]\w*)\s*\()");
    std::set<std::string> names;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), call); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1].str());
    return names;
}

std::string base_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string coords(const std::array<int, 3>& c) {
    if (c[0] < 0) return "?";
    return fmt::format("({},{},{})", c[0], c[1], c[2]);
}

std::string describe_op(const Scenario& s, int id) {
    if (id < 0) return "an unmapped line";
    const Op* op = s.find_op(id);
    if (!op) return "#" + std::to_string(id);
    std::string text = "#" + std::to_string(id) + " " + to_string(op->kind);
    return op->label.empty() ? text : text + " (" + op->label + ")";
}

std::string rule_suffix(const SanitizerFinding& f) {
    if (f.kind == SanitizerFinding::Kind::hazard) {
        std::string h = f.hazard;
        std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
        return h;
    }
    return to_string(f.kind);
}

// A thread as the trace names it: warp and lane of a 1-D block.
std::string thread_text(const std::array<int, 3>& t) {
    if (t[0] < 0) return "";
    return fmt::format("thread {} (warp {} lane {})", coords(t), t[0] / 32, t[0] % 32);
}

// Every op named is one the same single thread executes (`by: thread N`, one N).
bool one_thread_runs_all(const Scenario& s, const std::vector<int>& ops) {
    int thread = -1;
    for (int id : ops) {
        const Op* op = id < 0 ? nullptr : s.find_op(id);
        if (!op || op->by.kind != Selector::Kind::thread) return false;
        if (thread >= 0 && op->by.n != thread) return false;
        thread = op->by.n;
    }
    return thread >= 0;
}

// A kernel's: every candidate op of every access is one that the model saw a single thread
// run, the same one (RunResult::single_thread_ops); an access with no candidate is not.
bool one_thread_runs_all(const std::map<int, int>& single_thread_ops, const std::vector<std::vector<int>>& candidates) {
    int thread = -1;
    for (const std::vector<int>& ops : candidates) {
        if (ops.empty()) return false;
        for (int id : ops) {
            const auto it = single_thread_ops.find(id);
            if (it == single_thread_ops.end() || (thread >= 0 && it->second != thread)) return false;
            thread = it->second;
        }
    }
    return thread >= 0;
}

struct Group {
    const SanitizerFinding* first = nullptr;
    std::vector<int> ops;                // -1: none, or several candidates
    std::vector<std::vector<int>> candidates;  // per access, every op it may be
    std::vector<std::string> op_texts;   // "2", "3|5", "?"
    std::set<std::string> blocks, lines;
    long long records = 0, hazards = 0;
};

}  // namespace

namespace {

// The top-level device functions above the kernel: name -> their text (a `template <...>`
// line included), every overload of a name together.
std::map<std::string, std::string> top_level_functions(const std::vector<std::string>& lines, size_t kernel) {
    std::map<std::string, std::string> found;
    for (size_t i = 0; i < kernel; ++i) {
        if (lines[i].rfind("__device__", 0) != 0) continue;
        const std::string name = defined_function(lines[i]);
        if (name.empty()) continue;
        std::string text = i > 0 && lines[i - 1].rfind("template", 0) == 0 ? lines[i - 1] + '\n' : "";
        size_t j = i;
        for (; j < kernel; ++j) {
            text += lines[j] + '\n';
            if (lines[j] == "}") break;
        }
        found[name] += text;
        i = j;
    }
    return found;
}

// `name(` -> `clone(` for every whole-word call of `name` in `line`.
std::string rename_calls(const std::string& line, const std::string& name, const std::string& clone) {
    const std::regex call("\\b" + name + "\\s*\\(");
    return std::regex_replace(line, call, clone + "(");
}

}  // namespace

std::string with_line_directives(const std::string& source) {
    static const std::regex op_comment(R"(^\s*// op (\d+): .*$)");
    std::vector<std::string> lines;
    std::istringstream in(source);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    size_t kernel = 0;
    while (kernel < lines.size() && !is_kernel_start(lines[kernel])) ++kernel;
    const std::map<std::string, std::string> functions = top_level_functions(lines, kernel);

    // The kernel, each op's code its own file. An op's calls go to its own copies of the
    // device functions it calls, which sit in the op's file too: racecheck names only the
    // innermost line of an access (no device frames), and a copy's line names the op.
    std::string body;
    std::map<std::string, std::string> clones;  // clone name -> its text
    int op = -1;
    for (size_t i = kernel; i < lines.size(); ++i) {
        std::string line = lines[i];
        const int kernel_line = static_cast<int>(i - kernel) + 1;
        if (i == kernel) {
            body += fmt::format("#line 1 \"{}\"\n", kKernelFileName);
        } else if (std::smatch m; std::regex_match(line, m, op_comment)) {
            op = std::stoi(m[1].str());
            body += fmt::format("#line 1 \"{}{}.cu\"\n", kOpFilePrefix, op);
        } else if (line.find("// Every op done") != std::string::npos) {
            op = -1;
            body += fmt::format("#line {} \"{}\"\n", kernel_line, kKernelFileName);
        }
        if (op >= 0)
            for (const std::string& callee : called_names(line)) {
                auto f = functions.find(callee);
                if (f == functions.end()) continue;
                const std::string clone = fmt::format("{}__op{}", callee, op);
                line = rename_calls(line, callee, clone);
                if (!clones.count(clone))
                    clones[clone] = fmt::format("#line 1 \"{}{}.cu\"\n", kOpFilePrefix, op) +
                                    rename_calls(f->second, callee, clone);
            }
        body += line + '\n';
    }

    std::string out;
    for (size_t i = 0; i < kernel; ++i) {
        // A directive may stand between `template <...>` and the definition it heads.
        if (const std::string name = defined_function(lines[i]); !name.empty())
            out += fmt::format("#line 1 \"{}{}.cu\"\n", kWrapperFilePrefix, name);
        out += lines[i] + '\n';
    }
    for (const auto& [name, text] : clones) out += text;
    return out + body;
}

KernelLineMap::KernelLineMap(const std::string& source) {
    static const std::regex op_comment(R"(^\s*// op (\d+): .*$)");
    std::istringstream in(source);
    bool in_kernel = false;
    int current = -1;
    std::string wrapper;
    std::map<std::string, std::set<std::string>> wrapper_calls;
    std::map<int, std::set<std::string>> op_calls;
    for (std::string line; std::getline(in, line);) {
        in_kernel = in_kernel || is_kernel_start(line);
        if (!in_kernel) {
            if (const std::string name = defined_function(line); !name.empty()) {
                wrapper = name;
                wrappers_.insert(name);
            }
            if (!wrapper.empty())
                for (const std::string& callee : called_names(line))
                    if (callee != wrapper) wrapper_calls[wrapper].insert(callee);
            continue;
        }
        std::smatch m;
        if (std::regex_match(line, m, op_comment))
            current = std::stoi(m[1].str());
        else if (line.find("// Every op done") != std::string::npos)
            current = -1;
        op_of_line_.push_back(current);
        if (current >= 0)
            for (const std::string& callee : called_names(line)) op_calls[current].insert(callee);
    }
    // Each op reaches the wrappers it calls and the ones they call.
    for (auto& [op, names] : op_calls) {
        std::vector<std::string> work(names.begin(), names.end());
        while (!work.empty()) {
            const std::string name = work.back();
            work.pop_back();
            ops_calling_[name].insert(op);
            auto it = wrapper_calls.find(name);
            if (it == wrapper_calls.end()) continue;
            for (const std::string& callee : it->second)
                if (names.insert(callee).second) work.push_back(callee);
        }
    }
}

KernelLineMap KernelLineMap::for_kernel(const ptx::BoundKernel& k) {
    KernelLineMap map;
    map.kernel_scenario_ = true;
    ptx::for_each_unit_instruction(k, [&](const ptx::Function& f, const ptx::Instruction& ins, OpKind, int op) {
        if (ins.loc < 0 || static_cast<size_t>(ins.loc) >= f.locs.size()) return;
        for (const ptx::LocPoint& p : f.locs[static_cast<size_t>(ins.loc)].chain) {
            auto file = k.module.files.find(p.file);
            if (file != k.module.files.end() && p.line > 0) map.ops_at_source_[{base_name(file->second), p.line}].insert(op);
        }
    });
    return map;
}

std::vector<int> KernelLineMap::kernel_ops_at(const SanitizerLocation& at) const {
    if (at.line <= 0) return {};
    auto it = ops_at_source_.find({base_name(at.file), at.line});
    return it == ops_at_source_.end() ? std::vector<int>{} : std::vector<int>(it->second.begin(), it->second.end());
}

int KernelLineMap::op_at(int line) const {
    if (line < 1 || static_cast<size_t>(line) > op_of_line_.size()) return -1;
    return op_of_line_[static_cast<size_t>(line - 1)];
}

std::vector<int> KernelLineMap::ops_of(const SanitizerLocation& at, const std::vector<SanitizerLocation>& frames) const {
    if (kernel_scenario_) {
        // The innermost location names an inlined helper's line when the access sits in one;
        // a caller's frame, where the tool prints one, narrows it to that caller's ops.
        std::vector<int> ops = kernel_ops_at(at);
        for (const SanitizerLocation& f : frames) {
            if (ops.size() == 1) break;
            const std::vector<int> caller = kernel_ops_at(f);
            if (ops.empty()) {
                ops = caller;
                continue;
            }
            std::vector<int> both;
            std::set_intersection(ops.begin(), ops.end(), caller.begin(), caller.end(), std::back_inserter(both));
            if (!both.empty()) ops = both;
        }
        return ops;
    }
    auto in_kernel = [&](const SanitizerLocation& loc) {
        if (const int op = op_of_function(loc.function); op >= 0) return op;
        if (const int op = op_of_file(loc.file); op >= 0) return op;
        if (loc.line <= 0 || base_name(loc.file) != kKernelFileName) return -1;
        return op_at(loc.line);
    };
    if (const int op = in_kernel(at); op >= 0) return {op};
    for (const SanitizerLocation& f : frames)
        if (const int op = in_kernel(f); op >= 0) return {op};
    auto it = ops_calling_.find(wrapper_named(at));
    if (it == ops_calling_.end()) return {};
    return std::vector<int>(it->second.begin(), it->second.end());
}

// A wrapper: by its file, else by the function the tool names ("name+0x1f0", "name(int)").
std::string KernelLineMap::wrapper_named(const SanitizerLocation& at) const {
    std::string name = base_name(at.file);
    if (name.rfind(kWrapperFilePrefix, 0) == 0 && name.size() > 3) {
        name = name.substr(std::string(kWrapperFilePrefix).size());
        return name.substr(0, name.size() - 3);  // ".cu"
    }
    name = at.function.substr(0, at.function.find_first_of("(<+"));
    if (const size_t space = name.rfind(' '); space != std::string::npos) name = name.substr(space + 1);
    return name;
}

bool KernelLineMap::in_executor_code(const SanitizerLocation& at) const {
    if (kernel_scenario_) return false;
    if (op_of_function(at.function) >= 0 || op_of_file(at.file) >= 0) return false;
    if (at.line > 0 && base_name(at.file) == kKernelFileName) return op_at(at.line) < 0;
    const std::string name = wrapper_named(at);
    return wrappers_.count(name) > 0 && ops_calling_.count(name) == 0;
}

int KernelLineMap::op_of(const SanitizerLocation& at, const std::vector<SanitizerLocation>& frames) const {
    const std::vector<int> ops = ops_of(at, frames);
    return ops.size() == 1 ? ops.front() : -1;
}

std::vector<Diagnostic> sanitizer_diagnostics(const SanitizerReport& report, const std::string& tool,
                                              const KernelLineMap& lines, const Scenario& s,
                                              const std::map<int, int>* single_thread_ops) {
    // Racecheck writes one record per byte: merge the records of one access pair.
    std::map<std::string, Group> groups;
    std::vector<std::string> order;
    for (const SanitizerFinding& f : report.findings) {
        std::vector<int> ops;
        std::vector<std::vector<int>> all_candidates;
        std::vector<std::string> op_texts;
        std::string key = to_string(f.kind) + "/" + f.hazard;
        for (const SanitizerAccess& a : f.accesses) {
            const std::vector<int> candidates = lines.ops_of(a.at, f.frames);
            std::string text;
            for (int op : candidates) text += (text.empty() ? "" : "|") + std::to_string(op);
            ops.push_back(candidates.size() == 1 ? candidates.front() : -1);
            all_candidates.push_back(candidates);
            op_texts.push_back(text.empty() ? "?" : text);
            key += fmt::format("/{}:{}", a.type, op_texts.back());
        }
        auto [it, fresh] = groups.emplace(key, Group{});
        Group& g = it->second;
        if (fresh) {
            g.first = &f;
            g.ops = ops;
            g.candidates = std::move(all_candidates);
            g.op_texts = op_texts;
            order.push_back(key);
        }
        ++g.records;
        if (f.block[0] >= 0) g.blocks.insert(coords(f.block));
        for (const SanitizerAccess& a : f.accesses) {
            g.hazards += a.hazards;
            if (a.at.line > 0) g.lines.insert(fmt::format("{}:{}", base_name(a.at.file), a.at.line));
        }
    }

    std::vector<Diagnostic> out;
    for (const std::string& key : order) {
        const Group& g = groups.at(key);
        const SanitizerFinding& f = *g.first;
        Diagnostic d;
        d.outcome = tool == "memcheck" && f.kind == SanitizerFinding::Kind::access ? Outcome::fault : Outcome::hazard;
        d.rule = "sanitizer." + tool + "." + rule_suffix(f);
        d.op = g.ops.empty() ? -1 : g.ops.back();
        d.cta = std::max(0, f.block[0]);
        std::string what;
        for (size_t i = 0; i < f.accesses.size(); ++i) {
            const SanitizerAccess& a = f.accesses[i];
            std::string who = thread_text(a.thread);
            const std::string where = g.ops[i] >= 0 || g.op_texts[i] == "?" ? describe_op(s, g.ops[i])
                                                                              : "one of ops " + g.op_texts[i];
            what += fmt::format("{}{} at {}{}", i == 0 ? "" : (f.kind == SanitizerFinding::Kind::hazard ? ", then " : " and "),
                                a.type, where, who.empty() ? "" : " by " + who);
        }
        std::string headline = f.kind == SanitizerFinding::Kind::hazard ? f.hazard + " hazard" : f.headline;
        if (f.kind == SanitizerFinding::Kind::race) headline = "race";
        d.message = fmt::format("{}: {}{}{}{} ({} record{})", tool, headline,
                                f.address.empty() ? "" : " on " + f.address, what.empty() ? "" : ": ", what,
                                g.records, g.records == 1 ? "" : "s");
        std::string ops, threads, blocks, found_lines;
        for (size_t i = 0; i < f.accesses.size(); ++i) {
            ops += (i ? "," : "") + g.op_texts[i];
            if (f.accesses[i].thread[0] >= 0) threads += (threads.empty() ? "" : " ") + coords(f.accesses[i].thread);
        }
        for (const std::string& b : g.blocks) blocks += (blocks.empty() ? "" : " ") + b;
        for (const std::string& l : g.lines) found_lines += (found_lines.empty() ? "" : " ") + l;
        d.detail = {{"tool", tool}, {"kind", to_string(f.kind)}, {"ops", ops}, {"records", std::to_string(g.records)}};
        if (!f.hazard.empty()) d.detail["hazard"] = f.hazard;
        if (!threads.empty()) d.detail["threads"] = threads;
        if (!blocks.empty()) d.detail["blocks"] = blocks;
        if (g.hazards > 0) d.detail["hazards"] = std::to_string(g.hazards);
        if (!found_lines.empty()) d.detail["lines"] = found_lines;
        if (!f.address.empty()) d.detail["address"] = f.address;
        if (!f.severity.empty()) d.detail["severity"] = f.severity;
        const bool executor = !f.accesses.empty() && std::all_of(f.accesses.begin(), f.accesses.end(),
                                                                   [&](const SanitizerAccess& a) {
                                                                       return lines.in_executor_code(a.at);
                                                                   });
        if (executor) {
            d.detail["executor_code"] = "1";
            d.message = "in the executor's own code, not a scenario op: " + d.message;
        } else if (f.kind == SanitizerFinding::Kind::access && s.launch.cluster_size() > 1) {
            // Measured on an H200 (traces/recorded/NVIDIA-H200/sanitizer/racecheck.txt):
            // racecheck calls plain shared.store writes of a cluster launch "potential invalid
            // __shared__" writes, at the CTA's own addresses and at its DSMEM window alike,
            // though the bytes are right: it does not follow cluster shared memory.
            d.detail["outside_tool"] = "1";
            d.message = "not compared (racecheck does not follow cluster shared memory): " + d.message;
        } else if (tool == "racecheck" && (single_thread_ops ? one_thread_runs_all(*single_thread_ops, g.candidates)
                                                             : one_thread_runs_all(s, g.ops))) {
            // Measured on an H200 (teach/13b_inval_reinit): racecheck reported a "race" between
            // mbarrier.init and mbarrier.arrive of one thread, which no second thread touches.
            // Racecheck only: synccheck's errors are one thread's (teach/12's second arrive of
            // thread 0, which the H100's run of 7afbf29 then left uncompared). A kernel's
            // mbarrier.init and arrive.expect_tx of thread 0 in a cluster launch too (the H200,
            // kernels/tma_multicast, 2026-12-02): which threads ran an op, the model's run says.
            d.detail["outside_tool"] = "1";
            d.message = "not compared (every op it names runs on one thread; no two threads race): " + d.message;
        }
        out.push_back(d);
    }
    return out;
}

}  // namespace tmasim::device
