#include <candor/paging/typed_source.hpp>

#include "paging/support.hpp"

#include <boost/describe/class.hpp>

#include <algorithm>

namespace typed_items {

struct account {
    std::string id;
    std::string team;
    int age_days = 0;
};
BOOST_DESCRIBE_STRUCT(account, (), (id, team, age_days))

// A typed keyset source over a sorted vector.
struct accounts final : candor::paging::typed_source<account> {
    std::vector<account> rows;
    std::string_view name() const noexcept override { return "accounts"; }
    candor::paging::snapshot_mode snapshots() const noexcept override { return candor::paging::snapshot_mode::live; }
    boost::asio::awaitable<boost::system::result<candor::paging::typed_page<account>, candor::paging::source_error>>
    fetch_items(const candor::paging::fetch_request& r) override {
        candor::paging::typed_page<account> out;
        auto it = rows.begin();
        if (r.after)
            it = std::upper_bound(rows.begin(), rows.end(), std::string_view(r.after->at(0).as_string()),
                                  [](std::string_view k, const account& a) { return k < a.id; });
        for (; it != rows.end() && out.items.size() < r.limit; ++it) out.items.push_back(*it);
        co_return out;
    }
};

}  // namespace typed_items

using namespace candor::test;

TEST(TypedSource, TypedItemsArePagedAsJsonObjects) {
    collection_harness h;
    auto src = std::make_shared<typed_items::accounts>();
    for (int i = 1; i <= 5; ++i) src->rows.push_back({"svc-00" + std::to_string(i), "team-a", i * 10});
    pg::collection_options o;
    o.keys = h.keys;
    o.default_page_size = 3;
    h.srv->add_tool(std::make_shared<pg::collection_tool>(mcp::tool_info("accounts", "Accounts."), pg::ordering{{"id"}},
                                                          src, o))
        .value();
    auto first = h.call("accounts", {});
    ASSERT_EQ(at(first, "data").as_array().size(), 3u);
    EXPECT_EQ(at(at(first, "data").as_array()[0], "age_days"), 10);
    auto rest = h.call("accounts", {{"cursor", at(first, "continuation", "cursor")}});
    EXPECT_EQ(at(rest, "complete"), true);
    EXPECT_EQ(at(at(rest, "data").as_array()[1], "id"), "svc-005");
}
