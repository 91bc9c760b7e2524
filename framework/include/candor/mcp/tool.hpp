// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Tool handlers: what a tool declares, and the type-erased interface the server calls.
///
/// Most tools derive from a ready-made base rather than from `tool_handler`: `json_tool` (a
/// raw JSON Schema and `boost::json::object` arguments, returning an envelope) or
/// `content_tool` (returns MCP content blocks directly, for media tools). The framework runs
/// the intake and the argument budget before any of them; the bases run the schema.

#include <candor/envelope/envelope.hpp>
#include <candor/json/document.hpp>
#include <candor/json/intake.hpp>
#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace candor::schema {
class validator;
}

namespace candor::mcp {

/// What a tool does to the world; mapped to MCP annotations (advisory for clients, binding for
/// Candor's own fail-closed rules).
enum class action_class {
    read_only,           ///< readOnlyHint: true
    reversible_write,    ///< readOnlyHint: false, destructiveHint: false, idempotentHint: false
    irreversible_write,  ///< readOnlyHint: false, destructiveHint: true, idempotentHint: false
};

/// "read_only", "reversible_write" or "irreversible_write".
std::string_view to_string(action_class a) noexcept;

/// Whether a call of the tool may run as a task (the `io.modelcontextprotocol/tasks` extension of
/// the stateless revision, docs/protocol.md "Tasks").
enum class task_support {
    /// Always answered in the request (the default).
    none,
    /// A task when the request declares the extension, else answered in the request.
    optional,
    /// A task; a stateless request that does not declare the extension is refused with -32021.
    required,
};

/// "none", "optional" or "required".
std::string_view to_string(task_support t) noexcept;

/// The default argument budget: tool arguments are small documents.
inline constexpr json::limits default_argument_budget{4u << 20, 16, 10'000};

/// Everything a tool declares about itself. Build it fluently:
/// `tool_info("search_notes", "Finds notes.").with_title("Search notes").with_input_schema(s)`.
struct tool_info {
    tool_info() = default;
    explicit tool_info(std::string tool_name, std::string tool_description = {})
        : name(std::move(tool_name)), description(std::move(tool_description)) {}

    /// 1–128 characters of [A-Za-z0-9_.-], unique in a server.
    std::string name;
    std::string title;
    /// Shown to the model; say what the tool is for and when to use it.
    std::string description;
    /// JSON Schema of the arguments (an object schema).
    boost::json::object input_schema{{"type", "object"}};
    /// JSON Schema of the envelope's `data` (envelope tools); the framework wraps it into the
    /// envelope schema for `outputSchema`.
    boost::json::value data_schema = true;
    /// What the tool does to the world. Undeclared, a tool is taken to be what MCP assumes of a
    /// tool without annotations: not read-only, destructive (`irreversible_write`, which also
    /// puts a validated tool behind approval). A tool that only reads says so with
    /// `with_action(action_class::read_only)`; forgetting costs a confirmation, never a write
    /// advertised as safe. docs/contracts.md
    action_class action = action_class::irreversible_write;
    /// Depth and node budget of the arguments (bytes are bounded by the message limit).
    json::limits budget = default_argument_budget;
    /// Overrides the server's default deadline for this tool.
    std::optional<std::chrono::milliseconds> deadline;
    /// A tighter byte budget for this tool's results than the server's `max_result_bytes`.
    std::optional<std::size_t> max_result_bytes;
    /// How a caller gets the rest of a string the budget cut (`FIELD_TRUNCATED`), e.g. "call
    /// read_article with offset = kept": said in the warning's `rest`.
    std::string truncated_rest;
    /// Version of the argument contract, for the call journal (a typed tool's default is "1").
    std::string contract_version;
    /// Client capabilities the tool cannot work without, as a `ClientCapabilities` object (e.g.
    /// `{"sampling": {}}`). On the stateless revision a request that does not declare them is
    /// refused with -32021 before the tool runs.
    boost::json::object required_client_capabilities;
    /// OAuth scopes the caller's credential must grant, all of them, before anything else of
    /// the call runs (the arguments are not looked at). Over HTTP with OAuth a call without
    /// them is answered 403 `insufficient_scope` naming them (the client can step up); a caller
    /// without a credential (stdio, static tokens) is not asked for scopes. `tools/list` shows
    /// them to every caller in `_meta["candor/requiredScopes"]`. docs/auth.md
    std::vector<std::string> scopes;
    /// Whether a stateless call that declares the tasks extension runs as a task: the tool runs
    /// in the request until it first waits (requests to the client before then are answered
    /// `input_required`, as without tasks); then the request is answered with the task, and the
    /// tool runs on, detached from it, under its deadline. A tool that finishes without waiting
    /// is answered directly. The handshake revisions always answer in the request.
    task_support tasks = task_support::none;

    tool_info& with_contract_version(std::string v) {
        contract_version = std::move(v);
        return *this;
    }
    tool_info& with_title(std::string t) {
        title = std::move(t);
        return *this;
    }
    tool_info& with_input_schema(boost::json::object s) {
        input_schema = std::move(s);
        return *this;
    }
    tool_info& with_data_schema(boost::json::value s) {
        data_schema = std::move(s);
        return *this;
    }
    tool_info& with_action(action_class a) {
        action = a;
        return *this;
    }
    tool_info& with_budget(const json::limits& b) {
        budget = b;
        return *this;
    }
    tool_info& with_deadline(std::chrono::milliseconds d) {
        deadline = d;
        return *this;
    }
    tool_info& with_max_result_bytes(std::size_t n) {
        max_result_bytes = n;
        return *this;
    }
    tool_info& with_truncated_rest(std::string how) {
        truncated_rest = std::move(how);
        return *this;
    }
    tool_info& with_required_client_capabilities(boost::json::object c) {
        required_client_capabilities = std::move(c);
        return *this;
    }
    tool_info& with_scopes(std::vector<std::string> s) {
        scopes = std::move(s);
        return *this;
    }
    tool_info& with_task_support(task_support t) {
        tasks = t;
        return *this;
    }
};

/// The scopes of `info.scopes` that `caller` lacks, in `info.scopes` order; empty when the
/// caller has them all or has no credential (scopes do not apply).
std::vector<std::string> missing_scopes(const tool_info& info, const principal& caller);

/// Result of a low-level tool: MCP content blocks as they go on the wire.
struct content_result {
    boost::json::array content{};
    std::optional<boost::json::object> structured_content{};
    bool is_error = false;
};

/// What a handler returns: an envelope (data tools) or raw content (low-level tools).
using tool_outcome = std::variant<envelope::envelope, content_result>;

/// The interface the server calls. Implementations must be safe to call concurrently from
/// several connections (a tool is shared by the whole server).
class tool_handler {
public:
    virtual ~tool_handler() = default;

    virtual const tool_info& info() const noexcept = 0;

    /// True if results are envelopes (then `outputSchema` is the envelope schema).
    virtual bool returns_envelope() const noexcept { return true; }

    /// The schema/contract verdict on arguments that passed the intake and the budget, without
    /// running anything (for `check` on the command line and for tests). Empty: acceptable.
    virtual issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const = 0;

    /// Run the call. Intake violations and the budget were checked by the framework; the
    /// handler checks the schema/contract and returns an error envelope for argument issues.
    /// @param arguments the call's arguments: always an object (possibly empty); lives in `doc`
    /// @param doc the message's document (for exact number texts)
    virtual boost::asio::awaitable<tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                        call_context& ctx) = 0;
};

/// A data tool with a raw JSON Schema (`info.input_schema`, compiled once): the arguments are
/// checked against it before `call` runs, and schema issues become an error envelope (layer
/// `contract`). The low-level path: a typed tool (`add_tool`, `tool<Args>`) derives its schema
/// from its argument struct.
class json_tool : public tool_handler {
public:
    /// @throws std::invalid_argument if `input_schema` does not compile (a bug in the server)
    explicit json_tool(tool_info info);
    ~json_tool() override;

