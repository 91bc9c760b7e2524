// SPDX-License-Identifier: BSL-1.0
#include <candor/gather/fan_out.hpp>

#include "paging/support.hpp"

#include <candor/agent/decide.hpp>
#include <candor/offload/worker.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <future>
#include <map>
#include <random>

using namespace candor::test;
namespace ce = candor::envelope;
namespace ga = candor::gather;
namespace ag = candor::agent;
using boost::asio::awaitable;

namespace {

ga::source answering(std::string name, ce::envelope e, std::chrono::milliseconds deadline = std::chrono::seconds(5)) {
    return {std::move(name), deadline, [e]() -> awaitable<ce::envelope> { co_return e; }};
}

ga::source never_answering(std::string name, std::chrono::milliseconds deadline) {
    return {std::move(name), deadline, []() -> awaitable<ce::envelope> {
                boost::asio::steady_timer t(co_await boost::asio::this_coro::executor);
                t.expires_after(std::chrono::hours(1));
                co_await t.async_wait(boost::asio::use_awaitable);
                co_return ce::complete(1);
            }};
}

ga::source throwing(std::string name) {
    return {std::move(name), std::chrono::seconds(5), []() -> awaitable<ce::envelope> {
                throw std::runtime_error("backend down");
                co_return ce::complete(1);
            }};
}

std::vector<std::string> unavailable_sources(const ce::envelope& e) {
    std::vector<std::string> out;
    for (const auto& r : e.incomplete_reasons)
        if (r.code == "SOURCE_UNAVAILABLE") out.emplace_back(r.details.at("source").as_string());
    return out;
}

}  // namespace

TEST(FanOut, AllSourcesCompleteMakesTheWholeComplete) {
    boost::asio::io_context ioc;
    auto e = run(ioc, ga::fan_out({answering("a", ce::complete(boost::json::array{1})),
                                   answering("b", ce::complete(boost::json::array{}))}));
    EXPECT_EQ(e.complete, true);
    EXPECT_EQ(e.data->at("a"), boost::json::array{1});
    EXPECT_EQ(e.data->at("b"), boost::json::array{});
}

TEST(FanOut, LateSourceIsSourceUnavailableByNameAndTheOthersDataIsKept) {
    boost::asio::io_context ioc;
    auto e = run(ioc, ga::fan_out({answering("tickets", ce::complete(boost::json::array{"t1"})),
                                   never_answering("kb", std::chrono::milliseconds(5))}));
    EXPECT_EQ(e.complete, false);
    EXPECT_EQ(unavailable_sources(e), std::vector<std::string>{"kb"});
    EXPECT_EQ(e.incomplete_reasons[0].details.at("cause"), "late");
    EXPECT_EQ(e.data->at("tickets"), boost::json::array{"t1"});
    EXPECT_FALSE(e.data->as_object().contains("kb"));
    auto w = ce::seal(e, "search").value();
    EXPECT_EQ(ag::decide(w, ag::intent::read), ag::decision::retry_later);
    EXPECT_FALSE(ag::may_infer_absence(w));
}

TEST(FanOut, SourceFailingAfterAnotherAnsweredIsNamedAndTheAnswerKept) {
    boost::asio::io_context ioc;
    auto e = run(ioc, ga::fan_out({answering("a", ce::complete(boost::json::array{1})), throwing("b"),
                                   answering("c", ce::failure({candor::issue{"BACKEND", "", "no", false}}))}));
    EXPECT_EQ(unavailable_sources(e), (std::vector<std::string>{"b", "c"}));
    EXPECT_EQ(e.incomplete_reasons[0].details.at("cause"), "failed");
    EXPECT_EQ(e.data->at("a"), boost::json::array{1});
}

TEST(FanOut, PartialSourceReasonsArePreservedWithTheSourceName) {
    boost::asio::io_context ioc;
    auto part = ce::partial(boost::json::array{}, {"VISIBILITY_RESTRICTED", "hidden", {}});
    part.add_warning({"STALE_INDEX", "old", {}});
    auto e = run(ioc, ga::fan_out({answering("kb", part)}));
    ASSERT_EQ(e.incomplete_reasons.size(), 1u);
    EXPECT_EQ(e.incomplete_reasons[0].code, "VISIBILITY_RESTRICTED");
    EXPECT_EQ(e.incomplete_reasons[0].details.at("source"), "kb");
    EXPECT_EQ(e.warnings.at(0).details.at("source"), "kb");
}

