// SPDX-License-Identifier: BSL-1.0
// bench-server: the workload of the load benchmark (docs/performance.md, "Load"), written with
// Candor's public API the way a tool author would write it.
//   bench-server --stdio
//   bench-server --http PORT [--stateless] [--threads N]
//
// Dataset: 100,000 tickets made at start-up, kept in memory in id order. Tools:
//   search_tickets {department?, status?, page_size?, cursor?} — a collection tool (keyset
//     pages in id order, sealed cursors, the envelope; the framework puts the envelope's JSON
//     into content[0] as text and into structuredContent);
//   echo {text ≤ 1000 characters} → {text}.
// Cursors are sealed with CANDOR_SEALING_KEYS ("id:HEX,…") when set, else with a random key.
#include <candor/app/command_line.hpp>
#include <candor/candor.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/ops/command_line.hpp>
#include <candor/paging/typed_collection.hpp>

#include <boost/describe.hpp>

#include "tickets.hpp"  // the data: 100,000 tickets, in id order

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pg = candor::paging;

// ---------------------------------------------------------------------------------------------
// The query: typed, its schema generated from the struct

enum class ticket_status { open, pending, closed };
BOOST_DESCRIBE_ENUM(ticket_status, open, pending, closed)

struct ticket_query {
    std::optional<std::string> department;
    std::optional<ticket_status> status;
};
BOOST_DESCRIBE_STRUCT(ticket_query, (), (department, status))

void describe_contract(candor::contract::spec<ticket_query>& s) {
    s.field(&ticket_query::department)
        .description("Only tickets of this department")
        .one_of({"dept-0", "dept-1", "dept-2", "dept-3", "dept-4", "dept-5", "dept-6", "dept-7"});
    s.field(&ticket_query::status).description("Only tickets in this status");
}

std::string_view to_string(ticket_status s) {
    switch (s) {
        case ticket_status::open: return "open";
        case ticket_status::pending: return "pending";
        case ticket_status::closed: return "closed";
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// The source: up to N tickets after a key that match the query

// The tickets never change after start-up, so a page hands out pointers to them, not copies.
class ticket_source final : public pg::query_source<ticket_query, const ticket*> {
public:
    explicit ticket_source(std::vector<ticket> tickets)
        : query_source("tickets-query/1"), tickets_(std::move(tickets)) {}

    std::string_view name() const noexcept override { return "tickets"; }
    // The tickets never change after start-up: every page reads the same (only) version.
    pg::snapshot_mode snapshots() const noexcept override { return pg::snapshot_mode::pinned; }
    boost::asio::awaitable<boost::system::result<std::string, pg::source_error>> open_snapshot(
        const boost::json::object&, const candor::mcp::principal&) override {
        co_return std::string("v1");
    }

    page_result fetch_matching(const ticket_query& q, const pg::fetch_request& r) override {
        std::optional<std::string_view> status;
        if (q.status) status = to_string(*q.status);

        auto it = tickets_.begin();
        if (r.after) {
            const std::string_view after = r.after->at(0).as_string();
            it = std::upper_bound(tickets_.begin(), tickets_.end(), after,
                                  [](std::string_view key, const ticket& t) { return key < t.id; });
        }
        page out;
        out.items.reserve(r.limit);
        for (; it != tickets_.end() && out.items.size() < r.limit; ++it) {
            // Look at the clock now and then, not per row.
            if ((++out.items_scanned & 4095u) == 0 && std::chrono::steady_clock::now() > r.deadline) {
                out.out_of_time = true;
                break;
            }
            if (q.department && it->department != *q.department) continue;
            if (status && it->status != *status) continue;
            out.items.push_back(&*it);
        }
        co_return out;
    }

private:
    std::vector<ticket> tickets_;
};

// ---------------------------------------------------------------------------------------------
// echo

struct echo_args {
    std::string text;
};
BOOST_DESCRIBE_STRUCT(echo_args, (), (text))

void describe_contract(candor::contract::spec<echo_args>& s) {
    s.field(&echo_args::text).description("Text to send back").max_length(1000);
}

candor::envelope::envelope echo(echo_args a) {
    return candor::envelope::complete(boost::json::object{{"text", std::move(a.text)}});
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    // The stdio load runs keep 64 calls in flight on one connection (the default allows 16).
    candor::mcp::server srv({.name = "candor-bench-server", .version = "1.0.0", .max_calls_in_flight = 64});
    auto keys = std::make_shared<candor::keys::command_line>();
    const auto add_tools = [&] {
        pg::collection_options o;
        o.keys = keys->ring();
        o.default_page_size = 20;
        o.max_page_size = 100;
        pg::add_collection(srv,
                           candor::mcp::tool_info("search_tickets",
                                                  "Search support tickets by department and status, in id order, "
                                                  "one page at a time."),
                           pg::ordering{{"id"}}, std::make_shared<ticket_source>(make_tickets()), o)
            .value();
        candor::mcp::add_tool(
            srv,
            candor::mcp::tool_info("echo", "Sends the text back.").with_action(candor::mcp::action_class::read_only),
            echo)
            .value();
        return true;
    };
    // HTTP and the operators' flags, as every binary had them when the load results were taken
    // (/metrics is on by default over HTTP, and the load run measures with it).
    auto http = std::make_shared<candor::app::http_command_line>();
    return candor::app::run(srv, argc, argv,
                            {.summary = "The load benchmark's workload: 100,000 tickets, search_tickets and echo.",
                             .prepare = add_tools,
                             .extensions = {http, keys, std::make_shared<candor::ops::command_line>(http)}});
}
