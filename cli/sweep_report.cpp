#include "cli/sweep_report.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cli/io/atomic_output.h"

namespace tmasim::cli {
namespace {

std::string number_or_dash(int64_t v) { return v < 0 ? "-" : std::to_string(v); }

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

// One table row's cells, in column order; `why` is left for the end of the line.
std::vector<std::string> cells(const SweepPoint& p, const BatchRow& r) {
    std::vector<std::string> c{p.id};
    c.insert(c.end(), p.values.begin(), p.values.end());
    c.insert(c.end(), {r.expected, r.got, r.result, number_or_dash(r.kernel_cycles), number_or_dash(r.kernel_ns),
                       fmt::format("{:.2f}s", r.wall_s)});
    return c;
}

void require_one_row_per_point(const Sweep& sweep, const std::vector<BatchRow>& rows) {
    if (rows.size() != sweep.points.size())
        throw std::logic_error(fmt::format("sweep {}: {} rows for {} points", sweep.name, rows.size(),
                                           sweep.points.size()));
}

}  // namespace

void print_sweep_table(const Sweep& sweep, const std::vector<BatchRow>& rows, std::ostream& out) {
    require_one_row_per_point(sweep, rows);
    std::vector<std::string> header{"point"};
    for (const SweepParam& p : sweep.params) header.push_back(p.name);
    header.insert(header.end(), {"expected", "got", "result", "cycles", "kernel_ns", "wall"});
    std::vector<std::vector<std::string>> table{header};
    for (size_t i = 0; i < rows.size(); ++i) table.push_back(cells(sweep.points[i], rows[i]));
    // Numbers right-aligned (the parameter columns too, when all their values are numbers).
    std::vector<size_t> width(header.size(), 0);
    std::vector<bool> numeric(header.size(), true);
    for (const auto& row : table)
        for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    for (size_t r = 1; r < table.size(); ++r)
        for (size_t c = 0; c < header.size(); ++c)
            numeric[c] = numeric[c] && !table[r][c].empty() &&
                         table[r][c].find_first_not_of("0123456789.-s") == std::string::npos;
    for (size_t r = 0; r < table.size(); ++r) {
        std::string line;
        for (size_t c = 0; c < header.size(); ++c) {
            if (c) line += "  ";
            line += numeric[c] ? fmt::format("{:>{}}", table[r][c], width[c]) : fmt::format("{:<{}}", table[r][c], width[c]);
        }
        const std::string why = r == 0 ? "why" : rows[r - 1].result == "PASS" ? "" : rows[r - 1].why;
        if (!why.empty()) line += "  " + why;
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out << line << '\n';
    }
    out << verdict_counts(rows, "points") << '\n';
}

std::string sweep_csv(const Sweep& sweep, const std::vector<BatchRow>& rows) {
    require_one_row_per_point(sweep, rows);
    std::ostringstream out;
    out << "point";
    for (const SweepParam& p : sweep.params) out << ',' << csv_field(p.name);
    out << ",expected,got,result,kernel_cycles,kernel_ns,why,wall_s\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const BatchRow& r = rows[i];
        out << sweep.points[i].id;
        for (const std::string& v : sweep.points[i].values) out << ',' << csv_field(v);
        out << ',' << csv_field(r.expected) << ',' << csv_field(r.got) << ',' << csv_field(r.result) << ','
            << number_or_dash(r.kernel_cycles) << ',' << number_or_dash(r.kernel_ns) << ','
            << csv_field(r.result == "PASS" ? "" : r.why) << ',' << fmt::format("{:.3f}", r.wall_s) << '\n';
    }
    return out.str();
}

void write_sweep_csv(const Sweep& sweep, const std::vector<BatchRow>& rows, const std::string& path) {
    write_text_output(path, sweep_csv(sweep, rows));
}

}  // namespace tmasim::cli
