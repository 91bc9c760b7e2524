// SPDX-License-Identifier: BSL-1.0
#pragma once
// Server state shared by the server object and its connections, and the per-call state.
// Private to the mcp module.

#include <candor/mcp/server.hpp>

#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace candor::mcp::detail {

struct server_core {
    explicit server_core(server_options o) : opts(std::move(o)) {
        if (!opts.log) opts.log = [](log_level, std::string_view) {};
    }

    server_options opts;

    // Guards the registries and `connections` only; held for lookups and copies of shared
    // pointers, never while a tool, reader or prompt runs or a message is sent.
    mutable std::mutex mu;
    std::map<std::string, std::shared_ptr<tool_handler>, std::less<>> tools;
    std::vector<std::weak_ptr<connection>> connections;

    struct resource_entry {
        resource_info info;
        resource_reader read;
    };
    struct template_entry {
        resource_template_info info;
        resource_reader read;
    };
    struct prompt_entry {
        prompt_info info;
        prompt_function get;
    };
    std::map<std::string, std::shared_ptr<const resource_entry>, std::less<>> resources;  // by URI
    std::map<std::string, std::shared_ptr<const template_entry>, std::less<>> templates;  // by template
    std::map<std::string, std::shared_ptr<const prompt_entry>, std::less<>> prompts;      // by name
    // by "p:" + prompt name or "r:" + URI template
    std::map<std::string, std::shared_ptr<const completion_function>, std::less<>> completions;

    /// Every live connection (copied out under the lock).
    std::vector<std::shared_ptr<connection>> live_connections() const;

    /// Add `entry` to `registry` under `key` and tell initialized clients with `list_changed`.
    template <class Map, class Entry>
    boost::system::result<void, registration_error> add_entry(Map& registry, std::string key, Entry entry,
                                                              std::string_view list_changed) {
        {
            std::lock_guard lock(mu);
            if (!registry.emplace(std::move(key), std::move(entry)).second) return registration_error::duplicate_name;
        }
        for (auto& c : live_connections()) c->notify_list_changed(list_changed);
        return {};
    }

    std::shared_ptr<tool_handler> find(std::string_view name) const;

    struct page {
        std::vector<std::shared_ptr<tool_handler>> tools;
        std::optional<std::string> next_cursor;
    };
    /// One page of tools in name order after the cursor's position; nothing for a cursor
    /// this server did not issue.
    std::optional<page> list(const std::optional<std::string>& cursor) const;
};

/// `method` if it is one the server knows (a static string), else "other".
std::string_view known_method(std::string_view method) noexcept;

/// A request id as text for records and logs: a number's digits, a string capped at 64 bytes.
std::string request_id_text(const jsonrpc::request_id& id);

/// One page of `m` (a name-ordered map) after the cursor's position, under the lock.
/// @return the entries and the next cursor; nothing for a cursor not issued for `list`
template <class Map>
std::optional<std::pair<std::vector<typename Map::mapped_type>, std::optional<std::string>>> page_of(
    const Map& m, std::string_view list, const std::optional<std::string>& cursor, std::size_t size);

/// The tool's `tools/list` entry under `rules`.
boost::json::object describe(const tool_handler& tool, const protocol_rules& rules);

/// Opaque list cursors: the last name of the page, encoded. Keyset, so a cursor stays valid
/// when tools are added or removed between pages.
std::string seal_list_cursor(std::string_view last_name);
std::optional<std::string> open_list_cursor(std::string_view cursor);
/// The same for another list (`list` names it, so a cursor of one list is refused by another);
/// the key is any text up to 2048 bytes.
std::string seal_cursor(std::string_view list, std::string_view last_key);
std::optional<std::string> open_cursor(std::string_view list, std::string_view cursor);