    const tool_info& info() const noexcept final { return info_; }
    /// Every schema issue of the arguments (layer `contract`), all together.
    issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const final;
    boost::asio::awaitable<tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                call_context& ctx) final;

    /// The tool's work, on arguments that passed the schema.
    virtual boost::asio::awaitable<envelope::envelope> call(const boost::json::object& arguments,
                                                            call_context& ctx) = 0;

private:
    tool_info info_;
    std::unique_ptr<schema::validator> validator_;
};

using json_tool_function =
    std::function<boost::asio::awaitable<envelope::envelope>(const boost::json::object&, call_context&)>;
using content_tool_function =
    std::function<boost::asio::awaitable<content_result>(const boost::json::object&, call_context&)>;

/// A `json_tool` from a function: `server.add_tool(make_tool({...}, fn)).value();`.
std::shared_ptr<tool_handler> make_tool(tool_info info, json_tool_function fn);

/// A low-level tool returning MCP content blocks (images, audio, embedded resources) from a
/// function. Its arguments are still checked against `info.input_schema`; argument issues
/// become `isError` content (the error envelope as text).
/// @throws std::invalid_argument if `input_schema` does not compile (a bug in the server)
std::shared_ptr<tool_handler> make_content_tool(tool_info info, content_tool_function fn);

/// True for a valid tool name: 1–128 characters of [A-Za-z0-9_.-].
bool is_valid_tool_name(std::string_view name) noexcept;

}  // namespace candor::mcp
