// SPDX-License-Identifier: BSL-1.0
// books: 30 books in an in-memory SQLite table, mounted as the collection tool `search_books`
// (filter language, keyset pages over a pinned snapshot, snapshot tokens in a SQLite evidence
// store), with the standard command line and --http. Built against an installed Candor.
#include <candor/app/command_line.hpp>
#include <candor/http/command_line.hpp>
#include <candor/keys/command_line.hpp>
#include <candor/mcp/server.hpp>
#include <candor/sql_collection/collection.hpp>
#include <candor/state/sqlite_evidence_store.hpp>

#include <memory>
#include <string>
#include <vector>

namespace sc = candor::sql_collection;

int main(int argc, char** argv) {
    const sc::table_spec books{.table = "books",
                               .fields = {{.name = "id", .type = sc::field_type::integer},
                                          {.name = "title", .description = "The book's title"},
                                          {.name = "year", .type = sc::field_type::integer}},
                               .key = "id"};
    auto db = sc::open_sqlite(":memory:").value();
    sc::create_table(*db, books).value();
    std::vector<boost::json::object> rows;
    for (int i = 1; i <= 30; ++i)
        rows.push_back({{"id", i}, {"title", "Book " + std::to_string(i)}, {"year", 1990 + i}});
    sc::insert_rows(*db, books, rows).value();

    candor::mcp::server srv({.name = "books", .version = "1.0.0"});
    auto keys = std::make_shared<candor::keys::command_line>();
    const auto add_books = [&] {
        candor::paging::collection_options paging;
        paging.default_page_size = 10;
        paging.keys = keys->ring();
        paging.evidence = candor::state::open_sqlite_store(":memory:").value();
        return srv
            .add_tool(sc::make_collection(
                db, {.table = books}, candor::mcp::tool_info("search_books", "Search the books."), std::move(paging)))
            .has_value();
    };
    return candor::app::run(srv, argc, argv,
                            {.summary = "30 books as a collection tool; a consumer of an installed Candor.",
                             .prepare = add_books,
                             .extensions = {std::make_shared<candor::app::http_command_line>(), keys}});
}
