// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// A client's connection to an MCP server: what a transport holds and feeds. Tool authors do
/// not need it (candor/mcp/server.hpp has the server and its options); transports, embedding
/// code and tests that drive a server by hand do.

#include <candor/mcp/server.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace candor::mcp {

/// One client's session with the server. Created by `server::connect`; shared between the
/// transport and the calls running on it.
class connection : public std::enable_shared_from_this<connection> {
public:
    using send_function = mcp::send_function;
    using routed_send_function = mcp::routed_send_function;

    ~connection();
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;

    /// Hand over one inbound message text. Thread-safe; returns at once (the work is posted
    /// to the connection's strand).
    void receive(std::string text);

    /// Hand over a message the transport has read already (with `jsonrpc::read_message` and
    /// the server's `message_limits`, as `receive` would): it is not parsed a second time.
    /// `bytes` is the size of its text, for the call records. Thread-safe, ordered with
    /// `receive`.
    void receive(jsonrpc::inbound message, std::size_t bytes);

    /// For transports without a handshake on this connection (stateless HTTP: each request
    /// stands alone; a session that was initialized on another replica): the connection becomes
    /// initialized as if the client had sent `initialize` for `protocol_version` (with
    /// `client_capabilities`, client `name`/`version` as given) and `notifications/initialized`,
    /// without building and dropping an InitializeResult. The capabilities are what elicitation
    /// and sampling are checked against. Thread-safe; ordered with `receive` (both are posted to
    /// the strand).
    void assume_initialized(std::string protocol_version, std::string client_name, std::string client_version,
                            boost::json::object client_capabilities = {});

    /// The transport authenticated the client anew (same principal id, a new credential: a
    /// refreshed token, or more scopes after a step-up): requests received from now on see
    /// `caller`; calls already running keep theirs. Thread-safe; ordered with `receive`.
    void set_caller(mcp::principal caller);

    /// The transport is gone: cancel every call in flight and send nothing more. Thread-safe.
    void close();

    /// The strand everything of this connection runs on.
    const boost::asio::any_io_executor& strand() const noexcept { return strand_; }

private:
    friend class server;
    friend class detail::call_state;
    friend struct detail::server_core;
    struct call_entry;
    /// What observers need to know about a call besides its answer.
    struct call_origin {
        std::chrono::steady_clock::time_point received{};
        std::size_t bytes_in = 0;
        std::shared_ptr<const tool_handler> tool{};
        /// Who the client is for this request (the session's, or the stateless request's own).
        std::shared_ptr<const session_info> session{};
        /// The request is of the stateless revision: its result carries `resultType` and
        /// `_meta` (serverInfo).
        bool stateless = false;
        /// W3C Trace Context from the request's `_meta` (any revision), for the records.
        std::string traceparent{};
        std::string tracestate{};
        /// A tool call's result budget in bytes (0: none), and whether the request asked for
        /// less than the floor and was raised to it (a warning says so).
        std::size_t max_result_bytes = 0;
        bool result_budget_raised = false;
    };
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
    enum class phase { awaiting_initialize, initializing, ready };

    connection(std::shared_ptr<detail::server_core> core, boost::asio::any_io_executor ex, routed_send_function send,
               connection_options opts);

