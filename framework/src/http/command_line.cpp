// SPDX-License-Identifier: BSL-1.0
#include <candor/http/command_line.hpp>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace candor::app {

namespace {

// `v` as a whole number in [lo, hi].
bool whole(std::string_view v, std::size_t lo, std::size_t hi, std::size_t& out) {
    const std::string text(v);
    char* end = nullptr;
    errno = 0;
    const auto n = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || n < lo || n > hi) return false;
    out = static_cast<std::size_t>(n);
    return true;
}

}  // namespace

namespace {

// "[HOST:]PORT" (IPv6 hosts in brackets: "[::1]:8080").
bool parse_listen(std::string_view text, transport::http_options& http) {
    std::string_view port = text;
    if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
        auto host = text.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        if (host.empty()) return false;
        http.host = std::string(host);
        port = text.substr(colon + 1);
    }
    if (port.empty() || port.size() > 5) return false;
    unsigned value = 0;
    for (char c : port) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value > 65535) return false;
    http.port = static_cast<std::uint16_t>(value);
    return true;
}

// Lines "TOKEN PRINCIPAL"; blank lines and lines starting with '#' are skipped.
bool read_tokens(const std::string& path, transport::http_options& http) {
    std::ifstream in(path);
    if (!in) {
        std::cerr << "error: cannot read tokens file '" << path << "'\n";
        return false;
    }
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto gap = line.find_first_of(" \t", first);
        const auto second = gap == std::string::npos ? gap : line.find_first_not_of(" \t", gap);
        if (second == std::string::npos) {
            std::cerr << "error: " << path << ":" << n << ": expected 'TOKEN PRINCIPAL'\n";
            return false;
        }
        auto principal = line.substr(second);
        principal.erase(principal.find_last_not_of(" \t") + 1);
        http.tokens[line.substr(first, gap - first)] = mcp::principal{principal};
    }
    if (http.tokens.empty()) {
        std::cerr << "error: tokens file '" << path << "' has no tokens\n";
        return false;
    }
    return true;
}

}  // namespace

http_command_line::http_command_line(transport::http_options defaults) : opts_(std::move(defaults)) {}

// A flag of HTTP's that takes milliseconds, 0..600000, into `out`.
extra_option http_command_line::milliseconds_flag(std::string name, std::chrono::milliseconds& out) {
    return {name, "MS", "", [this, name, &out](std::string_view v) {
                http_only_flag_ = true;
                std::size_t ms = 0;
                if (!whole(v, 0, 600'000, ms)) return refuse(name + " expects 0..600000 milliseconds");
                out = std::chrono::milliseconds(ms);
                return true;
            }};
}

std::vector<extra_option> http_command_line::flags() {
    std::vector<extra_option> flags{
        {"--http", "[HOST:]PORT", "",
         [this](std::string_view v) {
             serving_ = true;
             return parse_listen(v, opts_) || refuse("--http expects [HOST:]PORT, got '" + std::string(v) + "'");
         }},
        {"--stateless", "", "",
         [this](std::string_view) {
             http_only_flag_ = true;
             opts_.stateless = true;
             return true;
         }},
        {"--tokens", "FILE", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             return read_tokens(std::string(v), opts_);
         }},
        {"--allow-origin", "O", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             opts_.allowed_origins.emplace_back(v);
             return true;
         }},
        {"--allow-host", "H", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             opts_.allowed_hosts.emplace_back(v);
             return true;
         }},
        {"--threads", "N", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             const std::string text(v);
             char* end = nullptr;
             const auto n = std::strtoul(text.c_str(), &end, 10);
             if (text.empty() || *end != '\0' || n == 0 || n > 1024) return refuse("--threads expects 1..1024");
             opts_.threads = n;
             return true;
         }},
        {"--max-requests-in-flight", "N", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             return whole(v, 0, 1'000'000, opts_.max_requests_in_flight) ||
                    refuse("--max-requests-in-flight expects 0..1000000 (0: 128 per I/O thread)");
         }},
        {"--max-queued-requests", "N", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             return whole(v, 0, 1'000'000, opts_.max_queued_requests) ||
                    refuse("--max-queued-requests expects 0..1000000");
         }},
        {"--max-queued-requests-per-principal", "N", "",
         [this](std::string_view v) {
             http_only_flag_ = true;
             return whole(v, 0, 1'000'000, opts_.max_queued_requests_per_principal) ||
                    refuse("--max-queued-requests-per-principal expects 0..1000000");
         }},
        milliseconds_flag("--max-queue-delay", opts_.max_queue_delay),
        milliseconds_flag("--queue-delay-target", opts_.queue_delay_target),
        milliseconds_flag("--queue-delay-interval", opts_.queue_delay_interval),
    };
    for (const auto name : auth::oauth_flags())
        flags.push_back({std::string(name), "VALUE", "", [this, name](std::string_view v) {
                             http_only_flag_ = true;
                             oauth_.*auth::oauth_setting(name) = std::string(v);
                             return true;
                         }});
    return flags;
}

std::string http_command_line::help() const {
    return std::string(
               "  --http [HOST:]PORT     serve MCP over Streamable HTTP at /mcp (HOST default 127.0.0.1)\n"
               "    --stateless          no sessions; every POST is self-contained\n"
               "    --tokens FILE        require bearer tokens: lines 'TOKEN PRINCIPAL' ('#' comments)\n") +
           std::string(auth::oauth_help()) +
           "    --allow-origin O     accept browser Origin O besides loopback ones (repeatable)\n"
           "    --allow-host H       accept Host H besides localhost ones (repeatable; '*': any, behind a\n"
           "                         proxy that checks it)\n"
           "    --threads N          I/O threads (default: one per core)\n"
           "    --max-requests-in-flight N  requests answered at once (default 0: 128 per I/O thread,\n"
           "                         at least 256); past it a request waits for a slot\n"
           "    --max-queued-requests N     requests waiting for a slot, at most (default 4096)\n"
           "    --max-queued-requests-per-principal N  of one caller (default 256)\n"
           "    --max-queue-delay MS  how long a request waits for a slot before 503 (default 500)\n"
           "    --queue-delay-target MS, --queue-delay-interval MS  a queue where every request waited\n"
           "                         the target (default 5) for an interval (default 100) stands: a\n"
           "                         request joining it waits at most the interval\n";
}

std::string http_command_line::synopsis() const { return "--http [HOST:]PORT"; }

std::string http_command_line::check(bool) {
    if (http_only_flag_ && !serving_)
        return "--stateless, --tokens, --allow-origin, --allow-host, --threads and --oauth-* need --http";
    if (!serving_) return {};
    auth::read_environment(oauth_);
    if (oauth_.enabled() && !opts_.tokens.empty()) return "choose one of --tokens and --oauth-issuer";
    return {};
}

bool http_command_line::start(mcp::server& srv) {
    if (!serving_ || !oauth_.enabled()) return true;
    auto made = auth::configure_oauth(srv, oauth_);
    if (!made) {
        std::cerr << "error: OAuth: " << made.error() << "\n";
        return false;
    }
    opts_.authenticator = *made;
    return true;
}

int http_command_line::serve(mcp::server& srv) { return transport::serve_http(srv, opts_); }

}  // namespace candor::app
