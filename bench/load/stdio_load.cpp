// SPDX-License-Identifier: BSL-1.0
// stdio-load: the stdio side of the load benchmark (bench/load/run.sh), in C++ so that the load
// generator is not the limit: the Node driver (driver.mjs, which also verifies the workload)
// spends 60-85 % of its core at 25,000 calls/s and cannot measure above about 30,000.
//
//   stdio-load [--inflight N] [--warmup S] [--duration S] [--call search_tickets|echo] -- SERVER [ARGS…]
//
// Starts SERVER with pipes, initializes it (2025-06-18), then keeps N `search_tickets` calls in
// flight — one `write(2)` per request, as the Node driver does — and validates every reply as
// driver.mjs does: a result, isError false, complete false, MORE_PAGES_AVAILABLE, a next_cursor
// continuation and the 20 expected ids in order. Prints one line in the Node driver's format:
//   STDIO_RESULT calls=… seconds=… cps=… p50_us=… p90_us=… p99_us=… cpu_us_per_call=…
//                peak_rss_kb=… invalid=… server_cpu_pct=… load_cpu_pct=…
// and exits 1 (after STDIO_FIRST_FAILURE …) if any reply was invalid.
// `--call echo` calls `echo {"text":"hello"}` instead (and checks for a complete envelope with
// that text): what a call costs in the framework alone, without the paging work.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "stdio-load: %s\n", why.c_str());
    std::exit(2);
}

struct child_process {
    pid_t pid = -1;
    int to = -1;    // its stdin
    int from = -1;  // its stdout
};

child_process spawn(const std::vector<char*>& argv) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) die("pipe: " + std::string(std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) die("fork: " + std::string(std::strerror(errno)));
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execvp(argv[0], argv.data());
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    return {pid, in[1], out[0]};
}

void write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = write(fd, s.data(), s.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            die("write to the server: " + std::string(std::strerror(errno)));
        }
        s.remove_prefix(static_cast<std::size_t>(n));
    }
}

// Lines from the server's stdout.
class line_reader {
public:
    explicit line_reader(int fd) : fd_(fd) {}

    /// Waits up to `timeout_ms` for more output; false on EOF. Calls `on_line` per whole line.
    template <class F>
    bool pump(int timeout_ms, F&& on_line) {
        pollfd p{fd_, POLLIN, 0};
        const int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno != EINTR) die("poll: " + std::string(std::strerror(errno)));
        if (r <= 0) return true;
        char chunk[1 << 16];
        const ssize_t n = read(fd_, chunk, sizeof chunk);
        if (n == 0) return false;
        if (n < 0) return errno == EINTR || errno == EAGAIN;
        buffer_.append(chunk, static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1)
            if (nl > start) on_line(std::string_view(buffer_).substr(start, nl - start));
        buffer_.erase(0, start);
        return true;
    }

private:
    int fd_;
    std::string buffer_;
};

// The JSON-RPC id of a reply (`"id":N` followed by ',' or '}'), looked for near either end as
// the Node driver does; -1 if none.
long reply_id(std::string_view line) {
    auto find_in = [](std::string_view part) -> long {
        for (std::size_t at = part.find("\"id\":"); at != std::string_view::npos; at = part.find("\"id\":", at + 1)) {
            std::size_t i = at + 5;
            long v = 0;
            const std::size_t digits_from = i;
            while (i < part.size() && part[i] >= '0' && part[i] <= '9') v = v * 10 + (part[i++] - '0');
            if (i > digits_from && i < part.size() && (part[i] == ',' || part[i] == '}')) return v;
        }
        return -1;
    };
    if (line.size() <= 200) return find_in(line);
    const long head = find_in(line.substr(0, 60));
    return head >= 0 ? head : find_in(line.substr(line.size() - 60));
}

// The ids of the measured page: T-000003, T-000027, … T-000459.
std::vector<std::string> first_page_ids() {
    std::vector<std::string> ids;
    for (int k = 0; k < 20; ++k) {
        char id[16];
        std::snprintf(id, sizeof id, "T-%06d", 3 + 24 * k);
        ids.emplace_back(id);
    }
    return ids;
}

