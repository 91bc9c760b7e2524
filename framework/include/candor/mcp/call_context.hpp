// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// What a running tool call can know and do besides reading its arguments: its deadline and
/// cancellation, progress, logging to the client, the caller's principal and the session.

#include <candor/mcp/logging.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::mcp {

/// What an authenticator established about a caller besides its id: for OAuth, the verified
/// claims of the access token (never the token itself).
struct credential {
    /// The token's issuer (`iss`) and subject (`sub`).
    std::string issuer{};
    std::string subject{};
    /// The OAuth client the token was issued to (`client_id`, else `azp`); may be empty.
    std::string client_id{};
    /// Granted scopes (broader scopes already expanded to the narrower ones they imply).
    std::vector<std::string> scopes{};
    /// Groups or roles from the configured claim; empty when none is configured.
    std::vector<std::string> groups{};
    /// When the token expires.
    std::chrono::system_clock::time_point expires_at{};

    /// @return true if `scope` was granted
    bool has_scope(std::string_view scope) const noexcept;
    /// @return true if the caller is in `group`
    bool in_group(std::string_view group) const noexcept;
};

/// Who is calling, as the transport established it (bearer token, OS user, …). An empty `id`
/// is an anonymous caller (e.g. stdio without authentication).
struct principal {
    std::string id{};
    /// The verified facts behind `id` (OAuth); null when the transport has none (stdio, static
    /// bearer tokens, in-memory): then a tool's required scopes do not apply to the caller.
    std::shared_ptr<const mcp::credential> credential{};
};

/// The connection-level facts a tool may want: who the client is and what it speaks.
struct session_info {
    /// Transport session id (HTTP `Mcp-Session-Id`); empty for stdio and in-memory.
    std::string id{};
    /// The negotiated protocol version; empty before `initialize`.
    std::string protocol_version{};
    std::string client_name{};
    std::string client_version{};
    /// `capabilities` the client declared in `initialize` (elicitation, sampling, …).
    boost::json::object client_capabilities{};
};

/// Why a request the server sent to the client (elicitation, sampling) has no usable answer.
enum class client_request_error {
    not_supported = 1,  ///< the client did not declare the capability in `initialize`
    timeout,            ///< no reply within the timeout
    cancelled,          ///< the call was cancelled (client, deadline or disconnect) while waiting
    rejected,           ///< the client answered with a JSON-RPC error
    malformed_reply,    ///< the reply's result does not have the shape the spec prescribes
};
std::string_view to_string(client_request_error e) noexcept;

/// The user's answer to `elicitation/create`.
enum class elicitation_action { accept, decline, cancel };

struct elicitation_result {
    elicitation_action action = elicitation_action::cancel;
    /// The submitted form (only for `accept`).
    boost::json::object content{};
    /// Names this answer for single use: a retry that presents the same answer again (the same
    /// `requestState` and `inputResponses` replayed, on the stateless revision) has the same
    /// id, any other answer another. Empty when the client answered before it was asked
    /// (`inputResponses` without `requestState`): then nothing tells the answer from a replay,
    /// and no user was shown the question.
    std::string answer_id{};
    /// Until when a retry can present this answer again (the expiry of the request state it
    /// came with; now for an answer that arrives once): a record of its use must outlive it.
    std::chrono::system_clock::time_point replayable_until{};
};

/// The client's answer to `sampling/createMessage`.
struct sampling_result {
    std::string role{};  ///< "assistant" (or "user")
    /// One content block (an object), or several (an array, 2025-11-25 tool use).
    boost::json::value content{};
    std::string model{};
    std::string stop_reason{};  ///< empty when the client gave none
};

/// The byte budget of a call's result, and how its size is counted: a result whose envelope is
/// written as `text` takes `size_of(text)` bytes on the wire.
struct result_budget {
    /// The most bytes the whole response may take (`server_options::max_result_bytes`, or less).
    std::size_t limit = 0;
    /// The response's bytes besides the envelope's copies (the JSON-RPC frame, the content
    /// block, the protocol's fields).
    std::size_t framing = 0;
    /// The envelope goes out twice: escaped in `content[0].text`, and as `structuredContent`.
    bool structured = true;
    /// The response's size for an envelope written as `text` (what `envelope::write_sealed`
    /// writes): `framing`, the escaped text, and the structured copy.
    std::size_t size_of(std::size_t text_bytes, std::size_t escaped_text_bytes) const noexcept {
        return framing + escaped_text_bytes + (structured ? text_bytes : 0);
    }
};

/// One request to the client, for `call_context::request_client_all`.
struct client_request {
    std::string method{};
    boost::json::object params{};
    /// Its key in the `inputRequests` of an `input_required` result (stateless revision); empty:
    /// the framework names it ("elicitation_1", …). Keys must differ within one call.
    std::string key = {};
};

namespace detail {
class call_state;
}

/// Handed to a tool for the duration of one call. Use it from the tool's coroutine: it runs on
/// the connection's strand, where sending progress and log messages is ordered before the
/// call's response.
class call_context {
public:
    explicit call_context(std::shared_ptr<detail::call_state> state) noexcept;

