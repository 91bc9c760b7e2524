// SPDX-License-Identifier: BSL-1.0
#pragma once
// What a `connection` is behind its small public face: the session's state on the strand, and
// the parts that dispatch requests, run calls and tasks, keep subscriptions and ask the client.
// Private to the mcp module.

#include "server_core.hpp"

#include <candor/mcp/connection.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace candor::mcp::detail {

class connection_impl;

/// How the request being dispatched is served: as the session's revision, or (stateless)
/// as the revision, capabilities and client its own `_meta` names.
struct request_frame {
    protocol_rules rules;
    std::shared_ptr<const session_info> session;
    /// Stateless revision only: the level the request asked for; none, no log messages.
    std::optional<log_level> log_threshold;
};
/// How a result is dressed: plain (handshake revisions), or with `resultType`, the
/// server's identity and, for cacheable results, a caching hint.
struct reply_style {
    bool stateless = false;
    const cache_hint* cache = nullptr;
};
/// Where a session is in the handshake.
enum class phase { awaiting_initialize, initializing, ready };

// ---------------------------------------------------------------------------------------------
// The parts, each holding the connection it belongs to.

/// A connection's inbound side: intake, the lifecycle, which request goes where (both protocol
/// families), and the requests that need no part of their own (tools/list, logging/setLevel,
/// resources, prompts, completion, server/discover). Touched on the connection's strand only.
class request_dispatcher {
public:
    explicit request_dispatcher(connection_impl& c) noexcept : c_(c) {}

    void handle(std::string text);
    /// Start handling a message of `bytes` (the call records' origin); false once closed.
    bool begin_message(std::size_t bytes);
    void dispatch_message(jsonrpc::inbound& in);
    /// Answer `id` with what `result_of` makes of the awaited value, or -32603 if it throws.
    /// `asking`: the state behind the handler's `call_context`, if it has one (a handler that asked
    /// the client something on the stateless revision is answered `input_required`).
    template <class T, class F>
    void answer_async(const jsonrpc::request_id& id, std::string what, boost::asio::awaitable<T> op, F result_of,
                      reply_style style, std::shared_ptr<call_state> asking = nullptr);

private:
    void handle_request(jsonrpc::inbound& in, jsonrpc::request& req);
    /// A request of the stateless revision (its `_meta` names the version): checked, then
    /// served with the capabilities and client it names, without a session.
    void handle_stateless(jsonrpc::inbound& in, jsonrpc::request& req);
    /// The frame of a handshake revision request: the session's.
    void enter_session_frame();
    void handle_notification(jsonrpc::inbound& in, jsonrpc::notification& n);
    void on_initialize(const jsonrpc::request& req);
    void on_discover(const jsonrpc::request& req);
    void on_tools_list(const jsonrpc::request& req);
    void on_set_level(const jsonrpc::request& req);
    void on_cancelled(const jsonrpc::notification& n);
    // resources, prompts, completion (resource.cpp, prompt.cpp, completion.cpp)
    void on_resources_list(const jsonrpc::request& req);
    void on_resource_templates_list(const jsonrpc::request& req);
    void on_resources_read(const jsonrpc::request& req);
    void on_prompts_list(const jsonrpc::request& req);
    void on_prompts_get(const jsonrpc::request& req);
    void on_complete(const jsonrpc::request& req);
    // the skills extension (skills.cpp)
    void on_skills_list(const jsonrpc::request& req);
    void on_skills_get(const jsonrpc::request& req);
    void on_directory_read(const jsonrpc::request& req);
    /// Answer a list method with one page of `registry` (`list_page`), with the lists' caching hint.
    template <class Map, class Describe>
    void answer_list(const jsonrpc::request& req, const Map& registry, std::string_view list, std::string_view key,
                     Describe describe);

    connection_impl& c_;
    /// The session facts of the last stateless request, reused while the next one names the
    /// same version, capabilities and client (a stdio client sends the same `_meta` every time).
    std::shared_ptr<const session_info> stateless_session_;
    /// A request after `initialize` has arrived (observers were told once).
    bool used_ = false;
};