// Where `what` first occurs in `text` at or after `from` (glibc's memmem: string_view::find
// stops at every occurrence of the first byte, here a quote every few bytes).
std::size_t find(std::string_view text, std::string_view what, std::size_t from = 0) {
    if (from > text.size()) return std::string_view::npos;
    const void* at = memmem(text.data() + from, text.size() - from, what.data(), what.size());
    return at ? static_cast<std::size_t>(static_cast<const char*>(at) - text.data()) : std::string_view::npos;
}

// Why the reply is not the expected first page; empty if it is.
std::string check_reply(std::string_view text, const std::vector<std::string>& expected) {
    auto has = [&](std::string_view s) { return find(text, s) != std::string_view::npos; };
    if (!has("\"result\":")) return "no result (JSON-RPC error?)";
    if (!has("\"isError\":false")) return "isError is not false";
    if (!has("\"complete\":false")) return "complete is not false";
    if (!has("\"MORE_PAGES_AVAILABLE\"")) return "no MORE_PAGES_AVAILABLE";
    if (!has("\"kind\":\"next_cursor\"")) return "no next_cursor continuation";
    // `"id":"T-…"` occurs in structuredContent only (inside content[0].text the quotes are escaped).
    std::size_t n = 0;
    constexpr std::string_view marker = "\"id\":\"";
    for (std::size_t at = find(text, marker); at != std::string_view::npos; at = find(text, marker, at + 1)) {
        const std::size_t from = at + marker.size();
        const std::size_t to = text.find('"', from);
        if (to == std::string_view::npos) return "unterminated id";
        const std::string_view id = text.substr(from, to - from);
        if (n >= expected.size() || id != expected[n])
            return "unexpected id " + std::string(id) + " at " + std::to_string(n);
        ++n;
    }
    return n == expected.size() ? std::string() : std::to_string(n) + " ids instead of 20";
}

// Why the reply is not echo's answer to {"text":"hello"}; empty if it is.
std::string check_echo(std::string_view text) {
    auto has = [&](std::string_view s) { return find(text, s) != std::string_view::npos; };
    if (!has("\"result\":")) return "no result (JSON-RPC error?)";
    if (!has("\"isError\":false")) return "isError is not false";
    if (!has("\"complete\":true")) return "complete is not true";
    if (!has("\"data\":{\"text\":\"hello\"}")) return "data is not {\"text\":\"hello\"}";
    return {};
}

struct proc_stats {
    long ticks = 0;  // utime + stime
    long hwm_kb = 0;
};

proc_stats stats_of(pid_t pid) {
    proc_stats s;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto paren = all.rfind(')');
    if (paren == std::string::npos) return s;
    std::istringstream fields(all.substr(paren + 2));
    std::string f;
    for (int i = 0; i < 13 && fields >> f; ++i) {
        if (i == 11) s.ticks += std::atol(f.c_str());
        if (i == 12) s.ticks += std::atol(f.c_str());
    }
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) s.hwm_kb = std::atol(line.c_str() + 6);
    return s;
}

double own_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long percentile(const std::vector<long>& sorted, double p) {
    if (sorted.empty()) return 0;
    return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(p / 100 * static_cast<double>(sorted.size())))];
}

}  // namespace

