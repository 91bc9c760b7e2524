// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/oauth.hpp>

#include "auth/doc_server.hpp"
#include "auth/support.hpp"
#include "transport/http_client.hpp"

#include <candor/http/server.hpp>
#include <candor/mcp/memory_transport.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>

#include <gtest/gtest.h>

namespace {

namespace auth = candor::auth;
namespace mcp = candor::mcp;
namespace http = boost::beast::http;
using candor::test::access_claims;
using candor::test::signing_key;

constexpr const char* both = "application/json, text/event-stream";
constexpr const char* resource = "http://localhost/mcp";

std::string initialize_body() {
    return R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
}
std::string call_body(int id, const std::string& tool) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":{}}})";
}

// A tool that answers with what it knows of its caller.
std::shared_ptr<mcp::tool_handler> whoami(std::string name, std::vector<std::string> scopes) {
    return mcp::make_tool(
        mcp::tool_info(std::move(name), "Says who calls.")
            .with_scopes(std::move(scopes))
            .with_action(mcp::action_class::read_only),
        [](const boost::json::object&, mcp::call_context& ctx) -> boost::asio::awaitable<candor::envelope::envelope> {
            boost::json::array granted;
            if (ctx.caller().credential)
                for (const auto& s : ctx.caller().credential->scopes) granted.emplace_back(s);
            co_return candor::envelope::complete(
                boost::json::object{{"id", ctx.caller().id}, {"scopes", std::move(granted)}});
        });
}

// An authorization server (metadata and keys over HTTP on loopback), a Candor server with
// OAuth over the real HTTP transport, and tokens minted with the server's keys.
struct OAuthServer : ::testing::Test {
    candor::test::doc_server as;
    signing_key key = signing_key::generate("k1", "ES256");
    std::string issuer = as.url();
    mcp::server srv{{.name = "oauth-test", .log = {}}};
    std::shared_ptr<auth::oauth_authenticator> oauth;
    std::unique_ptr<candor::transport::http_server> http;

    OAuthServer() {
        as.set("/.well-known/openid-configuration", 200,
               R"({"issuer":")" + issuer + R"(","jwks_uri":")" + issuer + R"(/jwks"})");
        publish({&key});
        srv.add_tool(whoami("whoami", {})).value();
        srv.add_tool(whoami("archive", {"tickets:archive"})).value();
    }
    ~OAuthServer() override {
        if (http) http->stop();
    }

    void publish(std::initializer_list<const signing_key*> keys) { as.set("/jwks", 200, candor::test::jwks_of(keys)); }

    void start(auth::oauth_options o = {}) {
        o.issuer = issuer;
        o.resource = resource;
        o.scopes = {"mcp:tools"};
        o.fetch.timeout = std::chrono::milliseconds(2000);
        auto made = auth::make_oauth(srv, std::move(o));
        ASSERT_TRUE(made) << made.error();
        oauth = *made;
        candor::transport::http_options h;
        h.threads = 2;
        h.authenticator = oauth;
        http = std::make_unique<candor::transport::http_server>(srv, std::move(h));
        ASSERT_TRUE(http->start());
        load_error = load_keys();
    }

    // What the standard command line does before serving.
    std::string load_keys() {
        boost::asio::io_context ioc;
        auto loaded = boost::asio::co_spawn(ioc, oauth->load_keys(), boost::asio::use_future);
        ioc.run();
        auto r = loaded.get();
        return r ? std::string() : r.error();
    }
    std::string load_error;

    std::string token(const std::string& scope, const signing_key* with = nullptr) const {
        auto claims = access_claims("alice", scope);
        claims["iss"] = issuer;
        claims["aud"] = resource;
        return (with ? *with : key).token(claims);
    }

    candor::test::http_reply post(const std::string& body, const std::string& bearer,
                                  const std::string& session = {}) const {
        std::map<std::string, std::string> h{{"Content-Type", "application/json"}, {"Accept", both}};
        if (!bearer.empty()) h["Authorization"] = "Bearer " + bearer;
        if (!session.empty()) h["Mcp-Session-Id"] = session;
        return candor::test::http_fetch(http->port(), http::verb::post, "/mcp", h, body);
    }
    candor::test::http_reply get(const std::string& target, http::verb verb = http::verb::get) const {
        return candor::test::http_fetch(http->port(), verb, target);
    }
    static std::string code_of(const candor::test::http_reply& r) {
        return std::string(boost::json::parse(r.body).at("error").at("data").at("code").as_string());
    }
};

