// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The agent's side: an MCP client that reads every server message strictly, chooses the
/// protocol era from the server's answer, and reads tool results as completeness envelopes
/// (candor/client/walk.hpp follows a collection to its end, or says why it did not). Over stdio
/// (a process it starts) and Streamable HTTP (`http://`, `https://`).
///
/// @code
///   namespace cc = candor::client;
///   auto run = [&]() -> boost::asio::awaitable<void> {
///       auto s = co_await cc::session::open(ex, cc::endpoint::of_command({"./helpdesk", "--stdio"}));
///       if (!s) co_return;  // s.error().code says why
///       auto walk = co_await cc::collect(**s, "search_tickets", {{"status", "open"}});
///       // walk->complete: every page read and the last said complete; walk->reasons: why not
///       co_await (*s)->close();
///   };
/// @endcode
///
/// A session is used from one thread (or strand) and sends one request at a time: a second
/// waits for the first. Notifications the server sends on the way go to
/// `session_options::on_notification`; its questions (elicitation, sampling, roots) to the
/// handlers the host sets in `session_options::handlers`, on either revision. Over HTTP a call
/// carries its `x-mcp-header` parameters as `Mcp-Param-*` headers (the tools are listed once to
/// learn them). A server that wants OAuth is authorized against when the endpoint carries an
/// `oauth_client` (candor/client/oauth.hpp); a call that becomes a task is followed to its end
/// (`session_options::tasks`).

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace candor::client {

/// Why a request did not get an answer the client could read. `code` is stable:
/// - `CONNECT_FAILED`: the server could not be started or reached (`detail` `TLS`: no TLS session
///   — a certificate that does not chain to a trusted authority or does not name the host);
/// - `SERVER_CLOSED`: the server ended the connection (a process that exited, a closed socket);
/// - `TIMEOUT`: no answer within `session_options::request_timeout`;
/// - `MESSAGE_REFUSED`: a server message that is not strict JSON within the limits (`detail`
///   says which: `INPUT_TOO_LARGE`, `DEPTH_LIMIT`, `DUPLICATE_KEY`, …), or not JSON-RPC 2.0;
/// - `HTTP_STATUS`: an HTTP answer that is neither a JSON-RPC message nor an event stream
///   (`http_status` says which);
/// - `RPC_ERROR`: the server answered with a JSON-RPC error (`rpc_code`, `message`, `data`);
/// - `PROTOCOL_MISMATCH`: the server speaks no revision this client speaks;
/// - `INPUT_REQUIRED`: the server asked the client something no handler answers, or asked
///   again past `session_options::max_input_rounds`;
/// - `INVALID_ENDPOINT`: a URL or command line this client cannot use, or a CA file it cannot read;
/// - `TOOL_REFUSED`: a tool whose `x-mcp-header` annotations are invalid is not called;
/// - `TASK_FAILED`: a call that ran as a task ended `failed` (`data`: the task's error) or
///   `cancelled` (`detail`: the status);
/// - `CANCELLED`: the host cancelled the request (Asio per-operation cancellation of the
///   awaiting coroutine); the server was told;
/// - `UNAUTHORIZED`: the server answered 401 or 403 and the endpoint has no `oauth_client`
///   (`http_status`; `detail` is the challenge's `error`, if any);
/// - `AUTHORIZATION_FAILED`: OAuth did not bring a token the server took (`detail` says why:
///   `RESOURCE_MISMATCH`, `ISSUER_MISMATCH`, `ISS_MISMATCH`, `AUTHORIZATION_LIMIT`, …;
///   docs/codes.md lists them).
struct client_error {
    client_error() = default;
    std::string code{};
    std::string message{};
    std::string detail{};
    std::optional<int> rpc_code{};
    std::optional<int> http_status{};
    boost::json::value data{};
};

class oauth_client;

/// Where the server is: a command to start (stdio) or an `http://` or `https://` URL
/// (Streamable HTTP).
struct endpoint {
    std::vector<std::string> command{};  ///< argv; argv[0] is looked up in PATH
    std::string url{};
    /// Sent as `Authorization: Bearer …` over HTTP.
    std::string bearer_token{};
    /// For `https://`: a PEM file of the certificate authorities to trust; empty: the system's.
    /// The server's certificate must chain to one of them and name the URL's host.
    std::string ca_file{};
    /// Over HTTP: authorize with OAuth when the server asks (401, or 403 `insufficient_scope`);
    /// its token then replaces `bearer_token`.
    std::shared_ptr<oauth_client> oauth{};
    /// The started process's standard error goes to /dev/null instead of this process's.
    bool discard_stderr = false;
    /// `NAME=value` entries set for the started process, over this process's environment.
    std::vector<std::string> environment{};

    static endpoint of_command(std::vector<std::string> argv) {
        endpoint e;
        e.command = std::move(argv);
        return e;
    }
    static endpoint of_url(std::string url, std::string token = {}) {
        endpoint e;
        e.url = std::move(url);
        e.bearer_token = std::move(token);
        return e;
    }
};

/// Which revision to speak.
enum class era {
    automatic,  ///< probe with `server/discover` (2026-07-28); fall back to `initialize` as the specification says
    modern,     ///< 2026-07-28 only: per-request `_meta`, no handshake
    legacy,     ///< 2025-11-25 only: `initialize`, then a session
};

/// Answers one request from the server: its `params` in, the result object out (or an error,
/// which the server gets as a JSON-RPC error). Must not use the session it answers for.
using request_handler = std::function<boost::asio::awaitable<boost::system::result<boost::json::object, client_error>>(
    const boost::json::object& params)>;

/// What the host lets the server ask: each handler set declares its capability (`elicitation`,
/// `sampling`, `roots`) and answers its method (`elicitation/create`, `sampling/createMessage`,
/// `roots/list`) — as a request on 2025-11-25, as an `input_required` result on 2026-07-28.
struct client_handlers {
    request_handler elicitation{};
    request_handler sampling{};
    request_handler roots{};
};

struct session_options {
    /// `clientInfo`; empty: `candor-client` and the framework's version.
    std::string client_name{};
    std::string client_version{};
    era protocol = era::automatic;
    /// A request (the probe included) unanswered this long fails with `TIMEOUT`.
    std::chrono::milliseconds request_timeout{30'000};
    /// A legacy server may not answer the probe at all: after this long the client falls back.
    std::chrono::milliseconds probe_timeout{5'000};
    /// Limits on every message from the server (`MESSAGE_REFUSED` past them).
    std::size_t max_message_bytes = 16u << 20;
    std::size_t max_depth = 128;
    std::size_t max_nodes = 2'000'000;
    /// Notifications the server sends (progress, log messages, list changes): method, params.
    std::function<void(const std::string&, const boost::json::object&)> on_notification{};
    /// The server's questions to the host (elicitation, sampling, roots).
    client_handlers handlers{};
    /// Rounds of `input_required` one request may take before it fails with `INPUT_REQUIRED`.
    std::size_t max_input_rounds = 8;
    /// 2026-07-28: declare the tasks extension (`io.modelcontextprotocol/tasks`), so a tool that
    /// supports tasks may answer a call with a task. `call_tool` then follows the task to its
    /// end — `tasks/get` every `pollIntervalMs` (held between `min_poll` and `max_poll`), the
    /// server's questions answered by the handlers through `tasks/update` — and returns its
    /// result; a call the host cancels cancels the task (`tasks/cancel`).
    bool tasks = false;
    std::chrono::milliseconds min_poll{50};
    std::chrono::milliseconds max_poll{5'000};
    /// A task not ended this long after the call began is cancelled (`tasks/cancel`) and the call
    /// fails with `TIMEOUT`: a server that keeps a task `working` forever is not polled forever.
    std::chrono::milliseconds max_task_wait{std::chrono::hours(1)};
};

/// How one request is made, besides the session's options.
struct request_options {
    /// This request's time; zero: `session_options::request_timeout`.
    std::chrono::milliseconds timeout{0};
    /// Each `notifications/progress` of this request (its `params`: `progress`, `total`,
    /// `message`). When set, the request carries a `progressToken` of its own, and its progress
    /// notifications come here rather than to `session_options::on_notification`.
    std::function<void(const boost::json::object&)> on_progress{};
};

/// A `tools/call` answer.
struct tool_result {
    /// The whole `result` object, as the server sent it.
    boost::json::object raw{};
    bool is_error = false;
    /// `structuredContent` if present, else the JSON text of `content[0]` if it parses, else null.
    boost::json::value structured{};
    /// The task the call ran as (2026-07-28, `session_options::tasks`); empty when it was
    /// answered in its request.
    std::string task_id{};
};

class session {
public:
    /// Start or reach the server, and agree on a revision.
    static boost::asio::awaitable<boost::system::result<std::unique_ptr<session>, client_error>> open(
        boost::asio::any_io_executor ex, endpoint where, session_options options);
    /// With the default options. (Not a default argument: GCC 12 destroys a coroutine's
    /// defaulted class-type argument too early.)
    static boost::asio::awaitable<boost::system::result<std::unique_ptr<session>, client_error>> open(
        boost::asio::any_io_executor ex, endpoint where) {
        return open(std::move(ex), std::move(where), session_options());
    }

    virtual ~session();
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    /// `2026-07-28` or `2025-11-25`.
    const std::string& protocol_version() const noexcept;
    /// The server's capabilities, name and version, and instructions (from `server/discover` or
    /// `initialize`).
    const boost::json::object& server_capabilities() const noexcept;
    const boost::json::object& server_info() const noexcept;
    const std::string& instructions() const noexcept;

    /// Any request; `params` gets what the revision needs (`_meta` on 2026-07-28). The result
    /// object, or why there is none.
    ///
    /// A request whose time runs out (`TIMEOUT`) or whose awaiting the host cancels (`CANCELLED`:
    /// a cancellation slot bound to the awaiting coroutine, as `co_spawn` with
    /// `bind_cancellation_slot` or an awaitable operator gives) is cancelled at the server as the
    /// transport wants it: `notifications/cancelled` over stdio and on 2025-11-25 HTTP; on
    /// 2026-07-28 HTTP its response stream is closed, which is the cancellation.
    boost::asio::awaitable<boost::system::result<boost::json::object, client_error>> request(std::string method,
                                                                                             boost::json::object params,
                                                                                             request_options how);
    boost::asio::awaitable<boost::system::result<boost::json::object, client_error>> request(
        std::string method, boost::json::object params = {}) {
        return request(std::move(method), std::move(params), request_options());
    }

    /// Every tool, all pages of `tools/list` (at most `max_pages`).
    boost::asio::awaitable<boost::system::result<std::vector<boost::json::object>, client_error>> list_tools(
        std::size_t max_pages = 100);

    /// Every item of a paged list — `resources/list` (`resources`), `resources/templates/list`
    /// (`resourceTemplates`), `prompts/list` (`prompts`), `skills/list` (`skills`), … — following
    /// `nextCursor` (at most `max_pages`; a list that goes on is `MESSAGE_REFUSED`, never a
    /// silently shortened one).
    boost::asio::awaitable<boost::system::result<std::vector<boost::json::object>, client_error>> list_all(
        std::string method, std::string key, std::size_t max_pages = 100);

    /// `tools/call`; `meta` goes to the request's `_meta` (with what the revision adds).
    boost::asio::awaitable<boost::system::result<tool_result, client_error>> call_tool(std::string name,
                                                                                       boost::json::object arguments,
                                                                                       boost::json::object meta,
                                                                                       request_options how);
    boost::asio::awaitable<boost::system::result<tool_result, client_error>> call_tool(std::string name,
                                                                                       boost::json::object arguments,
                                                                                       boost::json::object meta) {
        return call_tool(std::move(name), std::move(arguments), std::move(meta), request_options());
    }
    boost::asio::awaitable<boost::system::result<tool_result, client_error>> call_tool(std::string name,
                                                                                       boost::json::object arguments) {
        return call_tool(std::move(name), std::move(arguments), boost::json::object());
    }

    /// End the session: the process's input is closed and it is waited for (then killed after
    /// `request_timeout`); an HTTP session is deleted when the server gave one.
    boost::asio::awaitable<void> close();

    struct impl;

private:
    explicit session(std::unique_ptr<impl> i);
    std::unique_ptr<impl> impl_;
};

}  // namespace candor::client
