// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on `fan_out`'s coroutine frame (Asio's frame
// allocator pairs its own operator new and delete; see validation/layers.hpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <candor/gather/fan_out.hpp>

#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/mcp/detail/within.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
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

// The response's size for `e`, or nothing when it cannot be written. The tool's name goes in
// the scope on the way out: counted as the longest a name may be (128 bytes).
std::optional<std::size_t> response_size(const ce::envelope& e, const mcp::result_budget& b) {
    static const std::string longest_name(128, 'x');
    thread_local std::string text;
    text.clear();
    if (!ce::write_sealed(e, longest_name, text, json::depth_ceiling)) return std::nullopt;
    return b.size_of(text.size(), json::string_size(text));
}

// Drop whole items from the ends of the sources' lists, from the source holding the most bytes
// each time, until `e` fits `b` (see fan_out.hpp).
void fit_whole_items(ce::envelope& e, const mcp::result_budget& b) {
    auto size = response_size(e, b);
    if (!size || *size <= b.limit) return;
    auto& data = e.data->as_object();
    // Per source with a list: its items' bytes in the response (both copies, and a comma).
    struct list {
        std::string name;
        boost::json::array* items;
        std::vector<std::size_t> bytes;
        std::size_t total = 0;
        std::size_t before = 0;  // items it came with
    };
    std::vector<list> lists;
    std::string text;
    for (auto& [name, value] : data) {
        auto* a = value.if_array();
        if (!a || a->empty()) continue;
        list l{std::string(name), a, {}, 0, a->size()};
        for (const auto& item : *a) {
            text.clear();
            {
                json::text_sink sink(text);
                if (!json::write(item, sink, json::depth_ceiling)) return;
            }
            const std::size_t n = json::string_size(text) - 2 + 1 + (b.structured ? text.size() + 1 : 0);
            l.bytes.push_back(n);
            l.total += n;
        }
        lists.push_back(std::move(l));
    }
    // Each round drops what is over (and room for the reasons), then measures again.
    for (int round = 0; round < 64 && *size > b.limit; ++round) {
        std::size_t over = *size - b.limit + 256;
        while (over > 0) {
            auto most = std::max_element(lists.begin(), lists.end(),
                                         [](const list& x, const list& y) { return x.total < y.total; });
            if (most == lists.end() || most->items->empty()) break;
            const std::size_t n = most->bytes[most->items->size() - 1];
            most->items->pop_back();
            most->total -= n;
            over -= std::min(over, n);
        }
        for (const auto& l : lists) {
            if (l.items->size() == l.before) continue;
            auto same = [&](const ce::reason& r) {
                if (r.code != ce::reason_codes::result_size_limit) return false;
                const auto* s = r.details.if_contains("source");
                return s && s->is_string() && s->as_string() == l.name;
            };
            auto found = std::find_if(e.incomplete_reasons.begin(), e.incomplete_reasons.end(), same);
            if (found == e.incomplete_reasons.end()) {
                e.add_reason({std::string(ce::reason_codes::result_size_limit),
                              "source '" + l.name + "': the last items were left out to fit the byte budget",
                              {{"source", l.name}, {"limit", b.limit}, {"returned", l.items->size()}}});
            } else {
                found->details["returned"] = l.items->size();
            }
        }
        e.continuation = ce::continuation::narrow_query(
            "ask the sources cut by RESULT_SIZE_LIMIT on their own, or narrow the query");
        size = response_size(e, b);
        if (!size) return;
        const bool left = std::any_of(lists.begin(), lists.end(), [](const list& l) { return !l.items->empty(); });
        if (!left) return;
    }
}

}  // namespace

asio::awaitable<ce::envelope> fan_out(std::vector<source> sources, std::optional<mcp::result_budget> budget) {
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
    auto verdict = [&] {
        const bool is_complete = e.incomplete_reasons.empty();
        e.status = is_complete ? ce::outcome::complete : ce::outcome::partial;
        e.complete = is_complete;
    };
    verdict();
    if (budget) {
        fit_whole_items(e, *budget);
        verdict();
    }
    co_return e;
}

}  // namespace candor::gather
