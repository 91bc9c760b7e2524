// SPDX-License-Identifier: BSL-1.0
// Resources over the in-memory transport: listing with paging, templates, reading,
// subscriptions and their notifications, capabilities, and the URI-template rules.
#include <candor/mcp/resource.hpp>

#include "fixture.hpp"

using namespace candor::test;

namespace {

using boost::json::object;

// Contents are built outside the coroutines: GCC 12 mishandles string literals inside them.
mcp::resource_reader fixed(std::vector<mcp::resource_contents> contents) {
    return [contents](const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
        co_return contents;
    };
}

mcp::resource_reader fixed_text(std::string uri, std::string text) {
    return fixed({mcp::resource_contents::of_text(std::move(uri), "text/plain", std::move(text))});
}

std::optional<std::vector<mcp::resource_contents>> note_for(const mcp::resource_request& r) {
    const auto& id = r.variables.at("id");
    if (id == "missing") return std::nullopt;
    return std::vector<mcp::resource_contents>{
        mcp::resource_contents::of_text(r.uri, "text/plain", "note " + id + " for " + r.caller.id)};
}

class Resources : public server_fixture {
protected:
    void SetUp() override {
        server_fixture::SetUp();
        for (const char* name : {"a", "b", "c", "d", "e"}) {
            const std::string uri = std::string("mem://doc/") + name;
            srv.add_resource({uri, name, "", "Document " + std::string(name), "text/plain", {}}, fixed_text(uri, name))
                .value();
        }
        srv.add_resource({"mem://image", "image", "Image", "", "image/png", 4},
                         fixed({mcp::resource_contents::of_blob("mem://image", "image/png", "iVBO")}))
            .value();
        srv.add_resource_template(
               {"mem://notes/{id}", "note", "", "A note by id.", "text/plain"},
               [](const mcp::resource_request& r) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                   co_return note_for(r);
               })
            .value();
        client->initialize();
    }
    boost::json::value read(std::string_view uri) { return client->request("resources/read", object{{"uri", uri}}); }
};

}  // namespace

TEST_F(Resources, ListPagesThroughEveryFixedResourceWithAnOpaqueCursor) {
    mcp::server_options o = test_options(log);
    o.list_page_size = 4;
    mcp::server small(o);
    for (const char* name : {"a", "b", "c", "d", "e", "f"})
        small.add_resource({std::string("mem://") + name, name, "", "", "", {}}, fixed_text("mem://x", "x")).value();
    mcp::memory_client c(small, ioc);
    c.initialize();
    auto first = c.request("resources/list");
    ASSERT_EQ(at(first, "result", "resources").as_array().size(), 4u);
    EXPECT_EQ(at(item(at(first, "result", "resources"), 0), "uri"), "mem://a");
    const auto cursor = at(first, "result", "nextCursor");
    ASSERT_TRUE(cursor.is_string());
    auto second = c.request("resources/list", object{{"cursor", cursor}});
    ASSERT_EQ(at(second, "result", "resources").as_array().size(), 2u);
    EXPECT_EQ(at(item(at(second, "result", "resources"), 1), "uri"), "mem://f");
    EXPECT_FALSE(at(second, "result").as_object().contains("nextCursor"));
    EXPECT_EQ(at(c.request("resources/list", object{{"cursor", "bogus"}}), "error", "code"), -32602);
    // A cursor of another list is not a resources cursor.
    EXPECT_EQ(at(c.request("prompts/list", object{{"cursor", cursor}}), "error", "code"), -32602);
}