/// A connection's tool calls: `tools/call` from intake to the answer, the calls in flight and
/// their deadlines, result budgets, and the multi round-trip state of the stateless revision.
/// Touched on the connection's strand only.
class call_runner {
public:
    call_runner(connection_impl& c, const boost::asio::any_io_executor& strand) : c_(c), deadline_timer_(strand) {}

    void on_tools_call(jsonrpc::inbound& in, const jsonrpc::request& req);
    /// True while call `id` runs on this connection (not yet finished, nor handed to a task).
    bool in_flight(const jsonrpc::request_id& id) const { return calls_.count(id) != 0; }
    /// The client cancelled request `id`: if it is a call not answered yet, it is stopped and
    /// never answered.
    void cancel(const jsonrpc::request_id& id);
    /// The connection closed: every call is stopped, none is answered.
    void cancel_all();
    /// Call `id` becomes task `task_id`: it leaves the calls in flight and the deadline queue.
    /// @return its state, or null when it was answered in the request already (or is not the
    ///         call that reserved `task_id`)
    std::shared_ptr<call_state> hand_over(const jsonrpc::request_id& id, const std::string& task_id);
    /// Answer a call that asked the client something: `input_required` with the requests and
    /// a sealed `requestState` carrying every answer so far.
    void answer_input_required(const jsonrpc::request_id& id, call_state& state);
    /// The call state behind the `call_context` of a prompt or a resource read (`target`: the
    /// prompt's name or the URI): requests to the client on its route, and on the stateless
    /// revision the multi round-trip state of its retry.
    /// @return the state, or the JSON-RPC error for a request state that is not this request's
    boost::system::result<std::shared_ptr<call_state>, jsonrpc::error_object> open_request_context(
        const jsonrpc::request& req, std::string_view target, const boost::json::value& arguments);
    /// How a result of tool call `id` is counted against its budget.
    result_budget result_budget_of(const jsonrpc::request_id& id, const call_origin& origin, bool is_error) const;

private:
    void start_call(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                    const boost::json::value& arguments, const jsonrpc::request& req, std::optional<input_round> inputs,
                    std::string task_id, call_origin origin, std::optional<log_level> log_threshold);
    /// `start_call`, and for a task its promotion after the tool's first slice.
    void start_task_or_call(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                            const boost::json::value& arguments, const jsonrpc::request& req,
                            std::optional<input_round> inputs, std::string task_id, call_origin origin,
                            std::optional<log_level> log_threshold);
    /// A task with a shared task table: count the tasks alive on every replica first
    /// (`task_options::max_tasks`, `max_tasks_per_principal`), then start it or refuse it with
    /// `TOO_MANY_TASKS` — before the tool runs.
    void count_then_start(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                          const jsonrpc::request& req, const boost::json::value* arguments,
                          std::optional<input_round> inputs, std::string task_id, call_origin origin,
                          std::optional<log_level> log_threshold);
    static boost::asio::awaitable<void> count_and_start(std::weak_ptr<connection_impl> weak,
                                                        std::shared_ptr<server_core> server, std::string owner,
                                                        std::shared_ptr<tool_handler> tool,
                                                        std::shared_ptr<const json::document> doc, jsonrpc::request req,
                                                        const boost::json::value* arguments,
                                                        std::optional<input_round> inputs, std::string task_id,
                                                        call_origin origin, std::optional<log_level> log_threshold);
    /// A stateless call's multi round-trip state: the answers its retry brings (its
    /// `requestState`, checked, and its `inputResponses`), or a fresh round; nothing when no
    /// sealer is configured (requests to the client are then `not_supported`).
    /// @return the round, or the JSON-RPC error for a state that is not ours, not this request's,
    ///         not this caller's, or expired
    boost::system::result<std::optional<input_round>, jsonrpc::error_object> open_inputs(
        const jsonrpc::request& req, std::string_view target, const boost::json::value& arguments);
    /// The call's coroutine: runs the tool and answers the call (`finish_call`).
    static boost::asio::awaitable<void> run_call(std::weak_ptr<connection_impl> weak, jsonrpc::request_id id,
                                                 std::shared_ptr<tool_handler> tool,
                                                 std::shared_ptr<const json::document> doc,
                                                 const boost::json::value* arguments,
                                                 std::shared_ptr<call_state> state);
    void finish_call(const jsonrpc::request_id& id, std::exception_ptr ep, tool_outcome out);
    void on_deadline(const jsonrpc::request_id& id);
    /// Tool-call deadlines: one queue per connection, earliest first, and one timer armed for
    /// the earliest.
    void watch_deadline(call_state& call, const jsonrpc::request_id& id);
    void forget_deadline(call_state& call);
    void arm_deadline_timer();
    void on_deadline_timer();
    void disarm_if_idle();
    void answer_error_envelope(const jsonrpc::request_id& id, const call_origin& origin, issue i);
    /// @param handler_ran the tool's handler ran (finished, threw or was stopped at its
    ///        deadline): the record of an irreversible tool must then be stored before the
    ///        reply, unless the answer refused the arguments (intake or contract issues only)
    void answer_call(const jsonrpc::request_id& id, const call_origin& origin, tool_outcome out,
                     bool handler_ran = false);
    /// The response to tool call `id` whose envelope is written as `text`; nothing when `id`
    /// or `text` cannot be written.
    /// `block`: the text block when it is not the envelope's text (`result_text::summary`).
    std::optional<std::string> call_result(const jsonrpc::request_id& id, const call_origin& origin,
                                           std::string_view text, bool is_error,
                                           std::optional<std::string_view> block = std::nullopt) const;
    /// The result budget a `tools/call` asks for (server, tool and `_meta`, the least; a request
    /// below the floor is raised, the flag says so), or the refusal of a `_meta` budget that
    /// is not a positive integer (`INVALID_RESULT_BUDGET`).
    boost::system::result<std::pair<std::size_t, bool>, jsonrpc::error_object> result_budget_requested(
        const jsonrpc::request& req, const tool_info& info) const;