int main(int argc, char** argv) {
    static constexpr std::string_view usage =
        "usage: stdio-load [--inflight N] [--warmup S] [--duration S] [--call search_tickets|echo] -- SERVER…";
    int inflight = 64;
    bool echo = false;  // --call echo: the framework's cost per call without the paging work
    double warmup_s = 2, duration_s = 10;
    std::vector<char*> server;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto number = [&] {
            if (i + 1 >= argc) die("missing value after " + std::string(a));
            return std::atof(argv[++i]);
        };
        if (a == "--") {
            server.assign(argv + i + 1, argv + argc);
            break;
        }
        if (a == "--inflight") inflight = static_cast<int>(number());
        else if (a == "--warmup") warmup_s = number();
        else if (a == "--duration") duration_s = number();
        else if (a == "--call" && i + 1 < argc &&
                 (std::string_view(argv[i + 1]) == "echo" || std::string_view(argv[i + 1]) == "search_tickets"))
            echo = std::string_view(argv[++i]) == "echo";
        else die("unknown argument " + std::string(a) + " (" + std::string(usage) + ")");
    }
    if (server.empty() || inflight < 1) die(std::string(usage));
    server.push_back(nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    const child_process child = spawn(server);
    line_reader reader(child.from);

    write_all(
        child.to,
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
        R"("clientInfo":{"name":"candor-load-driver","version":"1"}}})"
        "\n");
    bool initialized = false;
    const auto init_by = clock_type::now() + std::chrono::seconds(30);
    while (!initialized) {
        if (clock_type::now() > init_by) die("the server did not answer initialize within 30 s");
        if (!reader.pump(100, [&](std::string_view line) {
                if (reply_id(line) != 0) return;
                if (line.find("\"result\":") == std::string_view::npos)
                    die("initialize failed: " + std::string(line.substr(0, 300)));
                initialized = true;
            }))
            die("the server exited during initialize");
    }
    write_all(child.to, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");

    const std::vector<std::string> expected = first_page_ids();
    const std::string params =
        echo
            ? R"("method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}})"
            : R"("method":"tools/call","params":{"name":"search_tickets","arguments":{"department":"dept-3","status":"open","page_size":20}}})";
    std::unordered_map<long, clock_type::time_point> sent_at;
    long next_id = 1;
    bool measuring = false, stopping = false;
    long calls = 0, invalid = 0;
    std::string first_invalid;
    std::vector<long> latencies;
    latencies.reserve(1 << 20);

    std::string request;
    auto send_one = [&] {
        const long id = next_id++;
        request.assign(R"({"jsonrpc":"2.0","id":)").append(std::to_string(id)).append(",").append(params).append("\n");
        sent_at.emplace(id, clock_type::now());
        write_all(child.to, request);
    };
    auto on_line = [&](std::string_view line) {
        const long id = reply_id(line);
        const auto it = sent_at.find(id);
        if (it == sent_at.end()) {
            ++invalid;
            if (first_invalid.empty()) first_invalid = "unknown reply " + std::string(line.substr(0, 200));
            return;
        }
        const auto took = clock_type::now() - it->second;
        sent_at.erase(it);
        const std::string why = echo ? check_echo(line) : check_reply(line, expected);
        if (!why.empty()) {
            ++invalid;
            if (first_invalid.empty()) first_invalid = why + ": " + std::string(line.substr(0, 300));
        }
        if (measuring) {
            ++calls;
            latencies.push_back(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
        }
        if (!stopping) send_one();
    };

    for (int i = 0; i < inflight; ++i) send_one();
    auto run_until = [&](clock_type::time_point until) {
        while (clock_type::now() < until)
            if (!reader.pump(50, on_line)) die("the server exited during the run");
    };
    run_until(clock_type::now() +
              std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(warmup_s)));

    const proc_stats before = stats_of(child.pid);
    const double self_before = own_cpu_seconds();
    const auto t0 = clock_type::now();
    measuring = true;
    run_until(t0 + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(duration_s)));
    measuring = false;
    const double seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    const proc_stats after = stats_of(child.pid);
    const double self_cpu = own_cpu_seconds() - self_before;

    stopping = true;
    const auto drain_by = clock_type::now() + std::chrono::seconds(5);
    while (!sent_at.empty() && clock_type::now() < drain_by)
        if (!reader.pump(50, on_line)) break;
    close(child.to);
    kill(child.pid, SIGTERM);
    waitpid(child.pid, nullptr, 0);

    std::sort(latencies.begin(), latencies.end());
    const long ticks_per_s = sysconf(_SC_CLK_TCK);
    const double cpu_us = static_cast<double>(after.ticks - before.ticks) / static_cast<double>(ticks_per_s) * 1e6;
    std::printf(
        "STDIO_RESULT calls=%ld seconds=%.3f cps=%.1f p50_us=%ld p90_us=%ld p99_us=%ld cpu_us_per_call=%.1f "
        "peak_rss_kb=%ld invalid=%ld server_cpu_pct=%.0f load_cpu_pct=%.0f\n",
        calls, seconds, static_cast<double>(calls) / seconds, percentile(latencies, 50), percentile(latencies, 90),
        percentile(latencies, 99), cpu_us / static_cast<double>(std::max(1L, calls)), after.hwm_kb, invalid,
        cpu_us / 1e6 / seconds * 100, self_cpu / seconds * 100);
    if (invalid != 0) {
        std::printf("STDIO_FIRST_FAILURE %s\n", first_invalid.c_str());
        return 1;
    }
    return 0;
}