TEST(FanOut, SourcesRunConcurrently) {
    // `first` waits for a signal that only `second` gives: run one after the other, `first`
    // would be late; run concurrently, both answer.
    boost::asio::io_context ioc;
    auto signal = std::make_shared<boost::asio::steady_timer>(ioc, boost::asio::steady_timer::time_point::max());
    ga::source first{"first", std::chrono::seconds(30), [signal]() -> awaitable<ce::envelope> {
                         co_await signal->async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
                         co_return ce::complete(1);
                     }};
    ga::source second{"second", std::chrono::seconds(30), [signal]() -> awaitable<ce::envelope> {
                          signal->cancel();
                          co_return ce::complete(2);
                      }};
    auto e = run(ioc, ga::fan_out({first, second}));
    EXPECT_EQ(e.complete, true);
}

TEST(FanOut, ASourceBlockedInSynchronousWorkIsLateAtItsDeadline) {
    // A source whose work blocks (a SQLite statement, a synchronous client) runs it on a
    // worker with run_cancellable: its deadline ends the wait, and the fan-out answers while
    // the work still holds its thread.
    boost::asio::io_context ioc;
    candor::offload::worker w;
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    auto finished = std::make_shared<std::atomic<bool>>(false);
    ga::source blocked{"db", std::chrono::milliseconds(20), [&w, released, finished]() -> awaitable<ce::envelope> {
                           // Named: GCC 12 destroys a temporary in a co_await expression twice.
                           auto work = [released, finished] {
                               released.wait();
                               *finished = true;
                               return 1;
                           };
                           const int v = co_await w.run_cancellable(std::move(work));
                           co_return ce::complete(v);
                       }};
    std::optional<ce::envelope> e;
    boost::asio::co_spawn(ioc, ga::fan_out({std::move(blocked), answering("kb", ce::complete(2))}),
                          [&](std::exception_ptr, ce::envelope v) { e = std::move(v); });
    // Not ioc.run(): the blocked work keeps the executor busy until it returns.
    while (!e && ioc.run_one() > 0) {
    }
    ASSERT_TRUE(e.has_value());
    EXPECT_FALSE(finished->load()) << "the fan-out waited for the blocked work";
    EXPECT_EQ(unavailable_sources(*e), (std::vector<std::string>{"db"}));
    EXPECT_EQ(e->incomplete_reasons.at(0).details.at("cause"), "late");
    EXPECT_EQ(e->data->at("kb"), 2);
    EXPECT_TRUE(ce::check(*e));
    // The work ends on its own; its result is dropped.
    release.set_value();
    ioc.run();
    EXPECT_TRUE(finished->load());
}

TEST(FanOut, AWorkersResultArrivesWhenItIsInTime) {
    boost::asio::io_context ioc;
    candor::offload::worker w;
    ga::source quick{"db", std::chrono::seconds(30), [&w]() -> awaitable<ce::envelope> {
                         auto work = [] { return 7; };
                         const int v = co_await w.run_cancellable(std::move(work));
                         co_return ce::complete(v);
                     }};
    auto e = run(ioc, ga::fan_out({std::move(quick)}));
    EXPECT_EQ(e.complete, true);
    EXPECT_EQ(e.data->at("db"), 7);
}

TEST(FanOut, SourceReturningAnEnvelopeThatBreaksTheInvariantsIsFailed) {
    boost::asio::io_context ioc;
    ce::envelope no_status;  // hand-built: data but no verdict
    no_status.data = boost::json::array{1};
    ce::envelope partial_without_reason = ce::complete(boost::json::array{2});
    partial_without_reason.status = ce::outcome::partial;
    partial_without_reason.complete = false;
    auto e = run(ioc, ga::fan_out({answering("a", no_status), answering("b", partial_without_reason),
                                   answering("c", ce::complete(boost::json::array{3}))}));
    EXPECT_EQ(e.complete, false);
    EXPECT_EQ(unavailable_sources(e), (std::vector<std::string>{"a", "b"}));
    EXPECT_FALSE(e.data->as_object().contains("a"));
    EXPECT_EQ(e.data->at("c"), boost::json::array{3});
    EXPECT_TRUE(ce::check(e));
}

TEST(FanOut, SourceFailingWithOperationAbortedIsFailedNotLate) {
    boost::asio::io_context ioc;
    ga::source aborted{"a", std::chrono::seconds(30), []() -> awaitable<ce::envelope> {
                           throw boost::system::system_error(boost::asio::error::operation_aborted);
                           co_return ce::complete(1);
                       }};
    auto e = run(ioc, ga::fan_out({std::move(aborted), answering("b", ce::complete(2))}));
    ASSERT_EQ(unavailable_sources(e), std::vector<std::string>{"a"});
    EXPECT_EQ(e.incomplete_reasons.front().details.at("cause"), "failed");
}

