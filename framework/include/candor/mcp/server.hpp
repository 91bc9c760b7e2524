// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The MCP server: identity, the registries of tools, resources, prompts and completions, and
/// connections.
///
/// A transport is a thin adapter. For every client it calls `server::connect` with an executor
/// and a function that delivers outbound message texts, then feeds each inbound message text
/// to `connection::receive` (candor/mcp/connection.hpp). Everything else — intake, lifecycle, dispatch, tool calls,
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
#include <candor/mcp/shared_notices.hpp>
#include <candor/mcp/shared_tasks.hpp>
#include <candor/mcp/skills.hpp>
#include <candor/mcp/stateless.hpp>
#include <candor/mcp/task_store.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/assert/source_location.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
    /// (`scope` "principal"). With a `shared` table, both limits count the tasks running on every
    /// replica as well (`shared_task_table::count_live`), before the tool runs.
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
    std::shared_ptr<task_store> store{};
    /// The table the replicas of one deployment share their tasks in (`state::sql_task_table`,
    /// `server::set_shared_tasks`): `tasks/get`, `tasks/update` and `tasks/cancel` then work from
    /// any replica (shared_tasks.hpp). Null: a task is known only to the process that runs it.
    std::shared_ptr<shared_task_table> shared{};
    /// How long a replica's lease on a task it runs holds without renewal: a task whose replica
    /// died is `failed` with `TASK_LOST` once this has passed.
    std::chrono::milliseconds lease{std::chrono::seconds(15)};
    /// How often a replica that runs tasks renews their leases and reads what other replicas
    /// did to them (a cancellation, answers): what was done elsewhere reaches the tool within it.
    std::chrono::milliseconds shared_poll_interval{500};
};

/// Server-wide settings, each with a documented default.
/// What a tool result's text block holds (`server_options::result_text_mode`).
enum class result_text { json, summary };

struct server_options {
    /// `serverInfo.name` / `.version` / `.title`.
    std::string name = "candor-server";
    std::string version = "0.1.0";
    std::string title{};
    /// `instructions` in the initialize result (omitted when empty).
    std::string instructions{};
    /// Limits on every inbound message (bytes, depth, nodes).
    json::limits message_limits{};
    /// Deadline of a tool call unless the tool sets its own (`DEADLINE_EXCEEDED` envelope), and
    /// of every resource read, prompt and completion (`-32001`, `data.code` `DEADLINE_EXCEEDED`).
    std::chrono::milliseconds default_deadline{30'000};
    /// The most bytes one tool result may take as written (the whole JSON-RPC response: the
    /// stdio line, the HTTP body or SSE `data`, both copies of the envelope included), unless a
    /// tool (`tool_info::max_result_bytes`) or the request (`_meta["io.candor/maxResultBytes"]`,
    /// `_meta["anthropic/maxResultSizeChars"]`) asks for less. Clients cut larger results
    /// themselves, silently (25,000 characters is a common cut), so the framework never sends
    /// one: a collection ends its page at the last whole item that fits (`RESULT_SIZE_LIMIT`,
    /// with a cursor right after it), any other result has its largest strings cut
    /// (`FIELD_TRUNCATED`), and one that still does not fit is `RESULT_TOO_LARGE`. 0: no limit.
    /// docs/result-budgets.md
    std::size_t max_result_bytes = 24'000;
    /// What a tool result's text block (`content[0].text`) holds: the envelope as JSON (the
    /// default, as the specification asks of structured results), or a `summary` for clients
    /// that read only text — status, counts, reasons, continuation, warnings and errors first,
    /// then the data as JSON while the answer stays within its budget. `--result-text`.
    result_text result_text_mode = result_text::json;
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
    std::vector<std::shared_ptr<call_observer>> observers{};
    /// Caching hints on the stateless revision.
    cache_options caching{};
    /// Seals the `requestState` of multi round-trip requests (stateless revision). Without one,
    /// a tool's requests to the client (elicitation, sampling, roots) get `not_supported` on
    /// that revision (said once in the log); `app::run` and `evidence::state_sealer_from` set
    /// it from the server's key ring.
    std::shared_ptr<const state_sealer> request_state_sealer{};
    /// How long a client may take to answer an `input_required` result and retry.
    std::chrono::milliseconds request_state_ttl{std::chrono::minutes(15)};
    /// Largest sealed `requestState` (it carries the answers of earlier rounds); a call whose
    /// state would be larger is answered `REQUEST_STATE_TOO_LARGE`.
    std::size_t max_request_state_bytes = 256u << 10;
    /// The tasks extension's limits and table.
    task_options tasks{};
};

/// Why a tool, resource, prompt or completion could not be registered.
enum class registration_error {
    invalid_name,    ///< not 1–128 characters of [A-Za-z0-9_.-] (a resource: empty name)
    duplicate_name,  ///< one with this name (URI, URI template) is already registered
    null_handler,    ///< no handler given
    invalid_uri,     ///< not a valid resource URI or level-1 URI template
    /// an `x-mcp-header` annotation no client could honour (see `server::add_tool`)
    invalid_header_annotation,
    /// a skill entry that breaks the extension's rules (see `server::add_skill`)
    invalid_skill,
};
std::string_view to_string(registration_error e) noexcept;
[[noreturn]] void throw_exception_from_error(registration_error e, const boost::source_location& loc);

/// Which request an outbound message belongs to, for transports that keep a stream per
/// request (Streamable HTTP answers a POST on that POST's own stream).
struct message_route {
    /// The request this message answers, or was sent on behalf of (a call's progress and log
    /// notifications); empty for messages that belong to no request (`list_changed`, an error
    /// answering an unreadable message).
    std::optional<jsonrpc::request_id> request{};
    /// True for the response itself: the last message that belongs to `request`.
    bool is_response = false;
};

namespace detail {
struct server_core;
class registry_cache;
}  // namespace detail

/// What a transport knows about a client before the first message.
struct connection_options {
    mcp::principal caller{};
    /// Transport session id (HTTP); empty otherwise.
    std::string session_id{};
    /// The transport ran `server::preflight` (with the request's headers) on every stateless
    /// request it hands this connection, and refused what it refused: the connection does not
    /// run those checks a second time.
    bool preflighted = false;
    /// The connection serves one stateless request (HTTP on the 2026-07-28 revision): it joins
    /// the connections told of changes only if that request is `subscriptions/listen`, so that
    /// an ordinary request takes no server-wide lock to open its connection.
    bool single_request = false;
    /// The registry as the transport's thread sees it (`server::make_registry_cache`), for a
    /// connection used on that thread alone: it finds its tools and observers there — no lock,
    /// and no reference count another thread writes. Null: the server's registry itself.
    std::shared_ptr<detail::registry_cache> registry{};
};

/// Delivers one outbound message text. Called on the connection's strand, one message at a
/// time, in order; it must not block.
using send_function = std::function<void(std::string)>;
/// Like `send_function`, and says which request the message belongs to.
using routed_send_function = std::function<void(std::string, const message_route&)>;

/// One client's session with the server: what transports hold (candor/mcp/connection.hpp).
class connection;

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

