#include "cli/batch_parallel.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "scenarios/loader.h"
#include "scenarios/work_estimate.h"

namespace tmasim::cli {
namespace {

using Json = nlohmann::json;

Json row_to_json(const BatchRow& r) {
    return Json{{"rel", r.rel},         {"expected", r.expected},
                {"got", r.got},         {"verdict", static_cast<int>(r.verdict)},
                {"result", r.result},   {"why", r.why},
                {"wall_s", r.wall_s},   {"diffed", r.diffed},
                {"memory", r.memory},   {"timing_median", r.timing_median},
                {"timing_p90", r.timing_p90}, {"timing_paired", r.timing_paired},
                {"kernel_cycles", r.kernel_cycles}, {"kernel_ns", r.kernel_ns}};
}

BatchRow row_from_json(const Json& j) {
    BatchRow r;
    r.rel = j.at("rel");
    r.expected = j.at("expected");
    r.got = j.at("got");
    r.verdict = static_cast<BatchRow::Verdict>(j.at("verdict").get<int>());
    r.result = j.at("result");
    r.why = j.at("why");
    r.wall_s = j.at("wall_s");
    r.diffed = j.at("diffed");
    r.memory = j.at("memory");
    r.timing_median = j.at("timing_median");
    r.timing_p90 = j.at("timing_p90");
    r.timing_paired = j.at("timing_paired");
    r.kernel_cycles = j.at("kernel_cycles");
    r.kernel_ns = j.at("kernel_ns");
    return r;
}

// What a child that died before reporting (a crash in the model) leaves in its row.
BatchRow lost_row(const BatchInput& input, const std::string& why) {
    BatchRow r;
    r.rel = input.rel;
    r.result = "error";
    r.why = why;
    return r;
}

// One worker process: it reads scenario indices (4 bytes each) from `to_worker` and
// answers each with its row as one line of JSON on `from_worker`, until the parent closes
// `to_worker`. Workers live for the whole batch: a fork per scenario cost more than most
// catalog scenarios take to run.
struct Worker {
    pid_t pid = -1;
    int to_worker = -1;
    int from_worker = -1;
    long index = -1;   // the scenario it runs now; -1: idle
    std::string text;  // its answer so far
};

bool write_all(int fd, const char* data, size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

[[noreturn]] void worker_loop(int in, int out, const std::vector<BatchInput>& inputs, const BatchOptions& options) {
    uint32_t index = 0;
    for (;;) {
        size_t got = 0;
        while (got < sizeof index) {
            const ssize_t n = ::read(in, reinterpret_cast<char*>(&index) + got, sizeof index - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) ::_exit(0);  // the parent has no more work
            got += static_cast<size_t>(n);
        }
        const std::string line = row_to_text(run_one(inputs.at(index), options)) + "\n";
        if (!write_all(out, line.data(), line.size())) ::_exit(3);
    }
}

Worker start_worker(const std::vector<BatchInput>& inputs, const BatchOptions& options,
                    const std::vector<Worker>& others, size_t slot) {
    int down[2], up[2];
    if (::pipe(down) != 0 || ::pipe(up) != 0) throw std::runtime_error(std::string("-j: pipe: ") + std::strerror(errno));
    // A child inherits unflushed output; flushing first keeps it from printing twice.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("-j: fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::close(down[1]);
        ::close(up[0]);
        // The other workers' pipe ends: held open here, they would never see their EOF.
        for (const Worker& w : others) {
            ::close(w.to_worker);
            ::close(w.from_worker);
        }
        // A device batch: worker `slot` owns one GPU, its runs (and their children) see only it.
        if (!options.worker_gpus.empty())
            ::setenv("CUDA_VISIBLE_DEVICES", options.worker_gpus[slot % options.worker_gpus.size()].c_str(), 1);
        worker_loop(down[0], up[1], inputs, options);
    }
    ::close(down[0]);
    ::close(up[1]);
    Worker w;
    w.pid = pid;
    w.to_worker = down[1];
    w.from_worker = up[0];
    return w;
}

bool give(Worker& w, size_t index) {
    const uint32_t i = static_cast<uint32_t>(index);
    w.index = static_cast<long>(index);
    w.text.clear();
    return write_all(w.to_worker, reinterpret_cast<const char*>(&i), sizeof i);
}

// Why a worker whose pipe ended before its row: it died (a crash in the model) or failed.
std::string death_of(Worker& w) {
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    w.pid = -1;
    if (WIFSIGNALED(status)) return "the run died of signal " + std::to_string(WTERMSIG(status));
    return "the run's process ended without a result";
}

}  // namespace

std::vector<size_t> longest_first(const std::vector<BatchInput>& inputs) {
    std::vector<int64_t> work(inputs.size(), 0);
    for (size_t i = 0; i < inputs.size(); ++i) {
        try {
            work[i] = check_work_limit(load_scenario_file(inputs[i].path), 0, "");
        } catch (const std::exception&) {
            work[i] = 0;  // a scenario that does not load fails at once in its worker too
        }
    }
    std::vector<size_t> order(inputs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return work[a] > work[b]; });
    return order;
}

