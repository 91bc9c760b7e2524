// SPDX-License-Identifier: BSL-1.0
// Seeded property tests of whole walks: collections larger than every limit, random page
// sizes, mutations between pages (inserts, deletes, updates, moves across the page
// boundary), cursor expiry mid-walk, a failing source, a principal losing a permission
// mid-walk. Invariant: a walk is reported complete only if every item of its declared
// snapshot was delivered exactly once; otherwise some envelope of the walk says why not.
//
// Reproduce a failure with CANDOR_PROPERTY_SEED=<seed printed in the failure> (one case).
#include <candor/paging/collection.hpp>

#include "paging/support.hpp"

#include <candor/evidence/token.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>

using namespace candor::test;
namespace ce = candor::envelope;

namespace {

struct case_seeds {
    unsigned first;
    unsigned count;
};

case_seeds seeds(unsigned default_count) {
    if (const char* s = std::getenv("CANDOR_PROPERTY_SEED"))
        return {static_cast<unsigned>(std::strtoul(s, nullptr, 10)), 1};
    return {20261129u, default_count};
}

struct walk_log {
    std::uint64_t version = 0;
    std::vector<std::string> delivered;
    std::vector<std::string> codes_seen;       // every reason code of every page of the walk
    std::set<std::string> untouched_at_start;  // live: items present at the start and never mutated
};

// What the cases exercised, so that the test proves it reached every path it claims to test.
struct coverage {
    int complete = 0, incomplete = 0, expired = 0, failed_pages = 0, restricted = 0;
};

std::uint64_t version_of(const ce::envelope& e) {
    const auto& s = e.extensions.at("page").at("snapshot");
    return s.is_string() ? std::stoull(std::string(s.as_string()).substr(1)) : 0;
}

void run_case(unsigned seed, pg::snapshot_mode mode, coverage& cov) {
    SCOPED_TRACE("CANDOR_PROPERTY_SEED=" + std::to_string(seed) + " mode=" + std::string(pg::to_string(mode)));
    std::mt19937 rng(seed);
    auto pick = [&](unsigned n) { return n == 0 ? 0u : static_cast<unsigned>(rng() % n); };
    collection_harness h(mode, [](pg::collection_options& o) { o.max_page_size = 8; });
    const int n = static_cast<int>(pick(60));
    int next_id = 1;
    for (; next_id <= n; ++next_id) h.source->put(item(next_id));
    bool fail_next = false;
    h.source->set_fault([&](std::size_t) {
        if (!fail_next) return std::optional<pg::source_error>();
        fail_next = false;
        return std::optional<pg::source_error>(pg::source_error{pg::source_error::kind::unavailable, "injected", {}});
    });
    bool permission_lost = false;
    h.source->set_visibility([&](const boost::json::object& i, const mcp::principal&) {
        return !permission_lost || i.at("n").as_int64() % 3 != 0;
    });

    boost::asio::io_context ioc;
    const mcp::principal alice{"alice"};
    std::optional<std::string> cursor;
    walk_log log;
    std::set<std::string> touched;
    int walks_finished = 0;

    auto current_ids = [&] {
        std::set<std::string> out;
        for (const auto& i : h.source->items_at(h.source->version())) out.insert(std::string(i.at("id").as_string()));
        return out;
    };
    auto start_walk = [&] {
        log = walk_log{};
        touched.clear();
        log.untouched_at_start = current_ids();
        cursor.reset();
    };
    start_walk();

    for (int step = 0; step < 200 && walks_finished < 2; ++step) {
        pg::page_request r;
        r.cursor = cursor;
        r.page_size = 1 + pick(8);
        r.caller = alice;
        auto p = run(ioc, h.tool->serve(std::move(r)));
        ASSERT_TRUE(ce::check(p.result)) << "every envelope keeps the invariants";
        auto& e = p.result;
        if (*e.status == ce::outcome::error) {
            ASSERT_EQ(e.errors.at(0).code, "CURSOR_EXPIRED");
            ASSERT_EQ(e.continuation->what, ce::continuation::kind::restart);
            ++cov.expired;
            start_walk();  // a new walk, never merged with the old one
            continue;
        }
        if (!cursor) log.version = version_of(e);
        EXPECT_EQ(version_of(e), log.version) << "every page of a pinned walk reads the same snapshot";
        for (const auto& i : e.data->as_array()) log.delivered.emplace_back(i.at("id").as_string());
        for (const auto& rs : e.incomplete_reasons) {
            log.codes_seen.push_back(rs.code);
            cov.failed_pages += rs.code == "SOURCE_UNAVAILABLE";
            cov.restricted += rs.code == "VISIBILITY_RESTRICTED";
        }
        if (mode == pg::snapshot_mode::live) {
            ASSERT_FALSE(e.warnings.empty());
            EXPECT_EQ(e.warnings[0].code, "LIVE_VIEW");
        }

        if (p.ended) {
            ++walks_finished;
            ++(*e.complete ? cov.complete : cov.incomplete);
            std::set<std::string> unique(log.delivered.begin(), log.delivered.end());
            EXPECT_EQ(unique.size(), log.delivered.size()) << "no item twice";
            if (*e.complete) {
                for (const auto& c : log.codes_seen) {
                    EXPECT_TRUE(c == "MORE_PAGES_AVAILABLE" || c == "SOURCE_UNAVAILABLE")
                        << "a complete walk had no gap but resumable ones: " << c;
                }
                if (mode == pg::snapshot_mode::pinned) {
                    std::vector<std::string> expected;
                    for (const auto& i : h.source->items_at(log.version)) expected.emplace_back(i.at("id").as_string());
                    EXPECT_EQ(log.delivered, expected) << "complete ⇒ exactly the snapshot, in order, once";
                    ASSERT_TRUE(e.extensions.contains("snapshot_token"));
                    auto t = ev::open_snapshot_token(*h.keys, e.extensions.at("snapshot_token").as_string()).value();
                    EXPECT_TRUE(t.complete);
                    EXPECT_EQ(h.store->uncovered(t.walk, log.delivered, h.clocks.wall).value(),
                              std::vector<std::string>{});
                    auto extra = h.store->uncovered(t.walk, std::vector<std::string>{"i-99999"}, h.clocks.wall).value();
                    EXPECT_EQ(extra.size(), 1u);
                } else {
                    for (const auto& id : log.untouched_at_start) {
                        if (!touched.contains(id)) {
                            EXPECT_TRUE(unique.contains(id))
                                << "live: an item untouched during the walk was missed: " << id;
                        }
                    }
                }
            } else {
                bool says_why = false;
                for (const auto& c : log.codes_seen) says_why = says_why || c != "MORE_PAGES_AVAILABLE";
                EXPECT_TRUE(says_why) << "an incomplete walk says why";
                if (e.extensions.contains("snapshot_token")) {
                    auto t = ev::open_snapshot_token(*h.keys, e.extensions.at("snapshot_token").as_string()).value();
                    EXPECT_FALSE(t.complete) << "an incomplete walk never earns a complete token";
                }
            }
            permission_lost = false;
            start_walk();
            continue;
        }
        ASSERT_TRUE(p.next_cursor || e.continuation) << "a page that does not end the walk says how to go on";
        cursor = p.next_cursor;
        if (!cursor) {
            start_walk();
            continue;
        }

        // Between pages: the world changes.
        const int mutations = static_cast<int>(pick(4));
        for (int m = 0; m < mutations; ++m) {
            auto ids = current_ids();
            std::vector<std::string> v(ids.begin(), ids.end());
            switch (pick(4)) {
                case 0:  // insert anywhere (ids between existing ones too)
                    h.source->put(item(static_cast<int>(pick(static_cast<unsigned>(next_id) + 20)) + 1));
                    break;
                case 1:
                    if (!v.empty()) {
                        auto id = v[pick(static_cast<unsigned>(v.size()))];
                        h.source->erase(boost::json::array{id});
                        touched.insert(id);
                    }
                    break;
                case 2:
                    if (!v.empty()) {
                        auto id = v[pick(static_cast<unsigned>(v.size()))];
                        for (auto i : h.source->items_at(h.source->version()))
                            if (i.at("id").as_string() == id) {
                                i["group"] = "updated";
                                h.source->put(std::move(i));
                            }
                        touched.insert(id);
                    }
                    break;
                default:  // move across the page boundary: the item changes its key
                    if (!v.empty()) {
                        auto id = v[pick(static_cast<unsigned>(v.size()))];
                        h.source->erase(boost::json::array{id});
                        auto moved = item(next_id++);
                        touched.insert(id);
                        touched.insert(std::string(moved.at("id").as_string()));
                        h.source->put(std::move(moved));
                    }
            }
        }
        // Insert ids are re-drawn, so every inserted id counts as touched.
        for (int i = 1; i <= next_id + 21; ++i)
            if (!log.untouched_at_start.contains(id_of(i))) touched.insert(id_of(i));

        switch (pick(12)) {
            case 0: h.clocks.wall += std::chrono::minutes(16); break;  // cursor expires
            case 1: fail_next = true; break;                           // source fails once
            case 2: permission_lost = true; break;                     // principal loses a permission
            default: break;
        }
    }
}

}  // namespace

TEST(WalkProperty, PinnedWalkIsCompleteOnlyIfItDeliveredTheWholeSnapshotOnce) {
    auto s = seeds(150);
    coverage cov;
    for (unsigned c = 0; c < s.count; ++c) run_case(s.first + c, pg::snapshot_mode::pinned, cov);
    if (s.count > 1) {
        EXPECT_GT(cov.complete, 0);
        EXPECT_GT(cov.incomplete, 0);
        EXPECT_GT(cov.expired, 0);
        EXPECT_GT(cov.failed_pages, 0);
        EXPECT_GT(cov.restricted, 0);
    }
    std::printf("pinned walks: %d complete, %d incomplete, %d expired cursors, %d failed pages, %d restricted pages\n",
                cov.complete, cov.incomplete, cov.expired, cov.failed_pages, cov.restricted);
}

TEST(WalkProperty, LiveWalkNeverDeliversAnItemTwiceAndMissesNothingUntouched) {
    auto s = seeds(100);
    coverage cov;
    for (unsigned c = 0; c < s.count; ++c) run_case(s.first + 100'000 + c, pg::snapshot_mode::live, cov);
    if (s.count > 1) {
        EXPECT_GT(cov.complete, 0);
    }
}