    /// Publish a skill (candor/mcp/skills.hpp): its files become resources, its entry is served
    /// by `skills/list` and `skills/get`, its directories by `resources/directory/read`.
    /// Thread-safe; connected clients get `notifications/resources/list_changed`. All of it is
    /// registered, or none of it.
    /// @return nothing, or why not: `invalid_skill` (a `uri` not ending in `/SKILL.md`, no
    ///         `name` or `description` string in the frontmatter, no `SKILL.md` among the files,
    ///         a file outside the skill's root or listed twice, a digest not `sha256:<64 hex>`),
    ///         `invalid_uri`, or `duplicate_name` (the skill or one of its files' URIs is taken)
    boost::system::result<void, registration_error> add_skill(skill_entry skill);

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
    /// @param registry the calling thread's cache of the registry (see
    ///        `connection_options::registry`), or null
    std::optional<request_refusal> preflight(const jsonrpc::request& req, const header_lookup* headers,
                                             detail::registry_cache* registry = nullptr) const;

    /// A cache of the registry for one thread (`connection_options::registry`): a transport
    /// that serves connections on threads of its own keeps one per thread. Thread-safe.
    std::shared_ptr<detail::registry_cache> make_registry_cache() const;

    /// Open a connection for one client.
    /// @param ex the executor the connection and its calls run on (through a strand)
    /// @param send delivers outbound message texts
    std::shared_ptr<connection> connect(boost::asio::any_io_executor ex, send_function send,
                                        connection_options opts = {});

    /// Open a connection whose outbound messages say which request they belong to.
    std::shared_ptr<connection> connect_routed(boost::asio::any_io_executor ex, routed_send_function send,
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
    /// `task_options::shared` (servers that open their state after the server is built, e.g. in
    /// `app_options::prepare`). Call it before clients connect.
    void set_shared_tasks(std::shared_ptr<shared_task_table> table);
    /// The feed the replicas of one deployment share their notices in (`state::sql_notice_feed`;
    /// shared_notices.hpp): list changes and resource updates raised here reach the clients of
    /// every replica, and a 2025-11-25 `notifications/cancelled` reaches the replica that runs
    /// the call. Call it before clients connect.
    void set_shared_notices(std::shared_ptr<shared_notices> feed, shared_notice_options options = {});
    /// `server_options::max_result_bytes` (`--max-result-bytes`); before clients connect.
    void set_max_result_bytes(std::size_t bytes);
    /// `server_options::result_text_mode` (`--result-text`); before clients connect.
    void set_result_text(result_text mode);

private:
    std::shared_ptr<detail::server_core> core_;
};

}  // namespace candor::mcp
