// SPDX-License-Identifier: BSL-1.0
// The client's OAuth against Candor's own resource server (JWT access tokens checked with the
// issuer's keys, a scope per tool) and an authorization server in the test: discovery from the
// 401, registration, the authorization code with PKCE and the resource indicator, a step-up on
// 403, a refresh instead of a second consent, and the refusals (a resource that is not the
// server, an iss that is not the issuer) before any code is spent. And the pure rules: the
// challenge's parameters, which resource covers which server, the metadata URLs in order.
#include "cli/cli.hpp"
#include "client/authorization_server.hpp"
#include "client/client_support.hpp"

#include <candor/client/oauth.hpp>
#include <candor/envelope/envelope.hpp>
#include <candor/http/auth/oauth.hpp>

namespace candor::test {
namespace {

using boost::json::object;

// A tool that answers with the scopes its caller's token grants.
std::shared_ptr<mcp::tool_handler> scoped_tool(std::string name, std::vector<std::string> scopes) {
    return mcp::make_tool(mcp::tool_info(std::move(name), "Says what the caller may do.")
                              .with_scopes(std::move(scopes))
                              .with_action(mcp::action_class::read_only),
                          [](const object&, mcp::call_context& ctx) -> net::awaitable<envelope::envelope> {
                              boost::json::array granted;
                              if (ctx.caller().credential)
                                  for (const auto& s : ctx.caller().credential->scopes) granted.emplace_back(s);
                              co_return envelope::complete(object{{"scopes", std::move(granted)}});
                          });
}

// The resource server's OAuth, made once the server's port (part of its resource) is known.
struct late_authenticator : transport::authenticator {
    std::shared_ptr<auth::oauth_authenticator> inner;
    net::awaitable<transport::auth_outcome> authenticate(std::string_view authorization) override {
        co_return co_await inner->authenticate(authorization);
    }
    std::optional<transport::auth_refusal> authorize(const mcp::principal& who,
                                                     const jsonrpc::request& request) const override {
        return inner->authorize(who, request);
    }
    std::optional<transport::admin_response> serve_public(const transport::admin_request& request) const override {
        return inner->serve_public(request);
    }
};

// A Candor server behind OAuth (`notes` needs the scope every request needs, `archive` one more)
// and the authorization server it trusts.
struct ClientOAuth : ::testing::Test {
    authorization_server as;
    mcp::server srv{mcp::server_options{.name = "notes", .log = {}}};
    std::shared_ptr<late_authenticator> gate = std::make_shared<late_authenticator>();
    std::unique_ptr<transport::http_server> http;

    ClientOAuth() {
        srv.add_tool(scoped_tool("notes", {})).value();
        srv.add_tool(scoped_tool("archive", {"notes:archive"})).value();
        transport::http_options h;
        h.threads = 1;
        h.authenticator = gate;
        http = std::make_unique<transport::http_server>(srv, std::move(h));
        EXPECT_TRUE(http->start());
        serve_as(url());
    }
    ~ClientOAuth() override { http->stop(); }

    std::string url() const { return "http://127.0.0.1:" + std::to_string(http->port()) + "/mcp"; }

    // The resource server says it is `resource` (the server's own URL, unless a test lies).
    void serve_as(const std::string& resource) {
        auth::oauth_options o;
        o.issuer = as.issuer();
        o.resource = resource;
        o.scopes = {"mcp:tools"};
        auto made = auth::make_oauth(srv, std::move(o));
        ASSERT_TRUE(made) << made.error();
        gate->inner = *made;
    }

    // The browser, headless: the authorization server consents at once; its redirect is the answer.
    static std::shared_ptr<cc::oauth_client> oauth() {
        cc::oauth_options o;
        o.redirect_uri = "http://127.0.0.1:33418/callback";
        o.authorize = [](std::string url) -> net::awaitable<boost::system::result<std::string, cc::client_error>> {
            static const auto browser = *auth::fetcher::create();
            auto r = co_await browser->get(std::move(url));
            if (!r || r->status != 302) {
                cc::client_error e;
                e.code = "NO_REDIRECT";
                co_return e;
            }
            co_return r->location;
        };
        auto made = cc::oauth_client::create(std::move(o));
        EXPECT_TRUE(made);
        return made ? *made : nullptr;
    }

    cc::endpoint where(std::shared_ptr<cc::oauth_client> auth) const {
        auto e = cc::endpoint::of_url(url());
        e.oauth = std::move(auth);
        return e;
    }