    connection_impl& c_;
    std::map<jsonrpc::request_id, std::shared_ptr<call_state>> calls_;
    /// Calls of tasks waiting for the shared table's count (`count_then_start`), by id.
    std::set<jsonrpc::request_id> counting_;
    deadline_queue deadlines_;
    boost::asio::steady_timer deadline_timer_;
    std::optional<std::chrono::steady_clock::time_point> deadline_armed_;
    /// A check is posted that stops the timer if no call is running by then.
    bool disarm_posted_ = false;
};

/// A connection's side of the tasks extension: which calls become tasks, making them tasks, and
/// `tasks/get`, `tasks/update` and `tasks/cancel`. The tasks themselves are the server's
/// (`server_core::tasks`, `server_core::task_runs`). Touched on the connection's strand only.
class task_desk {
public:
    explicit task_desk(connection_impl& c) noexcept : c_(c) {}

    /// True when the call of `tool` this request makes runs as a task.
    bool runs_as_task(const tool_handler& tool) const;
    /// Reserve a task for the call about to start: its record, counted against the limits.
    /// @return its id, or the `TOO_MANY_TASKS` issue
    boost::system::result<std::string, issue> reserve_task(const tool_handler& tool);
    /// The call `id` first waited: it becomes task `task_id`, detached from this connection, and
    /// the request is answered with the task. A call already answered frees the reservation.
    void promote_to_task(const jsonrpc::request_id& id, const std::string& task_id);
    void on_tasks_get(const jsonrpc::request& req);
    void on_tasks_update(const jsonrpc::request& req);
    void on_tasks_cancel(const jsonrpc::request& req);

private:
    /// The task a `tasks/*` request names: its record here, none when this process does not
    /// know it (another replica may), or the -32602 it is answered (no id, another's task).
    boost::system::result<std::optional<task_record>, jsonrpc::error_object> task_of(const jsonrpc::request& req,
                                                                                     std::string& id) const;
    /// The shared table when a task is not known here (`task_options::shared`), else null.
    std::shared_ptr<shared_task_table> shared() const;

    connection_impl& c_;
};

/// Who hears about changes on a connection: the open `subscriptions/listen` requests of the
/// stateless revision, and the URIs a session subscribed to (`resources/subscribe`). Touched on
/// the connection's strand only.
class subscription_table {
public:
    explicit subscription_table(connection_impl& c) noexcept : c_(c) {}

