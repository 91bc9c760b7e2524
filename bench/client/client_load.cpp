// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// The client benchmark's C++ side (bench/load/client.sh): N sessions of Candor's client, each
// calling bench-server's measured call (search_tickets, first page of dept-3's open tickets)
// one call after the other, for a warm-up and a measured window; every result is read as an
// application would (the tool result, its envelope) and checked. One thread.
//   client-load --sessions N --warmup S --duration S [--protocol 2025|2026] (--url URL | -- CMD ARGS...)
// Prints "CLIENT_RESULT calls=… seconds=… cps=… p50_us=… p99_us=… cpu_us_per_call=… invalid=…"
// (CPU: this process's, user and system). Exit status 1 when any result is invalid.
#include <candor/client/walk.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace cc = candor::client;
namespace net = boost::asio;
using clock_type = std::chrono::steady_clock;

struct settings {
    std::size_t sessions = 1;
    double warmup = 1, duration = 4;
    cc::endpoint where;
    cc::session_options options;
};

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

boost::json::object measured_arguments() {
    return boost::json::object{{"department", "dept-3"}, {"status", "open"}, {"page_size", 20}};
}

// The measured call's result as an application reads it: not a tool error, an envelope that
// says "partial, more pages", twenty tickets, the first one T-000003.
bool valid(const cc::tool_result& r) {
    if (r.is_error) return false;
    const auto env = cc::read_envelope(r.structured);
    if (!env.readable || env.complete || env.next_cursor.empty()) return false;
    const auto* data = r.structured.is_object() ? r.structured.get_object().if_contains("data") : nullptr;
    if (!data || !data->is_array() || data->get_array().size() != 20) return false;
    const auto* first =
        data->get_array().front().is_object() ? data->get_array().front().get_object().if_contains("id") : nullptr;
    return first && first->is_string() && first->get_string() == "T-000003";
}

struct totals {
    std::vector<double> latencies_us;
    std::size_t calls = 0, invalid = 0, failed_sessions = 0;
    clock_type::time_point start, end;
};

net::awaitable<void> one_session(net::any_io_executor ex, const settings& s, totals& t) {
    auto opened = co_await cc::session::open(ex, s.where, s.options);
    if (!opened) {
        std::cerr << "client-load: no session: " << opened.error().code << ": " << opened.error().message << "\n";
        ++t.failed_sessions;
        co_return;
    }
    auto& session = **opened;
    while (true) {
        const auto before = clock_type::now();
        if (before >= t.end) break;
        auto r = co_await session.call_tool("search_tickets", measured_arguments());
        const auto after = clock_type::now();
        if (before < t.start) continue;  // the warm-up
        ++t.calls;
        if (!r || !valid(*r)) {
            if (++t.invalid == 1)
                std::cerr << "CLIENT_FIRST_FAILURE "
                          << (r ? "an invalid result" : r.error().code + ": " + r.error().message) << "\n";
        }
        t.latencies_us.push_back(std::chrono::duration<double, std::micro>(after - before).count());
    }
    co_await session.close();
}

int usage() {
    std::cerr << "usage: client-load --sessions N --warmup S --duration S [--protocol 2025|2026] "
                 "(--url URL | -- CMD ARGS...)\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    settings s;
    s.options.client_name = "candor-client-load";
    s.where.discard_stderr = true;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--") {
            for (++i; i < argc; ++i) s.where.command.emplace_back(argv[i]);
        } else if (arg == "--sessions") {
            s.sessions = std::stoul(value());
        } else if (arg == "--warmup") {
            s.warmup = std::stod(value());
        } else if (arg == "--duration") {
            s.duration = std::stod(value());
        } else if (arg == "--url") {
            s.where.url = value();
        } else if (arg == "--protocol") {
            const auto p = value();
            if (p != "2025" && p != "2026") return usage();
            s.options.protocol = p == "2026" ? cc::era::modern : cc::era::legacy;
        } else {
            return usage();
        }
    }
    if (s.sessions == 0 || s.where.url.empty() == s.where.command.empty()) return usage();
    net::io_context ioc(1);
    totals t;
    const auto opened_at = clock_type::now();
    t.start = opened_at + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(s.warmup));
    t.end = t.start + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(s.duration));
    double cpu_start = 0;
    bool cpu_started = false;
    // The CPU of the measured window only: read when the warm-up ends.
    net::steady_timer mark(ioc);
    mark.expires_at(t.start);
    mark.async_wait([&](boost::system::error_code) {
        cpu_start = cpu_seconds();
        cpu_started = true;
    });
    for (std::size_t i = 0; i < s.sessions; ++i)
        net::co_spawn(ioc, one_session(ioc.get_executor(), s, t), net::detached);
    ioc.run();
    const double cpu = cpu_started ? cpu_seconds() - cpu_start : 0;
    const double seconds = std::chrono::duration<double>(std::max(t.end, t.start) - t.start).count();
    std::sort(t.latencies_us.begin(), t.latencies_us.end());
    const auto pct = [&](double p) {
        if (t.latencies_us.empty()) return 0.0;
        return t.latencies_us[std::min(t.latencies_us.size() - 1,
                                       static_cast<std::size_t>(p / 100 * static_cast<double>(t.latencies_us.size())))];
    };
    std::printf(
        "CLIENT_RESULT calls=%zu seconds=%.2f cps=%.0f p50_us=%.0f p99_us=%.0f cpu_us_per_call=%.1f invalid=%zu\n",
        t.calls, seconds, seconds > 0 ? static_cast<double>(t.calls) / seconds : 0.0, pct(50), pct(99),
        t.calls ? cpu * 1e6 / static_cast<double>(t.calls) : 0.0, t.invalid + t.failed_sessions);
    return t.invalid || t.failed_sessions || t.calls == 0 ? 1 : 0;
}