TEST_F(Resources, ListEntriesCarryUriNameDescriptionMimeTypeAndSize) {
    auto r = client->request("resources/list");
    const auto listed = at(r, "result", "resources");
    const auto& list = listed.as_array();
    ASSERT_EQ(list.size(), 6u);
    EXPECT_EQ(list[0], boost::json::parse(
                           R"({"uri":"mem://doc/a","name":"a","description":"Document a","mimeType":"text/plain"})"));
    EXPECT_EQ(list[5], boost::json::parse(
                           R"({"uri":"mem://image","name":"image","title":"Image","mimeType":"image/png","size":4})"));
}

TEST_F(Resources, TemplatesAreListedApart) {
    auto r = client->request("resources/templates/list");
    EXPECT_EQ(
        at(r, "result", "resourceTemplates"),
        boost::json::parse(
            R"([{"uriTemplate":"mem://notes/{id}","name":"note","description":"A note by id.","mimeType":"text/plain"}])"));
}

TEST_F(Resources, ReadReturnsTextOrBlobContents) {
    EXPECT_EQ(at(read("mem://doc/b"), "result", "contents"),
              boost::json::parse(R"([{"uri":"mem://doc/b","mimeType":"text/plain","text":"b"}])"));
    EXPECT_EQ(at(read("mem://image"), "result", "contents"),
              boost::json::parse(R"([{"uri":"mem://image","mimeType":"image/png","blob":"iVBO"}])"));
}

TEST_F(Resources, ReadOfATemplateUriGetsItsVariablesAndTheCaller) {
    EXPECT_EQ(at(item(at(read("mem://notes/42"), "result", "contents"), 0), "text"), "note 42 for alice");
}

TEST_F(Resources, UnknownUriIsResourceNotFound) {
    auto r = read("mem://nothing");
    EXPECT_EQ(at(r, "error", "code"), -32002);
    EXPECT_EQ(at(r, "error", "data", "uri"), "mem://nothing");
    // A template that matches but whose reader finds nothing.
    EXPECT_EQ(at(read("mem://notes/missing"), "error", "code"), -32002);
    // Not below the template's single segment.
    EXPECT_EQ(at(read("mem://notes/1/2"), "error", "code"), -32002);
}

TEST_F(Resources, MissingOrInvalidUriIsInvalidParams) {
    EXPECT_EQ(at(client->request("resources/read"), "error", "code"), -32602);
    EXPECT_EQ(at(client->request("resources/read", object{{"uri", 5}}), "error", "code"), -32602);
    EXPECT_EQ(at(read("no scheme"), "error", "code"), -32602);
}

TEST_F(Resources, ReaderThatThrowsIsInternalErrorWithoutDetails) {
    srv.add_resource({"mem://boom", "boom", "", "", "", {}},
                     [](const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                         throw std::runtime_error("secret path /etc/x");
                         co_return std::nullopt;
                     })
        .value();
    auto r = read("mem://boom");
    EXPECT_EQ(at(r, "error", "code"), -32603);
    EXPECT_EQ(boost::json::serialize(r).find("secret"), std::string::npos);
    EXPECT_TRUE(log->contains("secret path"));
}

TEST_F(Resources, SubscribersAndOnlyThemAreToldOfUpdates) {
    EXPECT_EQ(at(client->request("resources/subscribe", object{{"uri", "mem://doc/a"}}), "result"), object{});
    mcp::memory_client other(srv, ioc);
    other.initialize();
    srv.notify_resource_updated("mem://doc/a");
    srv.notify_resource_updated("mem://doc/b");
    client->run_ready();
    other.run_ready();
    auto updates = client->notifications("notifications/resources/updated");
    ASSERT_EQ(updates.size(), 1u);
    EXPECT_EQ(at(updates[0], "params", "uri"), "mem://doc/a");
    EXPECT_TRUE(other.notifications("notifications/resources/updated").empty());

    EXPECT_EQ(at(client->request("resources/unsubscribe", object{{"uri", "mem://doc/a"}}), "result"), object{});
    srv.notify_resource_updated("mem://doc/a");
    client->run_ready();
    EXPECT_EQ(client->notifications("notifications/resources/updated").size(), 1u);
}

TEST_F(Resources, SubscribingToAnUnknownResourceIsNotFoundAndTemplateUrisAreKnown) {
    EXPECT_EQ(at(client->request("resources/subscribe", object{{"uri", "mem://nothing"}}), "error", "code"), -32002);
    EXPECT_EQ(at(client->request("resources/subscribe", object{{"uri", "mem://notes/7"}}), "result"), object{});
}

TEST_F(Resources, SubscriptionsPerConnectionAreBounded) {
    mcp::server_options o = test_options(log);
    o.max_subscriptions = 2;
    mcp::server small(o);
    small
        .add_resource_template(
            {"mem://n/{id}", "n", "", "", ""},
            [](const mcp::resource_request&) -> awaitable<std::optional<std::vector<mcp::resource_contents>>> {
                co_return std::nullopt;
            })
        .value();
    mcp::memory_client c(small, ioc);
    c.initialize();
    EXPECT_TRUE(at(c.request("resources/subscribe", object{{"uri", "mem://n/1"}}), "result").is_object());
    EXPECT_TRUE(at(c.request("resources/subscribe", object{{"uri", "mem://n/2"}}), "result").is_object());
    EXPECT_TRUE(at(c.request("resources/subscribe", object{{"uri", "mem://n/2"}}), "result")
                    .is_object());  // again: no new slot
    EXPECT_EQ(at(c.request("resources/subscribe", object{{"uri", "mem://n/3"}}), "error", "code"), -32602);
}

TEST_F(Resources, AddingOrRemovingAResourceTellsInitializedClients) {
    const auto before = client->notifications("notifications/resources/list_changed").size();
    srv.add_resource({"mem://new", "new", "", "", "", {}}, fixed_text("mem://new", "n")).value();
    EXPECT_TRUE(srv.remove_resource("mem://new"));
    EXPECT_TRUE(srv.remove_resource("mem://notes/{id}"));
    EXPECT_FALSE(srv.remove_resource("mem://new"));
    client->run_ready();
    EXPECT_EQ(client->notifications("notifications/resources/list_changed").size(), before + 3);
    EXPECT_EQ(at(read("mem://notes/1"), "error", "code"), -32002);
}

TEST_F(Resources, CapabilityIsAdvertisedOnlyWhenSomethingIsRegistered) {
    mcp::memory_client fresh(srv, ioc);
    EXPECT_EQ(at(fresh.initialize(), "result", "capabilities", "resources"),
              boost::json::parse(R"({"subscribe":true,"listChanged":true})"));
    mcp::server bare(test_options(log));
    mcp::memory_client none(bare, ioc);
    const auto r = at(none.initialize(), "result", "capabilities");
    EXPECT_FALSE(r.as_object().contains("resources"));
    EXPECT_FALSE(r.as_object().contains("prompts"));
    EXPECT_FALSE(r.as_object().contains("completions"));
}

TEST(ResourceRegistration, ValidatesUrisNamesAndDuplicates) {
    mcp::server srv;
    auto reader = fixed_text("x:y", "");
    EXPECT_EQ(srv.add_resource({"no-scheme", "n", "", "", "", {}}, reader).error(),
              mcp::registration_error::invalid_uri);
    EXPECT_EQ(srv.add_resource({"mem://a", "", "", "", "", {}}, reader).error(), mcp::registration_error::invalid_name);
    EXPECT_EQ(srv.add_resource({"mem://a", "a", "", "", "", {}}, nullptr).error(),
              mcp::registration_error::null_handler);
    EXPECT_TRUE(srv.add_resource({"mem://a", "a", "", "", "", {}}, reader));
    EXPECT_EQ(srv.add_resource({"mem://a", "a2", "", "", "", {}}, reader).error(),
              mcp::registration_error::duplicate_name);
    EXPECT_EQ(srv.add_resource_template({"mem://{a}{b}", "t", "", "", ""}, reader).error(),
              mcp::registration_error::invalid_uri);
    EXPECT_EQ(srv.add_resource_template({"mem://{a", "t", "", "", ""}, reader).error(),
              mcp::registration_error::invalid_uri);
}

TEST(UriTemplate, MatchesLiteralTextAndOneSegmentPerVariable) {
    auto m = mcp::match_uri_template("test://template/{id}/data", "test://template/123/data");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->at("id"), "123");
    EXPECT_FALSE(mcp::match_uri_template("test://template/{id}/data", "test://template//data"));
    EXPECT_FALSE(mcp::match_uri_template("test://template/{id}/data", "test://template/1/2/data"));
    EXPECT_FALSE(mcp::match_uri_template("test://template/{id}/data", "test://template/1/datax"));
    auto two = mcp::match_uri_template("db://{table}/{row}.json", "db://users/7.json");
    ASSERT_TRUE(two);
    EXPECT_EQ(two->at("table"), "users");
    EXPECT_EQ(two->at("row"), "7");
    auto tail = mcp::match_uri_template("file:///{name}", "file:///notes.txt");
    ASSERT_TRUE(tail);
    EXPECT_EQ(tail->at("name"), "notes.txt");
    EXPECT_FALSE(mcp::match_uri_template("file:///{name}", "file:///"));
}
