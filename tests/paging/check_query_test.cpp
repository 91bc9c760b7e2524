// SPDX-License-Identifier: BSL-1.0
// collection_options::check_query: a collection's own query rules run before any cursor is
// opened or anything read, and their issues are the error envelope.
#include <candor/paging/collection.hpp>

#include "paging/support.hpp"

using namespace candor::test;

namespace {

void refuse_group_x(pg::collection_options& o) {
    o.check_query = [](const boost::json::object& query) {
        candor::issue_list out;
        if (const auto* g = query.if_contains("group"); g && *g == "x") {
            candor::issue i;
            i.code = "GROUP_UNKNOWN";
            i.path = "/group";
            i.message = "there is no group 'x'";
            out.push_back(std::move(i));
        }
        return out;
    };
}

}  // namespace

TEST(CollectionCheckQuery, IssuesAreAnErrorEnvelopeWithTheirPaths) {
    collection_harness h(pg::snapshot_mode::pinned, refuse_group_x);
    h.fill(5);
    const auto env = h.page({{"group", "x"}});
    EXPECT_EQ(at(env, "status"), "error");
    EXPECT_EQ(first_error_code(env), "GROUP_UNKNOWN");
    EXPECT_EQ(at(at(env, "errors").as_array()[0], "path"), "/group");
}

TEST(CollectionCheckQuery, RunsBeforeTheCursorIsOpened) {
    collection_harness h(pg::snapshot_mode::pinned, refuse_group_x);
    h.fill(5);
    // A garbage cursor would be CURSOR_INVALID; the query's own issue speaks first.
    const auto env = h.page({{"group", "x"}, {"cursor", "not-a-cursor"}});
    EXPECT_EQ(first_error_code(env), "GROUP_UNKNOWN");
}

TEST(CollectionCheckQuery, AcceptedQueriesPageAsUsual) {
    collection_harness h(pg::snapshot_mode::pinned, refuse_group_x);
    h.fill(2);
    const auto env = h.page({{"group", "g"}});
    EXPECT_EQ(at(env, "status"), "complete");
    EXPECT_EQ(at(env, "data").as_array().size(), 2u);
}
