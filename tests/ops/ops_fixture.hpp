// SPDX-License-Identifier: BSL-1.0
#pragma once
// A server whose tools echo a unique marker from their arguments everywhere they can (reason
// messages, details, issue messages), and the calls that exercise every kind of record.

#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>

#include <memory>
#include <string>

namespace candor::test {

inline constexpr std::string_view marker = "MARKER-7f3a9c-unique";

inline mcp::server_options quiet_options() {
    mcp::server_options o;
    o.log = [](mcp::log_level, std::string_view) {};
    return o;
}

inline void add_marker_tools(mcp::server& srv) {
    auto schema = boost::json::parse(R"({"type":"object","additionalProperties":false,"required":["query"],
        "properties":{"query":{"type":"string","maxLength":64},"limit":{"type":"integer","minimum":1,"maximum":10},
                      "mode":{"enum":["fast","full"]}}})")
                      .as_object();
    srv
        .add_tool(mcp::make_tool(
            mcp::tool_info("search", "finds").with_input_schema(schema).with_action(mcp::action_class::read_only),
            [](const boost::json::object& args, mcp::call_context&) -> boost::asio::awaitable<envelope::envelope> {
                const std::string q(args.at("query").as_string());
                const auto* limit = args.if_contains("limit");
                if (limit && limit->as_int64() < 5) {
                    boost::json::object details;
                    details["limit"] = limit->as_int64();
                    details["query"] = q;  // a tool may echo a value; the journal must not
                    co_return envelope::partial(boost::json::array{boost::json::value(q)},
                                                {"RESULT_LIMIT_REACHED", "more than " + q, std::move(details)});
                }
                co_return envelope::complete(boost::json::array{boost::json::value(q)});
            }))
        .value();
    auto delete_schema = boost::json::parse(R"({"type":"object","properties":{"id":{"type":"string"}}})").as_object();
    srv.add_tool(mcp::make_tool(mcp::tool_info("delete_note", "deletes")
                                    .with_input_schema(delete_schema)
                                    .with_action(mcp::action_class::irreversible_write),
                                [](const boost::json::object& args,
                                   mcp::call_context&) -> boost::asio::awaitable<envelope::envelope> {
                                    issue i;
                                    i.code = "EVIDENCE_MISSING";
                                    i.path = "/id";
                                    i.message = "no evidence for " + std::string(args.at("id").as_string());
                                    i.repairable = false;
                                    i.where = layer::external;
                                    co_return envelope::failure({std::move(i)});
                                }))
        .value();
}

inline std::string with_marker(std::string_view text) {
    std::string out(text);
    for (auto at = out.find("@M"); at != std::string::npos; at = out.find("@M")) out.replace(at, 2, marker);
    return out;
}

/// Every kind of call, each carrying the marker (as "@M" in the texts below).
inline void make_marker_calls(mcp::memory_client& c) {
    c.initialize();
    auto call = [&](std::string_view params) {
        auto p = boost::json::parse(with_marker(params)).as_object();
        c.request("tools/call", std::move(p));
    };
    call(R"({"name":"search","arguments":{"query":"@M","limit":3}})");    // partial
    call(R"({"name":"search","arguments":{"query":5,"@M":"@M"}})");       // TYPE_MISMATCH, UNKNOWN_FIELD
    call(R"({"name":"search","arguments":{"query":"@M","mode":"@M"}})");  // ENUM_MISMATCH (repair 1)
    call(R"({"name":"search","arguments":{"query":"@M"}})");              // complete (repair 2)
    c.exchange(
        with_marker(
            R"({"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"search","arguments":{"query":"@M","query":"@M"}}})"),
        "dup");                                                 // DUPLICATE_KEY
    call(R"({"name":"delete_note","arguments":{"id":"@M"}})");  // refused action
    c.request(with_marker("@M/method"));                        // method not found
    call(R"({"name":"@M"})");                                   // unknown tool
}

}  // namespace candor::test