    // The scopes the `name` tool's caller was granted, as the tool saw them.
    static std::string granted(const cc::tool_result& r) {
        std::string out;
        for (const auto& s : r.structured.at("data").at("scopes").as_array()) out += std::string(s.as_string()) + " ";
        return out;
    }
};

TEST_F(ClientOAuth, A401IsAuthorizedAgainstAndAStepUpAsksForTheUnionOfScopes) {
    auto auth = oauth();
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where(auth));
        EXPECT_TRUE(s) << s.error().code << " " << s.error().detail << ": " << s.error().message;
        if (!s) co_return;
        auto notes = co_await (*s)->call_tool("notes", object{});
        EXPECT_TRUE(notes) << notes.error().code << " " << notes.error().message;
        if (notes) {
            EXPECT_EQ(granted(*notes), "mcp:tools ");
        }
        // archive needs one more scope: 403 insufficient_scope, then a second authorization.
        auto archive = co_await (*s)->call_tool("archive", object{});
        EXPECT_TRUE(archive) << archive.error().code << " " << archive.error().detail << ": "
                             << archive.error().message;
        if (archive) {
            EXPECT_EQ(granted(*archive), "mcp:tools notes:archive ");
        }
        co_await (*s)->close();
    });
    const auto asked = as.authorizations();
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_EQ(as.registrations(), 1);  // the registration is kept for the issuer
    EXPECT_EQ(asked[0].scope, "mcp:tools");
    EXPECT_EQ(asked[1].scope, "mcp:tools notes:archive");  // every scope the call needs, as challenged
    for (const auto& a : asked) {
        EXPECT_EQ(a.resource, url());  // RFC 8707: exactly the resource the metadata publishes
        EXPECT_EQ(a.method, "S256");
        EXPECT_EQ(a.client_id, "client-1");
    }
    EXPECT_EQ(as.grants("authorization_code"), 2);  // each verifier matched its challenge
    EXPECT_EQ(auth->issuer(), as.issuer());
}

// A port no one listens on now (the listener binds it again; a collision is retried by the test).
unsigned short unused_port() {
    net::io_context ioc;
    net::ip::tcp::acceptor a(ioc, {net::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

TEST_F(ClientOAuth, TheBrowserComesBackToTheLoopbackRedirectURI) {
    std::string shown;
    std::optional<boost::system::result<cc::tool_result, cc::client_error>> called;
    for (int attempt = 0;
         attempt < 3 && (!called || (!*called && called->error().message.find("cannot listen") != std::string::npos));
         ++attempt) {
        const auto redirect = "http://127.0.0.1:" + std::to_string(unused_port()) + "/callback";
        cc::oauth_options o;
        o.redirect_uri = redirect;
        run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
            // The user's browser: follows the authorization server's redirect to the listener,
            // which answers it with a page.
            const auto browse = [ex](std::string url) -> net::awaitable<void> {
                static const auto browser = *auth::fetcher::create();
                auto consent = co_await browser->get(std::move(url));
                EXPECT_TRUE(consent && consent->status == 302);
                if (!consent) co_return;
                auto back = co_await browser->get(consent->location);
                EXPECT_TRUE(back && back->status == 200 && back->body.find("close this window") != std::string::npos);
            };
            o.authorize = cc::loopback_authorization(
                redirect,
                [&, ex](const std::string& url) {
                    shown = url;
                    net::co_spawn(ex, browse(url), net::detached);
                },
                std::chrono::seconds(20));
            auto auth = cc::oauth_client::create(o);
            auto s = co_await cc::session::open(ex, where(*auth));
            if (!s) {
                called = s.error();
                co_return;
            }
            called = co_await (*s)->call_tool("notes", object{});
            co_await (*s)->close();
        });
    }
    ASSERT_TRUE(called && *called) << (called ? called->error().code + " " + called->error().message : "");
    EXPECT_EQ(shown.rfind(as.issuer() + "/authorize?", 0), 0u) << shown;
    EXPECT_EQ(as.grants("authorization_code"), 1);
}

// `candor call --oauth`: the command prints the authorization URL and listens for the browser;
// the test is the browser.
TEST_F(ClientOAuth, TheCommandLineAuthorizesThroughTheUsersBrowser) {
    std::string out, shown;
    int status = -1;
    // The port was free a moment ago; taken meanwhile, another is tried.
    for (int attempt = 0; attempt < 3 && (attempt == 0 || out.find("cannot listen on") != std::string::npos);
         ++attempt) {
        out.clear();
        shown.clear();
        const auto redirect = "http://127.0.0.1:" + std::to_string(unused_port()) + "/cb";
        const auto command = "env -u BROWSER " + candor_cli() + " call --url " + url() + " --oauth --oauth-redirect " +
                             redirect + " notes '{}' 2>&1";
        std::FILE* p = ::popen(command.c_str(), "r");
        ASSERT_NE(p, nullptr);
        std::array<char, 8192> line{};
        const std::string prompt = "to authorize, open ";
        while (std::fgets(line.data(), line.size(), p)) {
            out += line.data();
            if (auto at = out.find(prompt); at != std::string::npos && shown.empty()) {
                shown = out.substr(at + prompt.size());
                shown = shown.substr(0, shown.find('\n'));
                run_client([&](net::any_io_executor) -> net::awaitable<void> {
                    auto browser = *auth::fetcher::create();
                    auto consent = co_await browser->get(shown);
                    EXPECT_TRUE(consent && consent->status == 302);
                    if (consent) (void)co_await browser->get(consent->location);
                });
            }
        }
        status = ::pclose(p);
    }
    EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << out;
    EXPECT_EQ(shown.rfind(as.issuer() + "/authorize?", 0), 0u) << out;
    EXPECT_NE(out.find(R"("scopes":["mcp:tools"])"), std::string::npos) << out;
}

TEST_F(ClientOAuth, ARedirectURIThatIsNotLoopbackIsNotListenedOn) {
    auto handler = cc::loopback_authorization("http://example.com:8080/callback", [](const std::string&) {});
    run_client([&](net::any_io_executor) -> net::awaitable<void> {
        auto r = co_await handler("http://as.example/authorize");
        EXPECT_FALSE(r);
        if (!r) {
            EXPECT_EQ(r.error().detail, "AUTHORIZATION_DECLINED");
        }
    });
}

TEST_F(ClientOAuth, ATokenRefusedLaterIsRenewedWithTheRefreshTokenNotASecondConsent) {
    as.set({.first_token_expired = true});
    auto auth = oauth();
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where(auth));
        EXPECT_TRUE(s) << s.error().code << " " << s.error().detail << ": " << s.error().message;
        if (s) co_await (*s)->close();
    });
    EXPECT_EQ(as.authorizations().size(), 1u);
    EXPECT_EQ(as.grants("authorization_code"), 1);
    EXPECT_EQ(as.grants("refresh_token"), 1);
}

