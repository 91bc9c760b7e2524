// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The MCP server: identity, the registries of tools, resources, prompts and completions, and
/// connections.
///
/// A transport is a thin adapter. For every client it calls `server::connect` with an executor
/// and a function that delivers outbound message texts, then feeds each inbound message text
/// to `connection::receive`. Everything else — intake, lifecycle, dispatch, tool calls,
/// cancellation, deadlines — happens here, on a strand per connection, so the server runs on
/// any executor (one thread or many) and a transport never sees an exception.

#include <candor/json/intake.hpp>
#include <candor/jsonrpc/message.hpp>
#include <candor/mcp/call_context.hpp>
#include <candor/mcp/completion.hpp>
#include <candor/mcp/logging.hpp>
#include <candor/mcp/observer.hpp>
#include <candor/mcp/prompt.hpp>
#include <candor/mcp/protocol.hpp>
#include <candor/mcp/resource.hpp>
#include <candor/mcp/stateless.hpp>
#include <candor/mcp/task_store.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/assert/source_location.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
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

/// A caching hint of the stateless revision: how long a client may keep a result
/// (`ttlMs`, never negative) and whether shared caches may (`cacheScope` "public") or only the
/// caller's own ("private").
struct cache_hint {
    std::chrono::milliseconds ttl{0};
    bool shared = false;
};

/// The hints `server/discover`, the lists and `resources/read` carry on the stateless revision.
struct cache_options {
    /// Versions, capabilities and identity change only with a new build.
    cache_hint discover{std::chrono::minutes(60), true};
    /// `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`: the same for
    /// every caller (changes reach listeners through `subscriptions/listen` at once).
    cache_hint lists{std::chrono::minutes(5), true};
    /// `resources/read`: readers see the caller, so the default is private and immediately
    /// stale; a reader's own hint (`resource_info::cache`) wins.
    cache_hint reads{std::chrono::milliseconds(0), false};
};

/// Limits and hints of the tasks extension (`io.modelcontextprotocol/tasks`, docs/protocol.md
/// "Tasks"). Tasks live in this process unless `store` says otherwise.
struct task_options {
    /// Tasks held at once, server-wide (running, or terminal and not yet expired); one more is
    /// refused with `TOO_MANY_TASKS` (`limit`, `scope` "server").
    std::size_t max_tasks = 1000;
    /// Tasks one principal holds at once; one more is refused with `TOO_MANY_TASKS`
    /// (`scope` "principal").
    std::size_t max_tasks_per_principal = 100;
    /// How long a task stays readable after it reached a terminal status (`ttlMs`); then
    /// `tasks/get` answers -32602 as for an unknown task.
    std::chrono::milliseconds ttl{std::chrono::hours(1)};
    /// Largest CallToolResult a task keeps (serialized bytes); a larger one is replaced by a
    /// `TASK_RESULT_TOO_LARGE` tool error (`limit`).
    std::size_t max_result_bytes = 1u << 20;
    /// `pollIntervalMs`: how often a client should poll `tasks/get`.
    std::chrono::milliseconds poll_interval{500};
    /// The task table; null: this process's own (`make_memory_task_store`).
    std::shared_ptr<task_store> store;
};

