// SPDX-License-Identifier: BSL-1.0
// Fuzzes message dispatch: any bytes, delivered as one message to a connection over the in-memory
// transport, before or after the handshake (the first byte chooses: even, after). Checked on every
// input: no crash, no hang, and the connection answers with one reply or none — never more — and
// a reply is a JSON-RPC 2.0 response object (`jsonrpc` "2.0", an `id`, exactly one of `result`
// and `error`); anything else it sends is a notification (a `method`, no `id`). The server has a typed tool with a contract and budget, so that tools/call reaches
// the whole argument pipeline.
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/typed_tool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/describe.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

struct find_args {
    std::string query;
    int limit = 5;
};
BOOST_DESCRIBE_STRUCT(find_args, (), (query, limit))

void describe_contract(candor::contract::spec<find_args>& s) {
    s.field(&find_args::query).description("what to find").length(1, 64);
    s.field(&find_args::limit).description("how many").range(1, 10).optional();
}

struct find_tool : candor::mcp::tool<find_args> {
    find_tool() : tool(candor::mcp::tool_info("find", "Find things.").with_budget({.max_depth = 4, .max_nodes = 40})) {}
    boost::asio::awaitable<candor::envelope::envelope> call(find_args a, candor::mcp::call_context&) override {
        boost::json::array found;
        for (int i = 0; i < a.limit; ++i) found.push_back(boost::json::value(a.query));
        co_return candor::envelope::complete(std::move(found));
    }
};

candor::mcp::server& server() {
    static candor::mcp::server* srv = [] {
        auto* s = new candor::mcp::server({.name = "fuzz", .version = "1"});
        s->set_log(candor::mcp::log_sink([](candor::mcp::log_level, std::string_view) {}));
        s->add_tool(std::make_shared<find_tool>()).value();
        return s;
    }();
    return *srv;
}

bool is_response(const boost::json::value& v) {
    const auto* o = v.if_object();
    if (!o) return false;
    const auto* version = o->if_contains("jsonrpc");
    if (!version || !version->is_string() || version->get_string() != "2.0") return false;
    if (!o->contains("id")) return false;
    return o->contains("result") != o->contains("error");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    boost::asio::io_context ioc;
    candor::mcp::memory_client client(server(), ioc);
    if (data[0] % 2 == 0) client.initialize();
    const std::size_t before = client.received().size();
    client.send(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    client.run_until([] { return false; });
    const auto& got = client.received();
    std::size_t replies = 0;
    for (std::size_t i = before; i < got.size(); ++i) {
        const auto* o = got[i].if_object();
        check(o != nullptr);
        if (o->contains("method")) {
            check(!o->contains("id"));
            continue;
        }
        check(is_response(got[i]));
        ++replies;
    }
    check(replies <= 1);
    return 0;
}