    /// `subscriptions/listen`: acknowledge, then deliver the opted-in change notifications on
    /// this request's route until it is cancelled or the connection closes.
    void on_listen(const jsonrpc::request& req);
    /// `resources/subscribe` (`subscribe`) or `resources/unsubscribe`.
    void on_resources_subscribe(const jsonrpc::request& req, bool subscribe);
    /// The client cancelled request `id`: true when it was an open listen (which ends without
    /// a response: the client closed it).
    bool cancel(const jsonrpc::request_id& id) { return listeners_.erase(id) != 0; }
    /// A list changed (`method`: its list_changed notification): an initialized session is told,
    /// and every listener that asked for it.
    void list_changed(std::string_view method);
    /// Resource `uri` changed: a session subscribed to it is told, and every listener that
    /// asked for it.
    void resource_updated(const std::string& uri);
    /// Answer every open `subscriptions/listen` (a graceful end) and forget them.
    void end_listeners();

private:
    /// Send `method` to every open `subscriptions/listen` that asked for it (`uri`: a resource
    /// update, for those subscribed to that URI).
    void notify_listeners(std::string_view method, const std::string* uri);

    connection_impl& c_;
    /// Open `subscriptions/listen` requests: their filters, by request id.
    struct listener {
        bool tools = false, prompts = false, resources = false;
        std::set<std::string, std::less<>> uris;
    };
    std::map<jsonrpc::request_id, listener> listeners_;
    /// What `resources/subscribe` asked for.
    std::set<std::string, std::less<>> uris_;
};

/// A connection's requests to the client on behalf of its calls (elicitation, sampling): their
/// ids, and the replies they await. Touched on the connection's strand only.
class client_requests {
public:
    explicit client_requests(connection_impl& c) noexcept : c_(c) {}

    /// Send `method` to the client on `route` and register the wait for its reply.
    /// @return the request's id and its pending entry, or `malformed_reply` when the params
    ///         cannot be written (a bug of tool `tool`'s, logged)
    boost::system::result<std::pair<jsonrpc::request_id, std::shared_ptr<pending_reply>>, client_request_error> send(
        const std::string& tool, const std::string& method, const boost::json::object& params,
        std::chrono::milliseconds timeout, const message_route& route);
    /// The wait for request `id` ended without a reply: forget it and send
    /// `notifications/cancelled` for it on `route`.
    void abandon(const jsonrpc::request_id& id, bool timed_out, const message_route& route);
    /// A response of the client's: it wakes the wait for the request it answers.
    void on_response(jsonrpc::response& r);
    /// The connection closed: every wait ends `cancelled`.
    void cancel_all();

private:
    connection_impl& c_;
    /// Requests this server sent to the client (elicitation, sampling) awaiting a reply.
    std::map<jsonrpc::request_id, std::shared_ptr<pending_reply>> pending_;
    std::int64_t next_id_ = 1;
};

// ---------------------------------------------------------------------------------------------
// The connection

/// A connection's state and work, owned by its `connection` and touched on its strand (the
/// durable replies' bookkeeping excepted, under its mutex): the state its parts share, the
/// parts, and what they all use to answer — sending, dressing results, the log, the records.
class connection_impl {
public:
    using routed_send_function = mcp::routed_send_function;

    connection_impl(std::shared_ptr<server_core> server, boost::asio::any_io_executor ex, routed_send_function send,
                    connection_options options);
    ~connection_impl();
    connection_impl(const connection_impl&) = delete;
    connection_impl& operator=(const connection_impl&) = delete;

    /// Set once by `server::connect_routed`: the connection's own ownership, aliased to this
    /// impl. What `shared_from_this` and `weak_from_this` hand out keeps the whole connection
    /// alive, as the connection's own would.
    void adopt(const std::shared_ptr<connection>& owner) { self_ = std::shared_ptr<connection_impl>(owner, this); }
    std::shared_ptr<connection_impl> shared_from_this() const { return std::shared_ptr<connection_impl>(self_); }
    std::weak_ptr<connection_impl> weak_from_this() const noexcept { return self_; }

    // `connection`'s public face (connection.hpp says what each does).
    void receive(std::string text);
    void receive(jsonrpc::inbound message, std::size_t bytes);
    void assume_initialized(std::string protocol_version, std::string client_name, std::string client_version,
                            boost::json::object client_capabilities);
    void set_caller(mcp::principal caller);
    void close();