    void handle(std::string text);
    /// Start handling a message of `bytes` (the call records' origin); false once closed.
    bool begin_message(std::size_t bytes);
    void dispatch_message(jsonrpc::inbound& in);
    template <class Work>
    void post_guarded(Work work);
    void handle_request(jsonrpc::inbound& in, jsonrpc::request& req);
    /// A request of the stateless revision (its `_meta` names the version): checked, then
    /// served with the capabilities and client it names, without a session.
    void handle_stateless(jsonrpc::inbound& in, jsonrpc::request& req);
    void on_discover(const jsonrpc::request& req);
    /// `subscriptions/listen`: acknowledge, then deliver the opted-in change notifications on
    /// this request's route until it is cancelled or the connection closes.
    void on_listen(const jsonrpc::request& req);
    /// The frame of a handshake revision request: the session's.
    void enter_session_frame();
    /// The style of the request being dispatched (`cache`: its hint if the result is cacheable).
    reply_style style_of(const cache_hint* cache = nullptr) const noexcept {
        return reply_style{current_.stateless, current_.stateless ? cache : nullptr};
    }
    void handle_notification(jsonrpc::inbound& in, jsonrpc::notification& n);
    void on_initialize(const jsonrpc::request& req);
    void on_tools_list(const jsonrpc::request& req);
    void on_tools_call(jsonrpc::inbound& in, const jsonrpc::request& req);
    void on_set_level(const jsonrpc::request& req);
    void on_cancelled(const jsonrpc::notification& n);
    void start_call(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                    const boost::json::value& arguments, const jsonrpc::request& req,
                    std::optional<detail::input_round> inputs);
    /// A stateless call's multi round-trip state: the answers its retry brings (its
    /// `requestState`, checked, and its `inputResponses`), or a fresh round; nothing when no
    /// sealer is configured (requests to the client are then `not_supported`).
    /// @return the round, or the JSON-RPC error for a state that is not ours, not this request's,
    ///         not this caller's, or expired
    boost::system::result<std::optional<detail::input_round>, jsonrpc::error_object> open_inputs(
        const jsonrpc::request& req, std::string_view target, const boost::json::value& arguments);
    /// Answer a call that asked the client something: `input_required` with the requests and
    /// a sealed `requestState` carrying every answer so far.
    void answer_input_required(const jsonrpc::request_id& id, detail::call_state& state);
    /// The call state behind the `call_context` of a prompt or a resource read (`target`: the
    /// prompt's name or the URI): requests to the client on its route, and on the stateless
    /// revision the multi round-trip state of its retry.
    /// @return the state, or the JSON-RPC error for a request state that is not this request's
    boost::system::result<std::shared_ptr<detail::call_state>, jsonrpc::error_object> open_request_context(
        const jsonrpc::request& req, std::string_view target, const boost::json::value& arguments);
    /// `,"resultType":"complete","_meta":{serverInfo}` for a result written as text.
    void append_stateless_fields(std::string& message) const;
    /// The call's coroutine: runs the tool and answers the call (`finish_call`).
    static boost::asio::awaitable<void> run_call(std::weak_ptr<connection> weak, jsonrpc::request_id id,
                                                 std::shared_ptr<tool_handler> tool,
                                                 std::shared_ptr<const json::document> doc,
                                                 const boost::json::value* arguments,
                                                 std::shared_ptr<detail::call_state> state);
    void finish_call(const jsonrpc::request_id& id, std::exception_ptr ep, tool_outcome out);
    void on_deadline(const jsonrpc::request_id& id);
    /// Tool-call deadlines: one queue per connection, earliest first, and one timer armed for
    /// the earliest.
    void watch_deadline(detail::call_state& call, const jsonrpc::request_id& id);
    void forget_deadline(detail::call_state& call);
    void arm_deadline_timer();
    void on_deadline_timer();
    void disarm_if_idle();
    void answer_error_envelope(const jsonrpc::request_id& id, const call_origin& origin, issue i);
    /// @param handler_ran the tool's handler ran (finished, threw or was stopped at its
    ///        deadline): the record of an irreversible tool must then be stored before the
    ///        reply, unless the answer refused the arguments (intake or contract issues only)
    void answer_call(const jsonrpc::request_id& id, const call_origin& origin, tool_outcome out,
                     bool handler_ran = false);
    /// Hand a call's answer to the transport, its record to the observers first; for a record
    /// that must be durable, the answer leaves once every observer stored it (`publish_durable`).
    void deliver(std::string message, call_record* record, const call_origin& origin, const message_route& route,
                 bool durable);
    /// The response to tool call `id` whose envelope is written as `text`; nothing when `id`
    /// or `text` cannot be written.
    /// `block`: the text block when it is not the envelope's text (`result_text::summary`).
    std::optional<std::string> call_result(const jsonrpc::request_id& id, const call_origin& origin,
                                           std::string_view text, bool is_error,
                                           std::optional<std::string_view> block = std::nullopt) const;
    /// How a result of tool call `id` is counted against its budget.
    result_budget result_budget_of(const jsonrpc::request_id& id, const call_origin& origin, bool is_error) const;
    /// The result budget a `tools/call` asks for (server, tool and `_meta`, the least; a request
    /// below the floor is raised, the flag says so), or the refusal of a `_meta` budget that
    /// is not a positive integer (`INVALID_RESULT_BUDGET`).
    boost::system::result<std::pair<std::size_t, bool>, jsonrpc::error_object> result_budget_requested(
        const jsonrpc::request& req, const tool_info& info) const;
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
    /// The observers' record of a call answered with `answer` (a checked envelope; null for
    /// content and refusals), sealed with its tool's name as the default resource.
    call_record record_call(const jsonrpc::request_id& id, const call_origin& origin, const envelope::envelope* answer,
                            std::string status);
    /// Stamp the time and duration, count repair attempts, and tell every observer.
    void publish(call_record& r, const call_origin& origin);
    /// The stamping alone: time, duration, repair attempts.
    void stamp(call_record& r, const call_origin& origin);
    /// The same through `call_observer::on_durable_record`; `message` is sent on the strand
    /// once every observer said it stored the record.
    void publish_durable(call_record& r, const call_origin& origin, std::string message, const message_route& route);
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
    void notify_list_changed(std::string_view method);
    /// Send `method` to every open `subscriptions/listen` that asked for it (`uri`: a resource
    /// update, for those subscribed to that URI).
    void notify_listeners(std::string_view method, const std::string* uri);
    /// Answer every open `subscriptions/listen` (a graceful end) and forget them.
    void end_listeners();
    void notify_resource_updated(const std::string& uri);
    void on_response(jsonrpc::response& r);
    // resources, prompts, completion (resource.cpp, prompt.cpp, completion.cpp)
    void on_resources_list(const jsonrpc::request& req);
    void on_resource_templates_list(const jsonrpc::request& req);
    void on_resources_read(const jsonrpc::request& req);
    void on_resources_subscribe(const jsonrpc::request& req, bool subscribe);
    void on_prompts_list(const jsonrpc::request& req);
    void on_prompts_get(const jsonrpc::request& req);
    void on_complete(const jsonrpc::request& req);
    // tasks (tasks.cpp)
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
    /// The task a `tasks/*` request names, if its caller owns it; else the -32602 it is answered.
    boost::system::result<task_record, jsonrpc::error_object> task_of(const jsonrpc::request& req) const;
    /// Send a result object (dressed for `style`) or a JSON-RPC error.
    void answer(const jsonrpc::request_id& id, std::variant<boost::json::object, jsonrpc::error_object> a,
                const reply_style& style);
    /// Answer `id` with what `result_of` makes of the awaited value, or -32603 if it throws.
    template <class T, class F>
    /// `asking`: the state behind the handler's `call_context`, if it has one (a handler that asked
    /// the client something on the stateless revision is answered `input_required`).
    void answer_async(const jsonrpc::request_id& id, std::string what, boost::asio::awaitable<T> op, F result_of,
                      reply_style style, std::shared_ptr<detail::call_state> asking = nullptr);