/// Server-wide settings, each with a documented default.
struct server_options {
    /// `serverInfo.name` / `.version` / `.title`.
    std::string name = "candor-server";
    std::string version = "0.1.0";
    std::string title;
    /// `instructions` in the initialize result (omitted when empty).
    std::string instructions;
    /// Limits on every inbound message (bytes, depth, nodes).
    json::limits message_limits{};
    /// Deadline of a tool call unless the tool sets its own (`DEADLINE_EXCEEDED` envelope), and
    /// of every resource read, prompt and completion (`-32001`, `data.code` `DEADLINE_EXCEEDED`).
    std::chrono::milliseconds default_deadline{30'000};
    /// Tool calls one connection may have running at once; more get `TOO_MANY_CALLS_IN_FLIGHT`.
    std::size_t max_calls_in_flight = 16;
    /// Tools per `tools/list` page.
    std::size_t tools_page_size = 100;
    /// Resources, resource templates and prompts per list page.
    std::size_t list_page_size = 100;
    /// Resources one connection may subscribe to at once; more get -32602.
    std::size_t max_subscriptions = 1000;
    /// Client log level until it sends `logging/setLevel`.
    log_level client_log_level = log_level::info;
    /// The server's own log (defaults to stderr). Called from whatever thread runs a
    /// connection, so it must be thread-safe; empty means no log.
    log_sink log = stderr_log_sink();
    /// Told about every answered call and refused message (journal, metrics, console); see
    /// observer.hpp. More can be added with `server::add_observer` before clients connect.
    std::vector<std::shared_ptr<call_observer>> observers;
    /// Caching hints on the stateless revision.
    cache_options caching;
    /// Seals the `requestState` of multi round-trip requests (stateless revision). Without one,
    /// a tool's requests to the client (elicitation, sampling, roots) get `not_supported` on
    /// that revision (said once in the log); `app::run` and `evidence::state_sealer_from` set
    /// it from the server's key ring.
    std::shared_ptr<const state_sealer> request_state_sealer;
    /// How long a client may take to answer an `input_required` result and retry.
    std::chrono::milliseconds request_state_ttl{std::chrono::minutes(15)};
    /// Largest sealed `requestState` (it carries the answers of earlier rounds); a call whose
    /// state would be larger is answered `REQUEST_STATE_TOO_LARGE`.
    std::size_t max_request_state_bytes = 256u << 10;
    /// The tasks extension's limits and table.
    task_options tasks;
};

/// Why a tool, resource, prompt or completion could not be registered.
enum class registration_error {
    invalid_name,    ///< not 1–128 characters of [A-Za-z0-9_.-] (a resource: empty name)
    duplicate_name,  ///< one with this name (URI, URI template) is already registered
    null_handler,    ///< no handler given
    invalid_uri,     ///< not a valid resource URI or level-1 URI template
    /// an `x-mcp-header` annotation no client could honour (see `server::add_tool`)
    invalid_header_annotation,
};
std::string_view to_string(registration_error e) noexcept;
[[noreturn]] void throw_exception_from_error(registration_error e, const boost::source_location& loc);

/// Which request an outbound message belongs to, for transports that keep a stream per
/// request (Streamable HTTP answers a POST on that POST's own stream).
struct message_route {
    /// The request this message answers, or was sent on behalf of (a call's progress and log
    /// notifications); empty for messages that belong to no request (`list_changed`, an error
    /// answering an unreadable message).
    std::optional<jsonrpc::request_id> request;
    /// True for the response itself: the last message that belongs to `request`.
    bool is_response = false;
};

/// What a transport knows about a client before the first message.
struct connection_options {
    mcp::principal caller;
    /// Transport session id (HTTP); empty otherwise.
    std::string session_id;
};

namespace detail {
struct server_core;
class call_state;
struct pending_reply;
struct input_round;
struct task_run;
}  // namespace detail

/// One client's session with the server. Created by `server::connect`; shared between the
/// transport and the calls running on it.
class connection : public std::enable_shared_from_this<connection> {
public:
    /// Delivers one outbound message text. Called on the connection's strand, one message at a
    /// time, in order; it must not block.
    using send_function = std::function<void(std::string)>;
    /// Like `send_function`, and says which request the message belongs to.
    using routed_send_function = std::function<void(std::string, const message_route&)>;

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

