// SPDX-License-Identifier: BSL-1.0
// A request's token check: the OAuth resource server (a verified token is remembered by its
// SHA-256) against verifying the signature and claims of the same token every time.
// Run: scripts/bench --benchmark_filter=TokenCheck
#include <candor/http/auth/oauth.hpp>
#include <candor/mcp/server.hpp>

#include "auth/support.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <benchmark/benchmark.h>

#include <variant>

namespace {

namespace auth = candor::auth;

struct setup {
    explicit setup(const std::string& alg) : key(candor::test::signing_key::generate("k1", alg)) {
        auth::oauth_options o;
        o.issuer = candor::test::test_issuer;
        o.resource = candor::test::test_resource;
        o.jwks_document = candor::test::jwks_of({&key});
        oauth = *auth::make_oauth(srv, std::move(o));
        header = "Bearer " + key.token(candor::test::access_claims("alice", "mcp:tools"));
        policy.issuer = candor::test::test_issuer;
        policy.audience = candor::test::test_resource;
    }
    candor::test::signing_key key;
    candor::mcp::server srv{{.log = {}}};
    std::shared_ptr<auth::oauth_authenticator> oauth;
    std::string header;
    auth::key_set keys = auth::key_set::parse(candor::test::jwks_of({&key})).value();
    auth::token_policy policy;
};

void run_authenticator(benchmark::State& state, const std::string& alg) {
    setup s(alg);
    boost::asio::io_context ioc;
    for (auto _ : state) {
        bool ok = false;
        boost::asio::co_spawn(ioc, s.oauth->authenticate(s.header),
                              [&](std::exception_ptr, candor::transport::auth_outcome o) {
                                  ok = std::holds_alternative<candor::mcp::principal>(o);
                              });
        ioc.run();
        ioc.restart();
        if (!ok) state.SkipWithError("refused");
    }
}

void run_verify(benchmark::State& state, const std::string& alg) {
    setup s(alg);
    const std::string token = s.header.substr(7);
    for (auto _ : state) {
        auto who = auth::validate_token(token, s.keys, s.policy, std::chrono::system_clock::now());
        if (!who) state.SkipWithError("refused");
        benchmark::DoNotOptimize(who);
    }
}

void BM_TokenCheckES256_Candor(benchmark::State& state) { run_authenticator(state, "ES256"); }
void BM_TokenCheckES256_VerifyEveryTime(benchmark::State& state) { run_verify(state, "ES256"); }
void BM_TokenCheckRS256_Candor(benchmark::State& state) { run_authenticator(state, "RS256"); }
void BM_TokenCheckRS256_VerifyEveryTime(benchmark::State& state) { run_verify(state, "RS256"); }

BENCHMARK(BM_TokenCheckES256_Candor);
BENCHMARK(BM_TokenCheckES256_VerifyEveryTime);
BENCHMARK(BM_TokenCheckRS256_Candor);
BENCHMARK(BM_TokenCheckRS256_VerifyEveryTime);

}  // namespace