TEST_F(ClientOAuth, ARegistrationTheServerForgotIsMadeAgainNextTime) {
    as.set({.forget_first_client = true});
    auto auth = oauth();
    std::vector<std::string> outcomes;
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        for (int i = 0; i < 2; ++i) {
            auto s = co_await cc::session::open(ex, where(auth));
            if (!s) {
                outcomes.push_back(s.error().detail);
                continue;
            }
            outcomes.push_back("open");
            co_await (*s)->close();
        }
    });
    EXPECT_EQ(outcomes, (std::vector<std::string>{"TOKEN_REFUSED", "open"}));
    EXPECT_EQ(as.registrations(), 2);
}

TEST_F(ClientOAuth, AResourceThatIsNotTheServerIsRefusedBeforeAnyAuthorization) {
    // Its metadata is served (beside the server), and names another resource on the same origin.
    serve_as("http://127.0.0.1:" + std::to_string(http->port()) + "/elsewhere");
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where(oauth()));
        EXPECT_FALSE(s);
        if (s) co_return;
        EXPECT_EQ(s.error().code, "AUTHORIZATION_FAILED");
        EXPECT_EQ(s.error().detail, "RESOURCE_MISMATCH");
    });
    EXPECT_TRUE(as.authorizations().empty());
    EXPECT_EQ(as.registrations(), 0);
}

TEST_F(ClientOAuth, AnAuthorizationResponseFromAnotherIssuerIsRefusedAndItsCodeNeverSpent) {
    // A trailing slash is another issuer too: no normalisation before the comparison.
    for (const auto& wrong : {std::string("https://evil.example.com"), as.issuer() + "/"}) {
        as.set({.iss_override = wrong});
        run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
            auto s = co_await cc::session::open(ex, where(oauth()));
            EXPECT_FALSE(s);
            if (s) co_return;
            EXPECT_EQ(s.error().code, "AUTHORIZATION_FAILED");
            EXPECT_EQ(s.error().detail, "ISS_MISMATCH") << wrong;
        });
    }
    // The server says it sends iss; a response without it is refused as well.
    as.set({.send_iss = false});
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, where(oauth()));
        EXPECT_FALSE(s);
        if (s) co_return;
        EXPECT_EQ(s.error().detail, "ISS_MISSING");
    });
    EXPECT_EQ(as.authorizations().size(), 3u);
    EXPECT_EQ(as.grants("authorization_code"), 0);
}

