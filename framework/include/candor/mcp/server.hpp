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
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace candor::mcp {

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
};

/// Why a tool, resource, prompt or completion could not be registered.
enum class registration_error {
    invalid_name,    ///< not 1–128 characters of [A-Za-z0-9_.-] (a resource: empty name)
    duplicate_name,  ///< one with this name (URI, URI template) is already registered
    null_handler,    ///< no handler given
    invalid_uri,     ///< not a valid resource URI or level-1 URI template
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
    void handle_notification(jsonrpc::inbound& in, jsonrpc::notification& n);
    void on_initialize(const jsonrpc::request& req);
    void on_tools_list(const jsonrpc::request& req);
    void on_tools_call(jsonrpc::inbound& in, const jsonrpc::request& req);
    void on_set_level(const jsonrpc::request& req);
    void on_cancelled(const jsonrpc::notification& n);
    void start_call(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                    const boost::json::value& arguments, const jsonrpc::request& req);
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
    void answer_call(const jsonrpc::request_id& id, const call_origin& origin, tool_outcome out);
    /// @return the bytes handed to the transport
    /// `before_send(bytes)` runs once the message is written and before it leaves (observers
    /// record a call before its client can see the answer).
    std::size_t send_result(const jsonrpc::request_id& id, const boost::json::value& result,
                            const std::function<void(std::size_t)>& before_send = {});
    /// The observers' record of a call answered with `answer` (a checked envelope; null for
    /// content and refusals), sealed with its tool's name as the default resource.
    call_record record_call(const jsonrpc::request_id& id, const call_origin& origin, const envelope::envelope* answer,
                            std::string status);
    /// Stamp the time and duration, count repair attempts, and tell every observer.
    void publish(call_record& r, const call_origin& origin);
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
    /// Send a result object or a JSON-RPC error.
    void answer(const jsonrpc::request_id& id, const std::variant<boost::json::object, jsonrpc::error_object>& a);
    /// Answer `id` with what `result_of` makes of the awaited value, or -32603 if it throws.
    template <class T, class F>
    void answer_async(const jsonrpc::request_id& id, std::string what, boost::asio::awaitable<T> op, F result_of);

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
};

/// An MCP server. Tools can be added and removed at any time; connected clients are told
/// with `notifications/tools/list_changed`.
class server {
public:
    explicit server(server_options opts = {});
    ~server();
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    /// Register a tool. Thread-safe.
    /// @return nothing, or why not (invalid or duplicate name)
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

private:
    std::shared_ptr<detail::server_core> core_;
};

}  // namespace candor::mcp
