// SPDX-License-Identifier: BSL-1.0
// stdio-floor: the floor of the stdio load benchmark (bench/load/run.sh, row `server=floor`).
// Not an MCP server: it answers `initialize` with a fixed result and every other request with
// one precomputed result — a real search_tickets reply captured from bench-server, so that the
// load generator validates it like any other — changing only the id. What it costs per call
// is what the pipes, the kernel and the load generator cost on their own; what a real server
// costs above it is its own work.
//
//   stdio-floor RESULT_FILE     (RESULT_FILE: the JSON of one reply's "result", on one line)
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "write_all.hpp"

#include <unistd.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: stdio-floor RESULT_FILE\n");
        return 2;
    }
    std::ifstream file(argv[1]);
    std::string result((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    while (!result.empty() && (result.back() == '\n' || result.back() == '\r')) result.pop_back();
    if (result.empty() || result.front() != '{') {
        std::fprintf(stderr, "stdio-floor: %s holds no JSON object\n", argv[1]);
        return 2;
    }
    static constexpr std::string_view initialized =
        R"(,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stdio-floor","version":"1"}}})";

    grow_output_pipe();
    std::string in, out;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        in.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t end; (end = in.find('\n', start)) != std::string::npos; start = end + 1) {
            const std::string_view line(in.data() + start, end - start);
            const auto at = line.find(R"("id":)");
            if (at == std::string_view::npos) continue;  // a notification
            const auto id_end = line.find_first_of(",}", at + 5);
            if (id_end == std::string_view::npos) continue;
            out += R"({"jsonrpc":"2.0","id":)";
            out += line.substr(at + 5, id_end - at - 5);
            if (line.find(R"("method":"initialize")") != std::string_view::npos) {
                out += initialized;
            } else {
                out += R"(,"result":)";
                out += result;
                out += '}';
            }
            out += '\n';
        }
        in.erase(0, start);
        if (!write_all(1, out)) return 1;
        out.clear();
    }
}