TEST_F(ClientOAuth, WithoutAnOAuthClientA401IsUnauthorizedWithItsStatus) {
    run_client([&](net::any_io_executor ex) -> net::awaitable<void> {
        auto s = co_await cc::session::open(ex, cc::endpoint::of_url(url()));
        EXPECT_FALSE(s);
        if (s) co_return;
        EXPECT_EQ(s.error().code, "UNAUTHORIZED");
        EXPECT_EQ(s.error().http_status, 401);
    });
}

TEST(OAuthRules, TheBearerChallengesParametersAreReadAmongOtherChallenges) {
    const auto p = cc::bearer_challenge(
        R"(Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="say \"more\"")");
    ASSERT_EQ(p.size(), 4u);
    EXPECT_EQ(p[0], (std::pair<std::string, std::string>{"error", "insufficient_scope"}));
    EXPECT_EQ(p[1].second, "a b");
    EXPECT_EQ(p[2].second, "https://h/.well-known/oauth-protected-resource/mcp");
    EXPECT_EQ(p[3].second, "say \"more\"");
    EXPECT_TRUE(cc::bearer_challenge(R"(Basic realm="x")").empty());
    EXPECT_EQ(cc::bearer_challenge("bearer scope=tools").at(0).second, "tools");  // schemes ignore case
}

TEST(OAuthRules, AResourceCoversItsServerOrAPathBelowItOnTheSameOrigin) {
    EXPECT_TRUE(cc::resource_covers("https://h/mcp", "https://h/mcp"));
    EXPECT_TRUE(cc::resource_covers("https://h", "https://h/mcp"));
    EXPECT_TRUE(cc::resource_covers("HTTPS://H:443/", "https://h/mcp"));
    EXPECT_TRUE(cc::resource_covers("https://h/a", "https://h/a/mcp"));
    EXPECT_FALSE(cc::resource_covers("https://h/a", "https://h/ab/mcp"));  // whole segments
    EXPECT_FALSE(cc::resource_covers("https://h/mcp/x", "https://h/mcp"));
    EXPECT_FALSE(cc::resource_covers("https://evil.example.com/mcp", "https://h/mcp"));
    EXPECT_FALSE(cc::resource_covers("http://h/mcp", "https://h/mcp"));
    EXPECT_FALSE(cc::resource_covers("https://h:8443/mcp", "https://h/mcp"));
    EXPECT_FALSE(cc::resource_covers("https://h/mcp#x", "https://h/mcp"));
    EXPECT_FALSE(cc::resource_covers("h/mcp", "https://h/mcp"));
}

TEST(OAuthRules, MetadataIsAskedForAtTheSpecificationsURLsInItsOrder) {
    EXPECT_EQ(cc::authorization_server_metadata_urls("https://as.example/tenant1"),
              (std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server/tenant1",
                                        "https://as.example/.well-known/openid-configuration/tenant1",
                                        "https://as.example/tenant1/.well-known/openid-configuration"}));
    EXPECT_EQ(cc::authorization_server_metadata_urls("https://as.example/"),
              (std::vector<std::string>{"https://as.example/.well-known/oauth-authorization-server",
                                        "https://as.example/.well-known/openid-configuration"}));
    EXPECT_EQ(cc::protected_resource_metadata_urls("http://127.0.0.1:8080/public/mcp?x=1"),
              (std::vector<std::string>{"http://127.0.0.1:8080/.well-known/oauth-protected-resource/public/mcp",
                                        "http://127.0.0.1:8080/.well-known/oauth-protected-resource"}));
    EXPECT_EQ(cc::protected_resource_metadata_urls("http://127.0.0.1:8080"),
              (std::vector<std::string>{"http://127.0.0.1:8080/.well-known/oauth-protected-resource"}));
    EXPECT_TRUE(cc::authorization_server_metadata_urls("not a url").empty());
}

TEST(OAuthRules, OptionsItCannotUseAreRefusedWhenTheClientIsMade) {
    cc::oauth_options none;
    EXPECT_EQ(cc::oauth_client::create(none).error().code, "INVALID_ENDPOINT");  // no browser step
    cc::oauth_options o;
    o.authorize = [](std::string) -> net::awaitable<boost::system::result<std::string, cc::client_error>> {
        co_return std::string();
    };
    o.client_metadata_url = "http://example.com/client.json";  // must be https
    EXPECT_FALSE(cc::oauth_client::create(o));
    o.client_metadata_url = "https://example.com/client.json";
    EXPECT_TRUE(cc::oauth_client::create(o));
}

}  // namespace
}  // namespace candor::test