    /// A registry changed (`method`: its list_changed notification): tell the client, if it
    /// listens. Thread-safe.
    void notify_list_changed(std::string_view method);
    /// Resource `uri` changed: tell the client, if it subscribed. Thread-safe.
    void notify_resource_updated(const std::string& uri);
    /// Another replica was asked to cancel request `id` of session `session_id`: stop the call
    /// if this connection is that session's and runs it. Thread-safe.
    void cancel_in_session(std::string session_id, jsonrpc::request_id id);
    /// The connection is among those told of changes (`server_core::enlist`); a connection that
    /// never was (a stateless request that does not listen) takes no server-wide lock to close.
    std::atomic<bool> enlisted{false};

    // The state every part of the connection shares. Touched on the strand only.
    std::shared_ptr<server_core> core;
    /// The connection's strand (`make_connection_strand` in connection.cpp says which kind).
    boost::asio::any_io_executor strand;
    connection_options opts;
    /// What the client said about itself: shared with every call (replaced, never changed,
    /// when `initialize` fills it in), so that a call does not copy it.
    std::shared_ptr<const session_info> session;
    protocol_rules rules;
    phase lifecycle = phase::awaiting_initialize;
    log_level client_level;
    bool closed = false;
    /// The request being dispatched (set for every request, read while it is dispatched).
    request_frame frame;
    // For observers: the message being handled.
    observer_set observers;
    call_origin current;
    std::string_view current_method;

    // The parts. They live and die with the connection and hold it by reference.
    request_dispatcher dispatcher{*this};
    call_runner calls{*this, strand};
    task_desk tasks{*this};
    subscription_table subscriptions{*this};
    client_requests to_client{*this};

    // Answering (connection.cpp).
    /// The style of the request being dispatched (`cache`: its hint if the result is cacheable).
    reply_style style_of(const cache_hint* cache = nullptr) const noexcept {
        return reply_style{current.stateless, current.stateless ? cache : nullptr};
    }
    /// `,"resultType":"complete","_meta":{serverInfo}` for a result written as text.
    void append_stateless_fields(std::string& message) const;
    /// The result message for `id`, or nothing when it cannot be written (then the request was
    /// answered with an internal error, and the failure logged).
    std::optional<std::string> result_message(const jsonrpc::request_id& id, const boost::json::value& result);
    /// @return the bytes handed to the transport
    std::size_t send_result(const jsonrpc::request_id& id, const boost::json::value& result);
    /// Send a result object dressed for `style`.
    void send_result(const jsonrpc::request_id& id, boost::json::object result, const reply_style& style);
    /// Add what a stateless result carries: `resultType` (unless set), the server's identity in
    /// `_meta`, the caching hint.
    void dress(boost::json::object& result, const reply_style& style) const;
    /// Send a result object (dressed for `style`) or a JSON-RPC error.
    void answer(const jsonrpc::request_id& id, std::variant<boost::json::object, jsonrpc::error_object> a,
                const reply_style& style);
    void send_error(const std::optional<jsonrpc::request_id>& id, const jsonrpc::error_object& e);
    void send_notification(std::string_view method, const boost::json::object& params, const message_route& route = {});
    void send_text(std::string text, const message_route& route = {});
    /// Write to the server's log; the connection's principal and session id are added to
    /// `fields` where it leaves them empty.
    void log(log_level l, std::string_view text, log_fields fields = {}) const;
    /// Write a line about one call: its tool, its request id and the codes it reports.
    void log_call(log_level l, std::string_view text, std::string_view tool, const jsonrpc::request_id& id,
                  std::span<const std::string_view> codes = {}) const;
    /// Tell every observer about this session (`session_event`).
    void tell_session(session_event::kind what) const;
    /// The tool called `name`, from the thread's registry snapshot when the connection has one.
    std::shared_ptr<tool_handler> find_tool(std::string_view name) const;

