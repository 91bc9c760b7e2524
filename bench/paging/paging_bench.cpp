// SPDX-License-Identifier: BSL-1.0
// Keyset paging and evidence verification at scale.
//
// BM_PagingPage_*: one 50-item page of a 1,000,000-item collection through the whole
// collection_tool path (cursor open and binding check, fetch with look-ahead, key checks,
// envelope, next cursor sealed). _Candor is the LAST page, _FirstPage the first: keyset
// paging makes their ratio ~1 (an offset would make the last page ~20,000 times dearer).
// BM_EvidenceVerify*: the evidence gate for 100 ids against a complete 1,000,000-item
// inventory (token open, MAC, expiry, binding, one store lookup per id), in memory and in
// SQLite, against a bare hash-set lookup of the same ids.
// Run: scripts/bench --benchmark_filter='Paging|Evidence'

#include <candor/evidence/gate.hpp>
#include <candor/evidence/token.hpp>
#include <candor/paging/collection.hpp>
#include <candor/state/sqlite_evidence_store.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_set>
#include <vector>

namespace bench_paging {

namespace pg = candor::paging;
namespace ev = candor::evidence;

constexpr std::size_t collection_size = 1'000'000;

std::string id_of(std::size_t i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "i-%07zu", i);
    return buf;
}

// A sorted id vector: a keyset seek is a binary search, as an index would make it.
class vector_source final : public pg::data_source {
public:
    vector_source() {
        ids_.reserve(collection_size);
        for (std::size_t i = 0; i < collection_size; ++i) ids_.push_back(id_of(i));
    }
    std::string_view name() const noexcept override { return "vector"; }
    pg::snapshot_mode snapshots() const noexcept override { return pg::snapshot_mode::pinned; }
    boost::asio::awaitable<boost::system::result<std::string, pg::source_error>> open_snapshot(
        const boost::json::object&, const candor::mcp::principal&) override {
        co_return std::string("v1");
    }
    boost::asio::awaitable<boost::system::result<pg::fetch_result, pg::source_error>> fetch(
        const pg::fetch_request& r) override {
        pg::fetch_result out;
        auto it = ids_.begin();
        if (r.after) it = std::upper_bound(ids_.begin(), ids_.end(), std::string_view(r.after->at(0).as_string()));
        for (; it != ids_.end() && out.items.size() < r.limit; ++it)
            out.items.emplace_back(boost::json::object{{"id", *it}});
        out.items_scanned = out.items.size();
        co_return out;
    }
    const std::vector<std::string>& ids() const { return ids_; }

private:
    std::vector<std::string> ids_;
};

struct fixture {
    std::shared_ptr<const candor::seal::key_ring> keys = std::make_shared<const candor::seal::key_ring>(
        candor::seal::key_ring::from_keys({{"bench", std::string(32, 'k')}}).value());
    std::shared_ptr<vector_source> source = std::make_shared<vector_source>();
    std::shared_ptr<pg::collection_tool> tool;
    std::string last_cursor;
    boost::asio::io_context ioc;

    fixture() {
        pg::collection_options o;
        o.keys = keys;
        o.max_page_size = 100;
        o.cursor_ttl = std::chrono::hours(24);
        tool = std::make_shared<pg::collection_tool>(candor::mcp::tool_info("bench_items", "Bench."),
                                                     pg::ordering{{"id"}}, source, o);
        auto first = serve({});
        // The cursor of a walk standing 50 items before the end.
        auto state = *first.state;
        state.after = boost::json::array{id_of(collection_size - 51)};
        state.issued = std::chrono::system_clock::now();
        last_cursor = pg::seal_cursor(*keys, state);
    }

    pg::page serve(std::optional<std::string> cursor) {
        pg::page out;
        pg::page_request r;
        r.cursor = std::move(cursor);
        r.page_size = 50;
        r.caller = {"bench"};
        boost::asio::co_spawn(
            ioc, [&]() -> boost::asio::awaitable<void> { out = co_await tool->serve(r); }, boost::asio::detached);
        ioc.restart();
        ioc.run();
        return out;
    }
};

fixture& shared_fixture() {
    static fixture f;
    return f;
}

