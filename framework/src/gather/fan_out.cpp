// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on `fan_out`'s coroutine frame (Asio's frame
// allocator pairs its own operator new and delete; see validation/validated_tool.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <candor/gather/fan_out.hpp>

#include <candor/mcp/detail/within.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <memory>
#include <optional>
#include <variant>

namespace candor::gather {

namespace ce = candor::envelope;
namespace asio = boost::asio;

namespace {

enum class cause { answered, failed, late };

struct outcome {
    cause what = cause::failed;
    std::optional<ce::envelope> result;
};

struct join_state {
    explicit join_state(asio::any_io_executor ex, std::vector<source> s)
        : sources(std::move(s)), outcomes(sources.size()), pending(sources.size()), done(ex) {
        done.expires_at(asio::steady_timer::time_point::max());
    }
    std::vector<source> sources;
    std::vector<outcome> outcomes;
    std::size_t pending;
    asio::steady_timer done;
};

asio::awaitable<void> run_one(std::shared_ptr<join_state> st, std::size_t i) {
    auto& src = st->sources[i];
    auto& out = st->outcomes[i];
    try {
        auto r = co_await mcp::detail::within(src.call(), src.deadline);
        out.result = std::move(r.value);
        // An envelope that breaks the invariants (a hand-built one without a status, say) is a
        // failed source: its claims cannot be passed on.
        if (r.timed_out) out.what = cause::late;
        else if (out.result && ce::check(*out.result) && *out.result->status != ce::outcome::error)
            out.what = cause::answered;
        else out.what = cause::failed;
    } catch (const std::exception&) {
        // A source's failure is data for the caller (SOURCE_UNAVAILABLE), not a crash.
        out.what = cause::failed;
    }
    if (--st->pending == 0) st->done.cancel();
}

// A source's data as a value (a collection tool's call() may hold its page as written text).
boost::json::value take_data(ce::envelope& r) {
    if (r.data_written) return r.data_written->to_value();
    return r.data ? std::move(*r.data) : boost::json::value(nullptr);
}

}  // namespace

asio::awaitable<ce::envelope> fan_out(std::vector<source> sources) {
    auto ex = co_await asio::this_coro::executor;
    auto st = std::make_shared<join_state>(ex, std::move(sources));
    for (std::size_t i = 0; i < st->sources.size(); ++i) asio::co_spawn(ex, run_one(st, i), asio::detached);
    if (st->pending > 0) co_await st->done.async_wait(asio::as_tuple(asio::use_awaitable));

    ce::envelope e;
    boost::json::object data;
    for (std::size_t i = 0; i < st->sources.size(); ++i) {
        const auto& name = st->sources[i].name;
        auto& o = st->outcomes[i];
        if (o.what != cause::answered) {
            const char* why = o.what == cause::late ? "late" : "failed";
            e.add_reason({std::string(ce::reason_codes::source_unavailable),
                          "source '" + name + "' " + (o.what == cause::late ? "did not answer in time" : "failed") +
                              "; its data is missing",
                          {{"source", name}, {"cause", why}}});
            continue;
        }
        auto& r = *o.result;
        data[name] = take_data(r);
        for (auto& reason : r.incomplete_reasons) {
            if (!reason.details.contains("source")) reason.details["source"] = name;
            e.add_reason(std::move(reason));
        }
        for (auto& w : r.warnings) {
            if (!w.details.contains("source")) w.details["source"] = name;
            e.add_warning(std::move(w));
        }
    }
    e.data = std::move(data);
    const bool is_complete = e.incomplete_reasons.empty();
    e.status = is_complete ? ce::outcome::complete : ce::outcome::partial;
    e.complete = is_complete;
    co_return e;
}

}  // namespace candor::gather