std::string row_to_text(const BatchRow& row) { return row_to_json(row).dump(); }

bool row_from_text(const std::string& text, BatchRow& row) {
    const Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded()) return false;
    try {
        row = row_from_json(j);
        return true;
    } catch (const Json::exception&) {
        return false;
    }
}

int default_jobs() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

std::vector<BatchRow> run_rows(const std::vector<BatchInput>& inputs, const BatchOptions& options, int jobs,
                               const std::function<void(size_t, const BatchRow&)>& done) {
    std::vector<BatchRow> rows(inputs.size());
    if (jobs <= 1) {
        for (size_t i = 0; i < inputs.size(); ++i) {
            rows[i] = run_one(inputs[i], options);
            done(i, rows[i]);
        }
        return rows;
    }
    // A worker that died leaves a pipe without reader: the write must fail with EPIPE (a lost
    // row) rather than kill the batch with SIGPIPE.
    struct IgnoreSigpipe {
        struct sigaction old {};
        IgnoreSigpipe() {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            ::sigaction(SIGPIPE, &ignore, &old);
        }
        ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old, nullptr); }
    } ignore_sigpipe;
    std::vector<Worker> workers;
    std::vector<bool> have(inputs.size(), false);
    // The longest scenarios go first, so the batch does not end on one long run while the
    // other workers idle (the catalog's eight full-chip layouts are 90% of its time).
    const std::vector<size_t> dispatch = longest_first(inputs);
    size_t next = 0, reported = 0;
    // Every row comes back, even from a worker that died: a fresh one takes its place.
    auto keep_busy = [&](size_t k) {
        while (next < inputs.size()) {
            const size_t index = dispatch[next++];
            if (workers[k].pid < 0) workers[k] = start_worker(inputs, options, workers, k);
            if (give(workers[k], index)) return;
            rows[index] = lost_row(inputs[index], death_of(workers[k]));
            have[index] = true;
        }
        workers[k].index = -1;
    };
    const size_t count = std::min(static_cast<size_t>(jobs), inputs.size());
    for (size_t k = 0; k < count; ++k) {
        workers.push_back(start_worker(inputs, options, workers, k));
        keep_busy(k);
    }
    while (reported < inputs.size()) {
        while (reported < inputs.size() && have[reported]) {
            done(reported, rows[reported]);
            ++reported;
        }
        if (reported == inputs.size()) break;
        std::vector<pollfd> fds;
        std::vector<size_t> busy;
        for (size_t k = 0; k < workers.size(); ++k)
            if (workers[k].index >= 0) {
                fds.push_back({workers[k].from_worker, POLLIN, 0});
                busy.push_back(k);
            }
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(std::string("-j: poll: ") + std::strerror(errno));
        }
        for (size_t f = 0; f < fds.size(); ++f) {
            if (!(fds[f].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            Worker& w = workers[busy[f]];
            char buf[65536];
            const ssize_t n = ::read(w.from_worker, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            const size_t index = static_cast<size_t>(w.index);
            if (n <= 0) {
                ::close(w.to_worker);
                ::close(w.from_worker);
                rows[index] = lost_row(inputs[index], death_of(w));
            } else {
                w.text.append(buf, static_cast<size_t>(n));
                if (w.text.back() != '\n') continue;
                if (!row_from_text(w.text, rows[index]))
                    rows[index] = lost_row(inputs[index], "the run's process sent no result");
            }
            have[index] = true;
            keep_busy(busy[f]);
        }
    }
    for (Worker& w : workers) {
        if (w.pid < 0) continue;
        ::close(w.to_worker);  // end of work: the worker exits
        ::close(w.from_worker);
        death_of(w);
    }
    return rows;
}

std::vector<std::string> visible_gpus(const char* cuda_visible_devices, const std::string& driver_gpus_dir) {
    std::vector<std::string> gpus;
    if (cuda_visible_devices) {
        std::string entry;
        std::istringstream list(cuda_visible_devices);
        while (std::getline(list, entry, ','))
            if (!entry.empty()) gpus.push_back(entry);
        return gpus;
    }
    std::error_code ec;
    size_t count = 0;
    for (auto it = std::filesystem::directory_iterator(driver_gpus_dir, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
        if (it->is_directory(ec)) ++count;
    for (size_t i = 0; i < count; ++i) gpus.push_back(std::to_string(i));
    return gpus;
}

}  // namespace tmasim::cli
