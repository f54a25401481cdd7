// diff, export and report keep their memory bounded by the events' fixed part, not by the
// trace's size (issue 40): a 565 MB trace of large detail maps took 2.2-2.7 GiB in each. The
// reader leaves out what a command does not read (traces/trace_reader.h, TraceReadOptions),
// export reads a large map again from its line as it writes the event
// (traces/event_details.h), the export's links and the report's timeline are written as they
// are made. A 249 MB trace of 100-key details: before, diff 1.47 GB, export 1.22 GB, report
// 0.83 GB peak RSS; after, 80, 86 and 91 MB, against a bound of half the trace (121 MB).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.h"

namespace test_cli_trace_memory {
namespace {

namespace fs = std::filesystem;

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

struct Peak {
    int code = -1;
    long max_rss_kb = 0;
};

// Runs tmasim with `args` from the repository root, output to /dev/null, and returns its exit
// code and its own peak resident set (wait4's rusage: this child's, not the test's others).
Peak run_measured(const std::vector<std::string>& args) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (chdir(TMASIM_SOURCE_DIR) != 0) _exit(126);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        std::vector<char*> argv{const_cast<char*>(TMASIM_BINARY)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(TMASIM_BINARY, argv.data());
        _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    REQUIRE(wait4(pid, &status, 0, &usage) == pid);
    Peak p;
    p.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    p.max_rss_kb = usage.ru_maxrss;
    return p;
}

// A version 4 trace of `pairs` tma.load issue/complete_tx pairs, each event's detail 100
// keys of 40 characters (about 5 KB a line), in the writer's own form (the fast path reads
// it). It names no scenario file.
uint64_t write_large_detail_trace(const std::string& path, int pairs) {
    std::ofstream out(path, std::ios::binary);
    out << R"({"type":"header","format":"tmasim-trace","version":4,"backend":"model","tool_version":"test",)"
           R"("scenario":"large_details","scenario_file":"","scenario_hash":"","gpu":"","sm_clock_mhz":1755,)"
           R"("driver":"","cuda":"","model_config":"","model_config_hash":"","seed":0,"extra":{}})"
        << '\n';
    std::string line;
    for (int i = 0; i < pairs; ++i) {
        char stamp[16];
        std::snprintf(stamp, sizeof stamp, "%08d", i);
        std::string detail;
        for (int k = 0; k < 100; ++k) {
            char key[8];
            std::snprintf(key, sizeof key, "k%03d", k);
            detail += std::string(",\"") + key + "\":\"";
            for (int r = 0; r < 5; ++r) detail += stamp;
            detail += '"';
        }
        const std::string iters = "[" + std::to_string(i / 65536) + "," + std::to_string(i % 65536) + "]";
        const std::string head = R"({"type":"event","op":3,"name":"tma.load","iters":)" + iters +
                                 R"(,"cta":0,"warp":0,"lane":0,"kind":)";
        line = head + R"("issue","t":)" + std::to_string(3 * i) + R"(,"detail":{"barrier":"full","bytes":"4096")" +
               detail + "}}\n";
        line += head + R"("complete","t":)" + std::to_string(3 * i + 1) +
                R"(,"model_only":true,"what":"complete_tx","detail":{"barrier":"full","bytes":"4096")" + detail +
                R"(,"tx_count":"0"}})" + "\n";
        out << line;
    }
    out << R"({"type":"outcome","outcome":"ok"})" << '\n';
    out.close();
    return fs::file_size(path);
}

// How often `text` occurs in the file at `path`, read 1 MB at a time.
size_t occurrences(const std::string& path, const std::string& text) {
    std::ifstream in(path, std::ios::binary);
    std::string carry, block(size_t(1) << 20, '\0');
    size_t count = 0;
    while (in.read(&block[0], static_cast<std::streamsize>(block.size())) || in.gcount() > 0) {
        const std::string window = carry + block.substr(0, static_cast<size_t>(in.gcount()));
        for (size_t at = window.find(text); at != std::string::npos; at = window.find(text, at + 1)) ++count;
        carry = window.size() >= text.size() ? window.substr(window.size() - text.size() + 1) : window;
    }
    return count;
}

}  // namespace

TEST_CASE("diff export and report of a 250 MB trace of large details peak under half its size", "[cli][memory]") {
    if (kSanitized) {
        SUCCEED("peak RSS means nothing under AddressSanitizer (shadow memory, quarantine)");
        return;
    }
    const std::string trace = tmasim_test::scratch("large_details.jsonl");
    const uint64_t size = write_large_detail_trace(trace, 24000);
    REQUIRE(size > 240'000'000);
    // The binary alone is about 50 MB resident; each command adds a sixth of the trace (events,
    // links, what it writes). Before: 3.3 to 5.9 times the trace.
    const long bound_kb = static_cast<long>(size / 1024 / 2);
    const std::string json = tmasim_test::scratch("large_details.json");
    const std::string html = tmasim_test::scratch("large_details.html");
    struct Case {
        const char* what;
        std::vector<std::string> args;
    };
    for (const Case& c : {Case{"diff", {"diff", trace, trace}}, Case{"export", {"export", trace, "-o", json}},
                          Case{"report", {"report", trace, "-o", html}}}) {
        INFO(c.what);
        const Peak p = run_measured(c.args);
        CHECK(p.code == 0);
        INFO("peak RSS " << p.max_rss_kb << " KB; bound " << bound_kb << " KB; trace " << size / 1024 << " KB");
        CHECK(p.max_rss_kb < bound_kb);
    }
    // The export wrote every event's whole detail, read again from the trace: the last
    // pair's value, in its issue's and its complete_tx's instants and its barrier marker.
    CHECK(occurrences(json, R"("k099":"0002399900023999000239990002399900023999")") == 3);
    CHECK(occurrences(json, R"("k000":"0000000000000000000000000000000000000000")") == 3);
    fs::remove(trace);
    fs::remove(json);
    fs::remove(html);
}

}  // namespace test_cli_trace_memory