    // Records (observe.cpp).
    /// The observers' record of a call answered with `answer` (a checked envelope; null for
    /// content and refusals), sealed with its tool's name as the default resource.
    call_record record_call(const jsonrpc::request_id& id, const call_origin& origin, const envelope::envelope* answer,
                            std::string status);
    /// Hand a call's answer to the transport, its record to the observers first; for a record
    /// that must be durable, the answer leaves once every observer stored it (`publish_durable`).
    void deliver(std::string message, call_record* record, const call_origin& origin, const message_route& route,
                 bool durable);

private:
    template <class Work>
    void post_guarded(Work work);
    /// Stamp the time and duration, count repair attempts, and tell every observer.
    void publish(call_record& r, const call_origin& origin);
    /// The stamping alone: time, duration, repair attempts.
    void stamp(call_record& r, const call_origin& origin);
    /// The same through `call_observer::on_durable_record`; `message` is sent on the strand
    /// once every observer said it stored the record.
    void publish_durable(call_record& r, const call_origin& origin, std::string message, const message_route& route);

    routed_send_function send_;
    // For observers: per tool the answers in a row refused with repairable issues only (the
    // next call of that tool is a repair attempt).
    std::map<std::string, unsigned, std::less<>> repair_streak_;
    /// Replies waiting until observers stored their records (`publish_durable`): how many,
    /// work that keeps the executor running meanwhile, and whether `close` cut them off. Under
    /// the mutex, since observers report from their own threads and `close` from the
    /// transport's: a reply is posted to the strand only while the connection is not closed
    /// (transports close it before its executor goes away).
    std::mutex durable_mutex_;
    std::size_t durable_waiting_ = 0;
    boost::asio::any_io_executor durable_work_;
    bool durable_closed_ = false;
    std::weak_ptr<connection_impl> self_;
};

template <class T, class F>
void request_dispatcher::answer_async(const jsonrpc::request_id& id, std::string what, boost::asio::awaitable<T> op,
                                      F result_of, reply_style style, std::shared_ptr<detail::call_state> asking) {
    std::weak_ptr<connection_impl> weak = c_.weak_from_this();
    // The server's default deadline bounds these as it bounds tool calls: at the deadline the
    // request is answered with an error and the handler is cancelled; what it returns later is
    // dropped.
    auto state = std::make_shared<detail::async_answer>(c_.strand);
    const auto limit = c_.core->opts.default_deadline;
    state->timer.expires_after(limit);
    state->timer.async_wait(
        boost::asio::bind_executor(c_.strand, [weak, id, what, state, limit](boost::system::error_code ec) {
            if (ec || state->answered) return;
            state->answered = true;
            state->stop.emit(boost::asio::cancellation_type::terminal);
            auto self = weak.lock();
            if (!self) return;
            self->log(log_level::warning, what + " ran past its deadline; stopped");
            self->send_error(id, detail::deadline_error(what, limit));
        }));
    boost::asio::co_spawn(
        c_.strand, std::move(op),
        boost::asio::bind_cancellation_slot(
            state->stop.slot(),
            boost::asio::bind_executor(
                c_.strand, [weak, id, state, style, asking, what = std::move(what), result_of = std::move(result_of)](
                               std::exception_ptr ep, T value) mutable {
                    state->timer.cancel();
                    if (state->answered) return;
                    state->answered = true;
                    auto self = weak.lock();
                    if (!self) return;
                    if (asking && asking->inputs && !asking->inputs->asked.empty()) {
                        // It asked the client something not answered yet (stateless revision).
                        asking->answered = true;
                        self->calls.answer_input_required(id, *asking);
                        return;
                    }
                    if (asking) asking->answered = true;
                    if (ep) {
                        self->log(log_level::error, what + " threw: " + detail::what_of(ep));
                        self->send_error(
                            id, jsonrpc::error_object::make(jsonrpc::error_code::internal_error, "internal error"));
                        return;
                    }
                    self->answer(id, result_of(std::move(value)), style);
                })));
}

template <class Map, class Describe>
void request_dispatcher::answer_list(const jsonrpc::request& req, const Map& registry, std::string_view list,
                                     std::string_view key, Describe describe) {
    c_.answer(req.id, list_page(*c_.core, registry, req.params, list, key, std::move(describe)),
              c_.style_of(&c_.core->opts.caching.lists));
}

}  // namespace candor::mcp::detail