TEST(FanOut, NoSourcesIsCompleteAndEmpty) {
    boost::asio::io_context ioc;
    auto e = run(ioc, ga::fan_out({}));
    EXPECT_EQ(e.complete, true);
    EXPECT_TRUE(e.data->as_object().empty());
}

TEST(FanOutProperty, CompleteExactlyWhenEverySourceAnsweredCompletely) {
    const unsigned base = ::testing::UnitTest::GetInstance()->random_seed();
    for (unsigned c = 0; c < 60; ++c) {
        const unsigned seed = base * 1000 + c;
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        std::vector<ga::source> sources;
        std::vector<std::string> expect_unavailable;
        bool all_complete = true;
        const int n = static_cast<int>(rng() % 5);
        for (int i = 0; i < n; ++i) {
            const std::string name = "s" + std::to_string(i);
            switch (rng() % 4) {
                case 0: sources.push_back(answering(name, ce::complete(boost::json::array{i}))); break;
                case 1:
                    sources.push_back(
                        answering(name, ce::partial(boost::json::array{}, {"RESULT_LIMIT_REACHED", "x", {}})));
                    all_complete = false;
                    break;
                case 2:
                    sources.push_back(throwing(name));
                    expect_unavailable.push_back(name);
                    all_complete = false;
                    break;
                default:
                    sources.push_back(never_answering(name, std::chrono::milliseconds(1)));
                    expect_unavailable.push_back(name);
                    all_complete = false;
            }
        }
        boost::asio::io_context ioc;
        auto e = run(ioc, ga::fan_out(std::move(sources)));
        EXPECT_EQ(*e.complete, all_complete);
        EXPECT_EQ(unavailable_sources(e), expect_unavailable);
        EXPECT_TRUE(ce::check(e));
    }
}

TEST(FanOutBudget, ResultsThatDoNotFitLoseWholeItemsFromTheLargestSourceAndSaySo) {
    const unsigned base = ::testing::UnitTest::GetInstance()->random_seed();
    std::size_t cuts = 0;
    for (unsigned c = 0; c < 40; ++c) {
        const unsigned seed = base * 1000 + c;
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        const mcp::result_budget budget{.limit = 2000 + rng() % 20'000, .framing = 120, .structured = true};
        std::vector<ga::source> sources;
        std::map<std::string, boost::json::array> sent;
        const int n = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) {
            const std::string name = "s" + std::to_string(i);
            boost::json::array items;
            const int count = static_cast<int>(rng() % 60);
            for (int k = 0; k < count; ++k)
                items.push_back(boost::json::object{{"id", name + "-" + std::to_string(k)},
                                                    {"text", std::string(rng() % 400, "ab\"\\"[rng() % 4])}});
            sent[name] = items;
            sources.push_back(answering(name, ce::complete(items)));
        }
        boost::asio::io_context ioc;
        auto e = run(ioc, ga::fan_out(std::move(sources), budget));
        ASSERT_TRUE(ce::check(e));
        std::string text;
        ASSERT_TRUE(ce::write_sealed(e, "search_everywhere", text));
        const auto size = budget.size_of(text.size(), candor::json::string_size(text));
        // It fits, unless the envelope is over the budget with every item left out (four sources'
        // reasons at the smallest budgets): then the server's own cut is what remains.
        const bool nothing_left = std::all_of(e.data->as_object().begin(), e.data->as_object().end(),
                                              [](const auto& kv) { return kv.value().as_array().empty(); });
        if (!nothing_left) {
            EXPECT_LE(size, budget.limit);
        }
        // Every source keeps a prefix of its list; a shorter one is named with how many it kept.
        for (const auto& [name, items] : sent) {
            const auto& kept = e.data->at(name).as_array();
            ASSERT_LE(kept.size(), items.size());
            for (std::size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(kept[k], items[k]);
            auto reason = std::find_if(e.incomplete_reasons.begin(), e.incomplete_reasons.end(), [&](const auto& r) {
                return r.code == "RESULT_SIZE_LIMIT" && r.details.at("source") == boost::json::value(name);
            });
            if (kept.size() < items.size()) {
                ASSERT_NE(reason, e.incomplete_reasons.end());
                EXPECT_EQ(reason->details.at("returned"), kept.size());
                EXPECT_EQ(reason->details.at("limit"), budget.limit);
                ++cuts;
            } else {
                EXPECT_EQ(reason, e.incomplete_reasons.end());
            }
        }
        EXPECT_EQ(*e.complete, e.incomplete_reasons.empty());
        if (!e.incomplete_reasons.empty()) {
            EXPECT_EQ(e.continuation->what, ce::continuation::kind::narrow_query);
        }
    }
    EXPECT_GT(cuts, 20u) << "the budgets seldom cut a source: the test proved little";
}