    std::shared_ptr<detail::server_core> core_;
    /// The connection's strand (`make_connection_strand` in server.cpp says which kind).
    boost::asio::any_io_executor strand_;
    routed_send_function send_;
    connection_options opts_;
    /// What the client said about itself: shared with every call (replaced, never changed,
    /// when `initialize` fills it in), so that a call does not copy it.
    std::shared_ptr<const session_info> session_;
    protocol_rules rules_;
    /// The request being dispatched (set for every request, read while it is dispatched).
    request_frame frame_;
    /// The session facts of the last stateless request, reused while the next one names the
    /// same version, capabilities and client (a stdio client sends the same `_meta` every time).
    std::shared_ptr<const session_info> stateless_session_;
    /// Open `subscriptions/listen` requests: their filters, by request id.
    struct listener {
        bool tools = false, prompts = false, resources = false;
        std::set<std::string, std::less<>> uris;
    };
    std::map<jsonrpc::request_id, listener> listeners_;
    phase phase_ = phase::awaiting_initialize;
    log_level client_level_;
    bool closed_ = false;
    std::map<jsonrpc::request_id, std::shared_ptr<detail::call_state>> calls_;
    using deadline_queue = std::multimap<std::chrono::steady_clock::time_point, jsonrpc::request_id>;
    deadline_queue deadlines_;
    boost::asio::steady_timer deadline_timer_;
    std::optional<std::chrono::steady_clock::time_point> deadline_armed_;
    /// A check is posted that stops the timer if no call is running by then.
    bool disarm_posted_ = false;
    // For observers: the message being handled, and per tool the answers in a row refused
    // with repairable issues only (the next call of that tool is a repair attempt).
    std::vector<std::shared_ptr<call_observer>> observers_;
    call_origin current_;
    std::string_view current_method_;
    /// A request after `initialize` has arrived (observers were told once).
    bool used_ = false;
    std::map<std::string, unsigned, std::less<>> repair_streak_;
    /// Requests this server sent to the client (elicitation, sampling) awaiting a reply.
    std::map<jsonrpc::request_id, std::shared_ptr<detail::pending_reply>> pending_;
    std::int64_t next_outbound_id_ = 1;
    std::set<std::string, std::less<>> subscriptions_;
    /// Replies waiting until observers stored their records (`publish_durable`): how many,
    /// work that keeps the executor running meanwhile, and whether `close` cut them off. Under
    /// the mutex, since observers report from their own threads and `close` from the
    /// transport's: a reply is posted to the strand only while the connection is not closed
    /// (transports close it before its executor goes away).
    std::mutex durable_mutex_;
    std::size_t durable_waiting_ = 0;
    boost::asio::any_io_executor durable_work_;
    bool durable_closed_ = false;
};

}  // namespace candor::mcp