template <class Map>
std::optional<std::pair<std::vector<typename Map::mapped_type>, std::optional<std::string>>> page_of(
    const Map& m, std::string_view list, const std::optional<std::string>& cursor, std::size_t size) {
    std::optional<std::string> after;
    if (cursor) {
        after = open_cursor(list, *cursor);
        if (!after) return std::nullopt;
    }
    if (size == 0) size = 1;
    std::vector<typename Map::mapped_type> out;
    auto it = after ? m.upper_bound(*after) : m.begin();
    std::string last;
    for (; it != m.end() && out.size() < size; ++it) {
        out.push_back(it->second);
        last = it->first;
    }
    std::optional<std::string> next;
    if (it != m.end()) next = seal_cursor(list, last);
    return std::make_pair(std::move(out), std::move(next));
}

/// State of one tool call, shared by the connection (for cancellation and the answer), the
/// call's coroutine and its `call_context`. Touched on the connection's strand only.
class call_state {
public:
    explicit call_state(std::weak_ptr<connection> c) : conn(std::move(c)) {}
    call_state(const call_state&) = delete;
    call_state& operator=(const call_state&) = delete;
    /// The call is over for observers (answered, cancelled or abandoned): in-flight ends.
    ~call_state() {
        for (const auto& o : observers) o->on_call_finished();
    }

    std::weak_ptr<connection> conn;
    /// Where the call's notifications go (the request it runs for).
    message_route route;
    std::string tool_name;
    connection::call_origin origin;
    std::vector<std::shared_ptr<call_observer>> observers;
    std::chrono::steady_clock::time_point deadline;
    /// `_meta.progressToken` of the request (copied out of the document).
    std::optional<boost::json::value> progress_token;
    std::optional<double> last_progress;
    mcp::principal caller;
    std::shared_ptr<const session_info> session;  // the connection's, shared
    boost::asio::any_io_executor executor;
    /// Keeps the arguments (and values a tool copied from them) alive until the answer is sent.
    std::shared_ptr<const json::document> doc;
    boost::asio::cancellation_signal signal;
    /// Its entry in the connection's deadline queue while it has one.
    std::optional<connection::deadline_queue::iterator> deadline_entry;
    /// The call has been answered (deadline) or must never be (client cancellation).
    bool answered = false;
    bool cancelled = false;

    void send_progress(double done, std::optional<double> total, std::string message);
    void send_log(log_level level, std::string message, boost::json::object data);

    /// Send `method` to the client on this call's route and register the wait for its reply
    /// (client_request.cpp). @return the request's id and its pending entry, or why not
    boost::system::result<std::pair<jsonrpc::request_id, std::shared_ptr<pending_reply>>, client_request_error>
    send_request(const std::string& method, const boost::json::object& params, std::chrono::milliseconds timeout);
    /// The wait for request `id` ended without a reply: forget it and send
    /// `notifications/cancelled` for it.
    void abandon_request(const jsonrpc::request_id& id, bool timed_out);
};

/// A request this server sent to the client, awaiting its reply. The awaiting coroutine
/// sleeps on `timer` (expiring at the timeout); the reply, the connection closing or the
/// call's cancellation wakes it. Touched on the connection's strand only.
struct pending_reply {
    explicit pending_reply(const boost::asio::any_io_executor& s) : timer(s) {}
    boost::asio::steady_timer timer;
    std::optional<boost::system::result<boost::json::object, client_request_error>> outcome;
};

/// What an exception says ("unknown exception" for one that is not a std::exception).
std::string what_of(std::exception_ptr ep);

/// A list method's answer: one page of `registry` (keyed by name) after `params.cursor`,
/// `{<key>: [describe(entry)…], nextCursor?}`, or -32602 for a bad cursor.
template <class Map, class Describe>
std::variant<boost::json::object, jsonrpc::error_object> list_page(const server_core& core, const Map& registry,
                                                                   const boost::json::object* params,
                                                                   std::string_view list, std::string_view key,
                                                                   Describe describe);

/// `params[key]` if it is a string, else null.
inline const boost::json::string* string_param(const boost::json::object* params, std::string_view key) {
    const auto* v = params ? params->if_contains(key) : nullptr;
    return v ? v->if_string() : nullptr;
}