    /// For transports without a handshake (stateless HTTP: each request stands alone): the
    /// connection becomes initialized as if the client had sent `initialize` for
    /// `protocol_version` (with no capabilities, client `name`/`version` as given) and
    /// `notifications/initialized`, without building and dropping an InitializeResult.
    /// Thread-safe; ordered with `receive` (both are posted to the strand).
    void assume_initialized(std::string protocol_version, std::string client_name, std::string client_version);

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
        std::chrono::steady_clock::time_point received;
        std::size_t bytes_in = 0;
        std::shared_ptr<const tool_handler> tool;
        /// Who the client is for this request (the session's, or the stateless request's own).
        std::shared_ptr<const session_info> session;
        /// The request is of the stateless revision: its result carries `resultType` and
        /// `_meta` (serverInfo).
        bool stateless = false;
        /// W3C Trace Context from the request's `_meta` (any revision), for the records.
        std::string traceparent;
        std::string tracestate;
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
    /// the earliest (a timer per call cost a queue insertion, a cancellation and an aborted
    /// handler on every call).
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
    /// The connection's strand, as an any_io_executor. On an io_context it is a strand of the
    /// io_context's own executor, which fits the any_io_executor's inline storage: copying,
    /// converting or re-preferring it (Asio does so several times per call) never allocates.
    /// A strand of a type-erased executor does not fit and is the fallback for other executors.
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

/// An MCP server. Tools can be added and removed at any time; connected clients are told
/// with `notifications/tools/list_changed`.
class server {
public:
    explicit server(server_options opts = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    /// Register a tool. Thread-safe. Parameters whose schema carries `x-mcp-header` are mirrored
    /// into `Mcp-Param-…` headers by clients on Streamable HTTP and checked against the body; an
    /// annotation a client would have to reject (not a token, repeated, on a non-primitive
    /// property, or off a chain of `properties`) refuses the tool.
    /// @return nothing, or why not (invalid or duplicate name, invalid header annotation)
    boost::system::result<void, registration_error> add_tool(std::shared_ptr<tool_handler> tool);

    /// Unregister a tool; calls already running finish. Thread-safe.
    /// @return true if a tool of that name existed
    bool remove_tool(std::string_view name);

    /// Register a fixed resource; its URI is its key. Thread-safe; connected clients get
    /// `notifications/resources/list_changed`.
    boost::system::result<void, registration_error> add_resource(resource_info info, resource_reader read);
    /// Register a resource template; `resources/read` of a URI that matches no fixed resource
    /// goes to the first template (in template order) that matches it.
    boost::system::result<void, registration_error> add_resource_template(resource_template_info info,
                                                                          resource_reader read);
    /// Unregister a fixed resource or a template (by URI or URI template). Thread-safe.
    bool remove_resource(std::string_view uri_or_template);
    /// Send `notifications/resources/updated` to every connection subscribed to `uri`.
    /// Thread-safe.
    void notify_resource_updated(std::string_view uri);

    /// Register a prompt. Thread-safe; connected clients get
    /// `notifications/prompts/list_changed`.
    boost::system::result<void, registration_error> add_prompt(prompt_info info, prompt_function get);
    bool remove_prompt(std::string_view name);

    /// Register the completer of a prompt's arguments or a template's variables (one per
    /// ref). A prompt or template without one completes to no values. Thread-safe.
    boost::system::result<void, registration_error> add_completion(completion_ref ref, completion_function fn);

    /// The tool registered as `name`, or null. Thread-safe.
    std::shared_ptr<const tool_handler> find_tool(std::string_view name) const;

    /// The tool's `tools/list` entry as the latest protocol version shows it, or null.
    boost::json::value describe_tool(std::string_view name) const;

    /// Every tool's `tools/list` entry (latest protocol version), in listing order.
    boost::json::array describe_tools() const;

    /// Run a tool's whole argument pipeline offline — strict intake with the message byte
    /// limit and the tool's budget, then its schema/contract — without calling it.
    /// @param name the tool
    /// @param arguments_text the arguments as JSON text (an object)
    /// @return the issues (empty: the call would be accepted), or nothing for an unknown tool
    std::optional<issue_list> check_arguments(std::string_view name, std::string_view arguments_text) const;

    /// The checks a stateless revision request passes before it is dispatched, in the order
    /// clients and the conformance suite expect: `_meta` (-32602), the `MCP-Protocol-Version`
    /// header against it (-32020), the version (-32022), the `Mcp-Method` and `Mcp-Name` headers
    /// (-32020), the method (-32601, HTTP 404), the capabilities the tool needs (-32021), the
    /// `Mcp-Param-…` headers (-32020). `headers` is null for transports without headers (stdio),
    /// which skips the header checks. Thread-safe.
    /// @return the refusal, or nothing when the request may go on
    std::optional<request_refusal> preflight(const jsonrpc::request& req, const header_lookup* headers) const;

    /// Open a connection for one client.
    /// @param ex the executor the connection and its calls run on (through a strand)
    /// @param send delivers outbound message texts
    std::shared_ptr<connection> connect(boost::asio::any_io_executor ex, connection::send_function send,
                                        connection_options opts = {});

    /// Open a connection whose outbound messages say which request they belong to.
    std::shared_ptr<connection> connect_routed(boost::asio::any_io_executor ex, connection::routed_send_function send,
                                               connection_options opts = {});

    const server_options& options() const noexcept;

    /// Replace the server's log sink (`server_options::log`), e.g. with the format and level an
    /// operator chose. Not safe while clients are connected: call it before serving.
    /// @param sink the new sink; an empty one turns the log off
    void set_log(log_sink sink);

    /// Add an observer; connections opened from now on report to it. Thread-safe.
    void add_observer(std::shared_ptr<call_observer> observer);

    /// Set `server_options::request_state_sealer` (servers that load their keys after the
    /// server is built, e.g. in `app_options::prepare`). Call it before clients connect.
    void set_request_state_sealer(std::shared_ptr<const state_sealer> sealer);

private:
    std::shared_ptr<detail::server_core> core_;
};

}  // namespace candor::mcp