TEST_F(OAuthServer, WithoutATokenTheAnswerIs401PointingToTheMetadataAndTheScopes) {
    start();
    const auto r = post(initialize_body(), "");
    EXPECT_EQ(r.status, 401u);
    EXPECT_EQ(code_of(r), "UNAUTHORIZED");
    EXPECT_EQ(
        r.header("WWW-Authenticate"),
        R"(Bearer scope="mcp:tools", resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp")");
}

TEST_F(OAuthServer, TheMetadataIsServedAtBothWellKnownPathsToAnyone) {
    start();
    for (const char* path : {"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}) {
        const auto r = get(path);
        ASSERT_EQ(r.status, 200u) << path;
        EXPECT_EQ(r.header("Access-Control-Allow-Origin"), "*");
        const auto m = boost::json::parse(r.body).as_object();
        EXPECT_EQ(m.at("resource"), resource);
        EXPECT_EQ(m.at("authorization_servers"), boost::json::array{boost::json::value(issuer)});
        EXPECT_EQ(m.at("scopes_supported"), boost::json::array{"mcp:tools"});
        EXPECT_EQ(m.at("bearer_methods_supported"), boost::json::array{"header"});
    }
    EXPECT_EQ(get("/.well-known/oauth-protected-resource", http::verb::options).status, 204u);
    EXPECT_EQ(get("/.well-known/oauth-protected-resource", http::verb::post).status, 405u);
    EXPECT_EQ(get("/.well-known/oauth-protected-resource/other").status, 404u);
}

TEST_F(OAuthServer, KeysAreDiscoveredThroughTheIssuersMetadataAndAValidTokenReachesTheTool) {
    start();
    EXPECT_EQ(load_error, "");
    // The RFC 8414 location first (404 here), then OpenID Connect Discovery.
    EXPECT_EQ(as.hits("/.well-known/oauth-authorization-server"), 1);
    EXPECT_EQ(as.hits("/.well-known/openid-configuration"), 1);
    const auto t = token("mcp:tools");
    const auto init = post(initialize_body(), t);
    ASSERT_EQ(init.status, 200u) << init.body;
    const auto session = init.header("Mcp-Session-Id");
    const auto call = post(call_body(2, "whoami"), t, session);
    ASSERT_EQ(call.status, 200u) << call.body;
    const auto data = boost::json::parse(call.body).at("result").at("structuredContent").at("data");
    EXPECT_EQ(data.at("id"), "alice");
    EXPECT_EQ(as.hits("/jwks"), 1);
    EXPECT_EQ(oauth->key_fetches(), 1u);
}

TEST_F(OAuthServer, RefusedTokensAre401WithTheirCodeAndNeverEchoed) {
    start();
    auto expired = access_claims("alice", "mcp:tools");
    expired["iss"] = issuer;
    expired["aud"] = resource;
    expired["exp"] = candor::test::epoch_seconds(std::chrono::system_clock::now()) - 3600;
    auto foreign = access_claims("alice", "mcp:tools");
    foreign["iss"] = issuer;
    foreign["aud"] = "http://localhost/other";
    auto elsewhere = access_claims("alice", "mcp:tools");
    elsewhere["aud"] = resource;  // iss: another issuer
    const auto impostor = signing_key::generate("k1", "ES256");
    const std::vector<std::pair<std::string, std::string>> cases{
        {key.token(expired), "TOKEN_EXPIRED"},
        {key.token(foreign), "TOKEN_AUDIENCE_MISMATCH"},
        {key.token(elsewhere), "TOKEN_ISSUER_MISMATCH"},
        {token("mcp:tools", &impostor), "TOKEN_SIGNATURE_INVALID"},
        {"abc.def", "TOKEN_MALFORMED"},
    };
    for (const auto& [t, code] : cases) {
        const auto r = post(initialize_body(), t);
        EXPECT_EQ(r.status, 401u) << code;
        EXPECT_EQ(code_of(r), code);
        EXPECT_NE(r.header("WWW-Authenticate").find(R"(error="invalid_token")"), std::string::npos);
        EXPECT_EQ(r.body.find(t), std::string::npos);
        EXPECT_EQ(r.header("WWW-Authenticate").find(t), std::string::npos);
    }
}

TEST_F(OAuthServer, ATokenWithoutTheScopesEveryCallNeedsIs403) {
    start();
    const auto r = post(initialize_body(), token("profile"));
    EXPECT_EQ(r.status, 403u);
    EXPECT_EQ(code_of(r), "INSUFFICIENT_SCOPE");
    EXPECT_NE(r.header("WWW-Authenticate").find(R"(Bearer error="insufficient_scope", scope="mcp:tools")"),
              std::string::npos)
        << r.header("WWW-Authenticate");
}

TEST_F(OAuthServer, AToolsScopesAre403UntilTheClientStepsUpOnTheSameSession) {
    start();
    const auto narrow = token("mcp:tools");
    const auto init = post(initialize_body(), narrow);
    const auto session = init.header("Mcp-Session-Id");
    const auto refused = post(call_body(2, "archive"), narrow, session);
    EXPECT_EQ(refused.status, 403u);
    EXPECT_EQ(code_of(refused), "INSUFFICIENT_SCOPE");
    // Every scope the call needs, in one challenge.
    EXPECT_NE(refused.header("WWW-Authenticate").find(R"(scope="mcp:tools tickets:archive")"), std::string::npos)
        << refused.header("WWW-Authenticate");
    const auto wide = token("mcp:tools tickets:archive");
    const auto call = post(call_body(3, "archive"), wide, session);
    ASSERT_EQ(call.status, 200u) << call.body;
    const auto scopes = boost::json::parse(call.body).at("result").at("structuredContent").at("data").at("scopes");
    EXPECT_EQ(scopes, (boost::json::array{"mcp:tools", "tickets:archive"}));
    // The narrow token still works for what it grants; the session is the same principal's.
    EXPECT_EQ(post(call_body(4, "whoami"), narrow, session).status, 200u);
}

TEST_F(OAuthServer, ARotatedKeyIsPickedUpWithOneFetchAndForgedKidsCannotMakeMore) {
    start();
    ASSERT_EQ(post(initialize_body(), token("mcp:tools")).status, 200u);
    ASSERT_EQ(as.hits("/jwks"), 1);
    const auto next = signing_key::generate("k2", "ES256");
    publish({&next, &key});
    const auto rotated = post(initialize_body(), token("mcp:tools", &next));
    EXPECT_EQ(rotated.status, 200u) << rotated.body;
    EXPECT_EQ(as.hits("/jwks"), 2);
    // Within the refetch interval, unknown kids are refused without asking the issuer again.
    for (int i = 0; i < 20; ++i) {
        const auto forged = signing_key::generate("forged-" + std::to_string(i), "ES256");
        const auto r = post(initialize_body(), token("mcp:tools", &forged));
        EXPECT_EQ(r.status, 401u);
        EXPECT_EQ(code_of(r), "TOKEN_KEY_UNKNOWN");
    }
    EXPECT_EQ(as.hits("/jwks"), 2);
    EXPECT_EQ(oauth->key_fetches(), 2u);
}

TEST_F(OAuthServer, UnreachableKeysAre503WithRetryAfterAndTheIssuerIsNotHammered) {
    as.set("/jwks", 500, "{}");
    start();
    for (int i = 0; i < 5; ++i) {
        const auto r = post(initialize_body(), token("mcp:tools"));
        EXPECT_EQ(r.status, 503u);
        EXPECT_EQ(code_of(r), "AUTHORIZATION_SERVER_UNAVAILABLE");
        EXPECT_FALSE(r.header("Retry-After").empty());
    }
    EXPECT_NE(load_error.find("HTTP 500"), std::string::npos) << load_error;
    // The load at startup and one retry on demand; nothing more within the refetch interval.
    EXPECT_EQ(as.hits("/jwks"), 2);
}

TEST_F(OAuthServer, KeysFromADocumentAreNeverFetched) {
    auth::oauth_options o;
    o.jwks_document = candor::test::jwks_of({&key});
    start(std::move(o));
    EXPECT_EQ(post(initialize_body(), token("mcp:tools")).status, 200u);
    const auto other = signing_key::generate("k9", "ES256");
    EXPECT_EQ(code_of(post(initialize_body(), token("mcp:tools", &other))), "TOKEN_KEY_UNKNOWN");
    EXPECT_EQ(as.hits("/jwks") + as.hits("/.well-known/openid-configuration"), 0);
}

TEST_F(OAuthServer, LoadingKeysAtStartupReportsWhyItFailed) {
    as.set("/.well-known/openid-configuration", 200, R"({"issuer":"https://elsewhere.example.com","jwks_uri":"x"})");
    start();
    EXPECT_NE(load_error.find("not metadata of issuer"), std::string::npos) << load_error;
    EXPECT_EQ(as.hits("/jwks"), 0);
}

TEST(OAuthOptions, InsecureOrIncompleteSettingsAreRefusedWithAReason) {
    mcp::server srv;
    const auto refused = [&](auth::oauth_options o) {
        auto r = auth::make_oauth(srv, std::move(o));
        return r ? std::string() : r.error();
    };
    EXPECT_NE(refused({.issuer = "", .resource = resource}).find("issuer"), std::string::npos);
    EXPECT_NE(refused({.issuer = "http://idp.example.com", .resource = resource}).find("https"), std::string::npos);
    EXPECT_NE(refused({.issuer = "https://idp.example.com", .resource = "mcp.example.com"}).find("resource"),
              std::string::npos);
    EXPECT_NE(
        refused({.issuer = "https://idp.example.com", .resource = "https://mcp.example.com/mcp#x"}).find("fragment"),
        std::string::npos);
    EXPECT_NE(refused({.issuer = "https://idp.example.com", .resource = resource, .scopes = {"a\"b"}}).find("scope"),
              std::string::npos);
    EXPECT_NE(refused({.issuer = "https://idp.example.com", .resource = resource, .jwks_document = "{}"}).find("JWKS"),
              std::string::npos);
    EXPECT_EQ(refused({.issuer = "https://idp.example.com", .resource = resource}), "");
    EXPECT_EQ(auth::resource_metadata_url("https://mcp.example.com"),
              "https://mcp.example.com/.well-known/oauth-protected-resource");
    EXPECT_EQ(auth::resource_metadata_url("https://mcp.example.com:8443/a/mcp"),
              "https://mcp.example.com:8443/.well-known/oauth-protected-resource/a/mcp");
}

TEST(Fetch, TheDeadlineWinsOverAServerThatNeverAnswers) {
    candor::test::doc_server silent;
    silent.go_silent();
    auto f = *auth::fetcher::create({.timeout = std::chrono::milliseconds(200)});
    boost::asio::io_context ioc;
    const auto started = std::chrono::steady_clock::now();
    auto got = boost::asio::co_spawn(ioc, f->get(silent.url() + "/slow"), boost::asio::use_future);
    ioc.run();
    const auto r = got.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), auth::fetch_error::timeout);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(Fetch, BodiesOverTheLimitAndInsecureUrlsAreRefused) {
    candor::test::doc_server docs;
    docs.set("/big", 200, std::string(2000, 'x'));
    docs.set("/small", 200, "{}");
    auto f = *auth::fetcher::create({.max_body_bytes = 1000});
    const auto fetch = [&](std::string url) {
        boost::asio::io_context ioc;
        auto got = boost::asio::co_spawn(ioc, f->get(std::move(url)), boost::asio::use_future);
        ioc.run();
        return got.get();
    };
    EXPECT_EQ(fetch(docs.url() + "/big").error(), auth::fetch_error::too_large);
    const auto small = fetch(docs.url() + "/small");
    ASSERT_TRUE(small);
    EXPECT_EQ(small->status, 200u);
    EXPECT_EQ(small->body, "{}");
    EXPECT_EQ(fetch("http://example.com/jwks").error(), auth::fetch_error::insecure_url);
    EXPECT_EQ(fetch("ftp://127.0.0.1/jwks").error(), auth::fetch_error::invalid_url);
    EXPECT_FALSE(auth::secure_or_loopback("http://10.0.0.1/x"));
    EXPECT_TRUE(auth::secure_or_loopback("https://10.0.0.1/x"));
}

// Over any transport, a caller with a credential that lacks a tool's scopes is refused before
// the arguments are looked at; tools/list shows the scopes to everyone.
TEST(ToolScopes, ACredentialWithoutTheToolsScopesGetsInsufficientScopeBeforeTheContract) {
    mcp::server srv;
    srv.add_tool(whoami("archive", {"tickets:archive"})).value();
    auto cred = std::make_shared<mcp::credential>();
    cred->scopes = {"mcp:tools"};
    boost::asio::io_context ioc;
    mcp::memory_client client(srv, ioc, {.caller = {"alice", cred}});
    client.initialize();
    const auto listed = client.request("tools/list").at("result").at("tools").at(0);
    EXPECT_EQ(listed.at("_meta").at("candor/requiredScopes"), boost::json::array{"tickets:archive"});
    // Arguments the contract would refuse: the scope comes first.
    const auto r = client.request("tools/call", {{"name", "archive"}, {"arguments", {{"bogus", 1}}}});
    const auto& result = r.at("result");
    EXPECT_EQ(result.at("isError"), true);
    const auto& error = result.at("structuredContent").at("errors").at(0);
    EXPECT_EQ(error.at("code"), "INSUFFICIENT_SCOPE");
    EXPECT_EQ(error.at("missing_scopes"), boost::json::array{"tickets:archive"});
    // Without a credential (stdio, static tokens) scopes do not apply.
    mcp::memory_client anonymous(srv, ioc);
    anonymous.initialize();
    EXPECT_EQ(anonymous.request("tools/call", {{"name", "archive"}}).at("result").at("isError"), false);
}

}  // namespace