/// `params.cursor` of a list request: nothing, or the text. @return false if it is not a string
inline bool read_cursor(const boost::json::object* params, std::optional<std::string>& cursor) {
    const auto* c = params ? params->if_contains("cursor") : nullptr;
    if (!c) return true;
    if (!c->is_string()) return false;
    cursor = std::string(c->get_string());
    return true;
}

/// A JSON-RPC error for a request (`-32602` and friends).
inline jsonrpc::error_object invalid_params(std::string text) {
    return jsonrpc::error_object::make(jsonrpc::error_code::invalid_params, std::move(text));
}

}  // namespace candor::mcp::detail

namespace candor::mcp {

namespace detail {

/// One reader, prompt or completer running: answered once, by its result or by its deadline.
struct async_answer {
    explicit async_answer(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    boost::asio::cancellation_signal stop;
    bool answered = false;
};

/// The error a request past its deadline gets (`-32001`, `data.code` `DEADLINE_EXCEEDED`).
jsonrpc::error_object deadline_error(std::string_view what, std::chrono::milliseconds limit);

}  // namespace detail

template <class T, class F>
void connection::answer_async(const jsonrpc::request_id& id, std::string what, boost::asio::awaitable<T> op,
                              F result_of) {
    std::weak_ptr<connection> weak = weak_from_this();
    // The server's default deadline bounds these as it bounds tool calls: at the deadline the
    // request is answered with an error and the handler is cancelled; what it returns later is
    // dropped.
    auto state = std::make_shared<detail::async_answer>(strand_);
    const auto limit = core_->opts.default_deadline;
    state->timer.expires_after(limit);
    state->timer.async_wait(
        boost::asio::bind_executor(strand_, [weak, id, what, state, limit](boost::system::error_code ec) {
            if (ec || state->answered) return;
            state->answered = true;
            state->stop.emit(boost::asio::cancellation_type::terminal);
            auto self = weak.lock();
            if (!self) return;
            self->log(log_level::warning, what + " ran past its deadline; stopped");
            self->send_error(id, detail::deadline_error(what, limit));
        }));
    boost::asio::co_spawn(
        strand_, std::move(op),
        boost::asio::bind_cancellation_slot(
            state->stop.slot(), boost::asio::bind_executor(strand_, [weak, id, state, what = std::move(what),
                                                                     result_of = std::move(result_of)](
                                                                        std::exception_ptr ep, T value) mutable {
                state->timer.cancel();
                if (state->answered) return;
                state->answered = true;
                auto self = weak.lock();
                if (!self) return;
                if (ep) {
                    self->log(log_level::error, what + " threw: " + detail::what_of(ep));
                    self->send_error(
                        id, jsonrpc::error_object::make(jsonrpc::error_code::internal_error, "internal error"));
                    return;
                }
                self->answer(id, result_of(std::move(value)));
            })));
}

namespace detail {

template <class Map, class Describe>
std::variant<boost::json::object, jsonrpc::error_object> list_page(const server_core& core, const Map& registry,
                                                                   const boost::json::object* params,
                                                                   std::string_view list, std::string_view key,
                                                                   Describe describe) {
    std::optional<std::string> cursor;
    if (!read_cursor(params, cursor)) return invalid_params("cursor must be a string");
    decltype(page_of(registry, list, cursor, 0)) page;
    {
        std::lock_guard lock(core.mu);
        page = page_of(registry, list, cursor, core.opts.list_page_size);
    }
    if (!page) return invalid_params("invalid cursor: pass a nextCursor from an earlier list request");
    boost::json::array items;
    for (const auto& e : page->first) items.emplace_back(describe(e->info));
    boost::json::object result{{key, std::move(items)}};
    if (page->second) result["nextCursor"] = *page->second;
    return result;
}

}  // namespace detail

}  // namespace candor::mcp