void BM_PagingPage_FirstPage(benchmark::State& state) {
    auto& f = shared_fixture();
    for (auto _ : state) {
        auto p = f.serve({});
        benchmark::DoNotOptimize(p.next_cursor);
    }
}
BENCHMARK(BM_PagingPage_FirstPage);

void BM_PagingPage_Candor(benchmark::State& state) {
    auto& f = shared_fixture();
    for (auto _ : state) {
        auto p = f.serve(f.last_cursor);
        if (!p.ended) state.SkipWithError("not the last page");
        benchmark::DoNotOptimize(p.result);
    }
}
BENCHMARK(BM_PagingPage_Candor);

struct evidence_fixture {
    std::shared_ptr<const candor::seal::key_ring> keys = std::make_shared<const candor::seal::key_ring>(
        candor::seal::key_ring::from_keys({{"bench", std::string(32, 'k')}}).value());
    std::vector<std::string> all;
    std::vector<std::string> requested;
    std::unordered_set<std::string> raw;

    evidence_fixture() {
        all.reserve(collection_size);
        for (std::size_t i = 0; i < collection_size; ++i) all.push_back(id_of(i));
        for (std::size_t i = 0; i < 100; ++i) requested.push_back(id_of(i * 9'973 % collection_size));
        raw.insert(all.begin(), all.end());
    }

    std::string fill(ev::evidence_store& store) const {
        const std::string walk = "bench-walk";
        const auto open_until = std::chrono::system_clock::now() + std::chrono::hours(24);
        for (std::size_t i = 0; i < all.size(); i += 10'000)
            store.record(walk,
                         std::span<const std::string>(all.data() + i, std::min<std::size_t>(10'000, all.size() - i)),
                         open_until);
        store.close(walk, std::chrono::system_clock::now() + std::chrono::hours(24));
        ev::snapshot_claims c;
        c.resource = "bench_items";
        c.query = candor::seal::fingerprint("query", "{}");
        c.principal = ev::principal_fingerprint("bench");
        c.snapshot = "v1";
        c.walk = walk;
        c.complete = true;
        c.expiry = std::chrono::system_clock::now() + std::chrono::hours(24);
        return ev::seal_snapshot_token(*keys, c);
    }
};

evidence_fixture& shared_evidence() {
    static evidence_fixture f;
    return f;
}

void verify_loop(benchmark::State& state, std::shared_ptr<ev::evidence_store> store) {
    auto& f = shared_evidence();
    const auto token = f.fill(*store);
    ev::evidence_requirement req;
    req.resource = "bench_items";
    req.keys = f.keys;
    req.store = store;
    req.wall_clock = [] { return std::chrono::system_clock::now(); };
    // verify is a coroutine (the store may run on a worker): each one runs to its end on an
    // io_context of this thread (the memory and SQLite stores answer inline).
    boost::asio::io_context ioc;
    for (auto _ : state) {
        bool ok = false;
        boost::asio::co_spawn(ioc, ev::verify(req, &token, f.requested, "bench"),
                              [&](std::exception_ptr e, const auto& r) { ok = !e && r.has_value(); });
        ioc.restart();
        ioc.run();
        if (!ok) state.SkipWithError("verify refused the evidence");
        benchmark::DoNotOptimize(ok);
    }
}

void BM_EvidenceVerify_Candor(benchmark::State& state) { verify_loop(state, ev::make_memory_store()); }
BENCHMARK(BM_EvidenceVerify_Candor)->Unit(benchmark::kMicrosecond);

void BM_EvidenceVerifySqlite_Candor(benchmark::State& state) {
    verify_loop(state, candor::state::open_sqlite_store(":memory:").value());
}
BENCHMARK(BM_EvidenceVerifySqlite_Candor)->Unit(benchmark::kMicrosecond)->Iterations(2000);

void BM_EvidenceVerify_BareHashSetLookup(benchmark::State& state) {
    auto& f = shared_evidence();
    for (auto _ : state) {
        std::size_t found = 0;
        for (const auto& id : f.requested) found += f.raw.contains(id);
        benchmark::DoNotOptimize(found);
    }
}
BENCHMARK(BM_EvidenceVerify_BareHashSetLookup)->Unit(benchmark::kMicrosecond);

}  // namespace bench_paging
