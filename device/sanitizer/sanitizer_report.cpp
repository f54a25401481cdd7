#include "device/sanitizer/sanitizer_report.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace tmasim::device {
namespace {

// The tool prefixes every line with `--prefix` (default "========="): drop it and the indent.
std::string strip_prefix(const std::string& line) {
    size_t i = 0;
    while (i < line.size() && line[i] == '=') ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string s = line.substr(i);
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

std::string normalize_severity(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s == "warn" ? "warning" : s;
}

// A number the regex matched as digits; one past int's range reads as -1 (unknown), not a throw.
int to_int(const std::string& digits) {
    if (digits.size() > 9) return -1;
    return std::stoi(digits);
}

std::array<int, 3> triple(const std::smatch& m, size_t first) {
    return {to_int(m[first].str()), to_int(m[first + 1].str()), to_int(m[first + 2].str())};
}

// "kernel+0x2f0 in file.cu:20", "0x2f0 in file.cu:20:kernel(int*)", "kernel+0x2f0".
SanitizerLocation parse_location(const std::string& text) {
    static const std::regex with_file(R"(^(.*?) in (.+?):(\d+)(?::(.*))?$)");
    static const std::regex function_pc(R"(^(.*)\+(0x[0-9a-fA-F]+)$)");
    static const std::regex bare_pc(R"(^(0x[0-9a-fA-F]+)$)");
    SanitizerLocation loc;
    std::string where = text;
    std::smatch m;
    if (std::regex_match(text, m, with_file)) {
        where = m[1].str();
        loc.file = m[2].str();
        loc.line = to_int(m[3].str());
        if (m[4].matched) loc.function = m[4].str();
    }
    if (std::regex_match(where, m, function_pc)) {
        loc.function = m[1].str();
        loc.pc = m[2].str();
    } else if (std::regex_match(where, m, bare_pc)) {
        loc.pc = m[1].str();
    } else if (loc.function.empty()) {
        loc.function = where;
    }
    return loc;
}

const std::string kCoords = R"(\((\d+),\s*(\d+),\s*(\d+)\))";

}  // namespace

std::string to_string(SanitizerFinding::Kind kind) {
    switch (kind) {
        case SanitizerFinding::Kind::hazard: return "hazard";
        case SanitizerFinding::Kind::race: return "race";
        case SanitizerFinding::Kind::barrier: return "barrier";
        case SanitizerFinding::Kind::access: return "access";
        case SanitizerFinding::Kind::uninitialized: return "uninitialized";
        case SanitizerFinding::Kind::other: return "other";
    }
    return "other";
}

SanitizerReport parse_sanitizer_report(const std::string& text) {
    using Kind = SanitizerFinding::Kind;
    static const std::regex hazard_head(R"(^(\w+):\s*(?:\([^)]*\)\s*)?Potential (RAW|WAR|WAW) hazard detected at (\S+ 0x[0-9a-fA-F]+) in block )" +
                                        kCoords + R"(\s*:?$)");
    // A cluster launch adds the CTA's rank: "Read Thread (0,0,0) (block rank 1) at ...".
    static const std::regex hazard_access(R"(^(Read|Write) Thread )" + kCoords +
                                          R"((?: \(block rank (\d{1,9})\))? at (.*)$)");
    static const std::regex race_head(R"(^(\w+):\s*(?:\([^)]*\)\s*)?Race reported between (Read|Write) access at (.*)$)");
    static const std::regex race_more(R"(^and (Read|Write) access at (.*?)(?: \[(\d+) hazards?\])?$)");
    static const std::regex barrier_head(R"(^(Barrier error detected|Warpgroup MMA sequence error detected).*$)");
    static const std::regex access_head(R"(^(?:Potential )?[Ii]nvalid (__\w+__) (read|write).*$)");
    static const std::regex uninit_head(R"(^Uninitialized (__\w+__) memory read.*$)");
    static const std::regex at_line(R"(^at (.*)$)");
    static const std::regex by_thread(R"(^by thread )" + kCoords + R"( in block )" + kCoords + R"(.*$)");
    static const std::regex address_line(R"(^Address (0x[0-9a-fA-F]+).*$)");
    static const std::regex device_frame(R"(^Device Frame:\s*(.*)$)");
    static const std::regex race_summary(R"(^RACECHECK SUMMARY: (\d+) hazards? displayed.*$)");
    static const std::regex error_summary(R"(^ERROR SUMMARY: (\d+) errors?.*$)");

    SanitizerReport report;
    SanitizerFinding* open = nullptr;  // the finding later lines add to
    std::istringstream in(text);
    for (std::string raw; std::getline(in, raw);) {
        const std::string line = strip_prefix(raw);
        // A racecheck report holds a record per byte: test a word before running a regex.
        auto has = [&](const char* word) { return line.find(word) != std::string::npos; };
        std::smatch m;
        if (line.empty()) {
            open = nullptr;
        } else if (has("hazard detected") && std::regex_match(line, m, hazard_head)) {
            SanitizerFinding f;
            f.kind = Kind::hazard;
            f.severity = normalize_severity(m[1].str());
            f.hazard = m[2].str();
            f.address = m[3].str();
            f.block = triple(m, 4);
            f.headline = line;
            report.findings.push_back(f);
            open = &report.findings.back();
        } else if (has("Race reported") && std::regex_match(line, m, race_head)) {
            SanitizerFinding f;
            f.kind = Kind::race;
            f.severity = normalize_severity(m[1].str());
            f.headline = line;
            SanitizerAccess a;
            a.type = m[2].str();
            a.at = parse_location(m[3].str());
            f.accesses.push_back(a);
            report.findings.push_back(f);
            open = &report.findings.back();
        } else if ((has("error detected") && std::regex_match(line, m, barrier_head)) ||
                   (has("nvalid __") && std::regex_match(line, m, access_head)) ||
                   (has("Uninitialized __") && std::regex_match(line, m, uninit_head))) {
            SanitizerFinding f;
            f.kind = line.rfind("Uninitialized", 0) == 0 ? Kind::uninitialized
                     : line.find("error detected") != std::string::npos ? Kind::barrier
                                                                         : Kind::access;
            if (f.kind == Kind::access) f.address = m[1].str();
            f.headline = line;
            report.findings.push_back(f);
            open = &report.findings.back();
        } else if (has("SUMMARY: ") &&
                   (std::regex_match(line, m, race_summary) || std::regex_match(line, m, error_summary))) {
            report.has_summary = true;
            report.summary_count = m[1].length() < 18 ? std::stoll(m[1].str()) : -1;
            open = nullptr;
        } else if (open == nullptr) {
            continue;  // the program's own output, host frames
        } else if (has(" Thread (") && std::regex_match(line, m, hazard_access)) {
            SanitizerAccess a;
            a.type = m[1].str();
            a.thread = triple(m, 2);
            if (m[5].matched) a.block_rank = std::stoi(m[5].str());
            a.at = parse_location(m[6].str());
            open->accesses.push_back(a);
        } else if (line.rfind("and ", 0) == 0 && std::regex_match(line, m, race_more)) {
            SanitizerAccess a;
            a.type = m[1].str();
            a.at = parse_location(m[2].str());
            if (m[3].matched && m[3].length() < 18) a.hazards = std::stoll(m[3].str());
            open->accesses.push_back(a);
        } else if (line.rfind("at ", 0) == 0 && std::regex_match(line, m, at_line)) {
            SanitizerAccess a;
            a.type = open->headline.find(" write") != std::string::npos ? "Write" : "Read";
            a.at = parse_location(m[1].str());
            open->accesses.push_back(a);
        } else if (line.rfind("by thread", 0) == 0 && std::regex_match(line, m, by_thread)) {
            if (!open->accesses.empty()) open->accesses.back().thread = triple(m, 1);
            open->block = triple(m, 4);
        } else if (line.rfind("Address ", 0) == 0 && std::regex_match(line, m, address_line)) {
            if (open->address.empty()) open->address = m[1].str();
            else open->address += " " + m[1].str();
        } else if (line.rfind("Device Frame:", 0) == 0 && std::regex_match(line, m, device_frame)) {
            open->frames.push_back(parse_location(m[1].str()));
        }
    }
    return report;
}

}  // namespace tmasim::device
