// SPDX-License-Identifier: BSL-1.0
// primes: one typed tool over stdio, on candor::core alone; built against an installed Candor.
#include <candor/app/command_line.hpp>
#include <candor/mcp/typed_tool.hpp>

#include <boost/describe.hpp>

#include <cstdint>
#include <memory>

struct primes_args {
    std::int64_t below = 0;
    int limit = 10;
};
BOOST_DESCRIBE_STRUCT(primes_args, (), (below, limit))

void describe_contract(candor::contract::spec<primes_args>& s) {
    s.field(&primes_args::below).description("Primes below this number").range(2, 1'000'000);
    s.field(&primes_args::limit).description("How many primes to return").range(1, 100).optional();
}

struct list_primes : candor::mcp::tool<primes_args> {
    list_primes() : tool(candor::mcp::tool_info("list_primes", "The primes below a number, smallest first.")) {}

    boost::asio::awaitable<candor::envelope::envelope> call(primes_args a, candor::mcp::call_context&) override {
        boost::json::array found;
        for (std::int64_t n = 2; n < a.below; ++n) {
            bool prime = true;
            for (std::int64_t d = 2; d * d <= n && prime; ++d) prime = n % d != 0;
            if (!prime) continue;
            if (found.size() == static_cast<std::size_t>(a.limit))
                co_return candor::envelope::partial(
                    std::move(found),
                    {"RESULT_LIMIT_REACHED", "more primes follow; raise limit", {{"limit", a.limit}}});
            found.push_back(n);
        }
        co_return candor::envelope::complete(std::move(found));
    }
};

int main(int argc, char** argv) {
    candor::mcp::server srv({.name = "primes", .version = "1.0.0"});
    srv.add_tool(std::make_shared<list_primes>()).value();
    return candor::app::run(srv, argc, argv, {.summary = "Lists primes; a consumer of an installed Candor."});
}
