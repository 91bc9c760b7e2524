// SPDX-License-Identifier: BSL-1.0
// quickstart: the smallest useful Candor server — one typed, read-only tool over 50 notes.
//   quickstart --stdio          serve an MCP client over stdin/stdout
//   quickstart --http 8080      serve it over Streamable HTTP at http://127.0.0.1:8080/mcp
//   quickstart tools            print the tool list with its schemas
//   quickstart check search_notes args.json
#include <candor/candor.hpp>
#include <candor/http/command_line.hpp>

#include <memory>
#include <string>
#include <vector>

struct search_args {
    std::string query;
    int limit = 5;
};
BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))

void describe_contract(candor::contract::spec<search_args>& s) {
    s.field(&search_args::query).description("Words to look for in the notes").length(1, 200);
    s.field(&search_args::limit).description("How many notes to return").range(1, 10).optional();
}

int main(int argc, char** argv) {
    std::vector<std::string> notes;
    for (int i = 1; i <= 50; ++i)
        notes.push_back("Note " + std::to_string(i) + (i % 3 ? ": meeting minutes" : ": printer repair"));

    // The tool: a function of its arguments (it only reads memory, so it need not be a coroutine).
    auto search_notes = [&notes](const search_args& a) {
        boost::json::array found;
        std::size_t matches = 0;
        for (const auto& n : notes) {
            if (n.find(a.query) == std::string::npos) continue;
            if (++matches <= static_cast<std::size_t>(a.limit)) found.emplace_back(n);
        }
        if (matches <= static_cast<std::size_t>(a.limit)) return candor::envelope::complete(std::move(found));
        // More notes match than were returned: say so, and how to get the rest.
        return candor::envelope::partial(std::move(found),
                                         {"RESULT_LIMIT_REACHED",
                                          std::to_string(matches) + " notes match; raise limit or narrow the query",
                                          {{"limit", a.limit}, {"matches", matches}}});
    };

    candor::mcp::server srv({.name = "quickstart", .version = "1.0.0"});
    // The argument type comes from the function, the schema from the struct.
    candor::mcp::add_tool(srv,
                          candor::mcp::tool_info("search_notes", "Find notes whose text contains the query.")
                              .with_action(candor::mcp::action_class::read_only)
                              .with_budget({.max_depth = 3, .max_nodes = 50}),
                          search_notes)
        .value();
    // --stdio, tools and check come with candor::core; --http with candor::http (a server for
    // stdio alone leaves `extensions` out and links candor::core only).
    return candor::app::run(srv, argc, argv,
                            {.summary = "Searches 50 notes; a Candor quick start.",
                             .extensions = {std::make_shared<candor::app::http_command_line>()}});
}