    /// The tool's name.
    const std::string& tool() const noexcept;
    /// When the framework stops the call and answers `DEADLINE_EXCEEDED`. A tool that can
    /// return partial data should watch it and return `TIME_BUDGET_EXCEEDED` before then.
    std::chrono::steady_clock::time_point deadline() const noexcept;
    /// Time left until the deadline (zero when past it).
    std::chrono::milliseconds remaining() const noexcept;
    /// True once the call was cancelled (by the client or by the deadline). Asynchronous
    /// operations awaited by the tool are cancelled too, through the coroutine's cancellation
    /// slot; this flag is for loops that do not await.
    bool cancelled() const noexcept;
    /// The id under which the client follows this call as a task (`tool_info::tasks`, on the
    /// stateless revision when the request declared the extension), from the tool's start;
    /// empty when the call is answered in its request. A job that records its runs can name
    /// them by it. A call that returns before it first waits is answered in the request all the
    /// same, and its id is never shown to the client.
    const std::string& task_id() const noexcept;

    /// Send `notifications/progress` if the request carried `_meta.progressToken`; otherwise do
    /// nothing. Values that do not increase are dropped (the spec requires an increase).
    void progress(double done, std::optional<double> total = {}, std::string message = {});

    /// Send `notifications/message` to the client if `level` passes the client's
    /// `logging/setLevel`. Put facts here, never the raw arguments.
    void log(log_level level, std::string message, boost::json::object data = {});

    /// True if the client declared the `elicitation` / `sampling` capability.
    bool can_elicit() const noexcept;
    bool can_sample() const noexcept;

    /// Send a request to the client on behalf of this call (on the call's stream over HTTP,
    /// stdout over stdio) and await its reply. Waiting ends with the reply, the timeout, or the
    /// call's cancellation (client, deadline, disconnect), whichever comes first; on timeout
    /// or cancellation the client is sent `notifications/cancelled` for the request.
    /// `elicitation/create`, `sampling/createMessage` and `roots/list` are refused with
    /// `not_supported` (nothing is sent) unless the client declared the matching capability.
    ///
    /// On the stateless revision (2026-07-28) there are no requests from server to client: the
    /// call is answered `input_required` with this request in it, and when the client retries
    /// with the answer, the tool runs again from the start and this call returns the answer at
    /// once (multi round-trip requests). So a tool that asks must ask before it changes
    /// anything, and ask the same questions in the same order when run again on the same
    /// arguments — the approval gate does. Do not catch what this throws on that revision
    /// (it is not a `std::exception`); a tool that does is answered `input_required` anyway.
    ///
    /// In a call that runs as a task (`tool_info::tasks`), the request joins the task's
    /// `inputRequests` (status `input_required`) and this call waits for the client's
    /// `tasks/update`, the timeout or the task's cancellation — as on the handshake revisions.
    /// @return the reply's `result`, or why there is none
    boost::asio::awaitable<boost::system::result<boost::json::object, client_request_error>> request_client(
        std::string method, boost::json::object params, std::chrono::milliseconds timeout = std::chrono::minutes(5));

    /// Several requests to the client at once (two questions a form needs together): on the
    /// handshake revisions they are sent together and awaited together; on the stateless
    /// revision every one not answered yet goes out in the same `input_required` result.
    /// @return one outcome per request, in order
    boost::asio::awaitable<std::vector<boost::system::result<boost::json::object, client_request_error>>>
    request_client_all(std::vector<client_request> requests,
                       std::chrono::milliseconds timeout = std::chrono::minutes(5));

    /// `elicitation/create`: ask the user through the client. Refused with `not_supported`
    /// (nothing is sent) unless the client declared the capability.
    boost::asio::awaitable<boost::system::result<elicitation_result, client_request_error>> elicit(
        std::string message, boost::json::object requested_schema,
        std::chrono::milliseconds timeout = std::chrono::minutes(5));

    /// `sampling/createMessage`: ask the client's model. Refused with `not_supported` (nothing
    /// is sent) unless the client declared the capability.
    /// @param messages `SamplingMessage`s (`{role, content}`)
    /// @param max_tokens `maxTokens`
    /// @param options further request fields (`systemPrompt`, `temperature`,
    ///        `modelPreferences`, …), sent as given
    boost::asio::awaitable<boost::system::result<sampling_result, client_request_error>> sample(
        boost::json::array messages, std::int64_t max_tokens, boost::json::object options = {},
        std::chrono::milliseconds timeout = std::chrono::minutes(5));

    /// The byte budget of this call's result (`server_options::max_result_bytes`, the tool's,
    /// the request's), for a tool that shapes its result to fit — a collection ends its page at
    /// the last whole item that fits. None when there is no limit. Whatever the tool returns,
    /// the framework never sends more.
    std::optional<result_budget> budget() const;

    const mcp::principal& caller() const noexcept;
    const session_info& session() const noexcept;
    /// The executor the call runs on (the connection's strand).
    boost::asio::any_io_executor executor() const;

private:
    std::shared_ptr<detail::call_state> state_;
};

}  // namespace candor::mcp
