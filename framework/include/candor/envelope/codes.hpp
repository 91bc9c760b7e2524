// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The stable codes an envelope can carry, as constants. Each one is documented once, with its
/// meaning and what a caller should do next, in docs/envelope.md; agents route on these
/// strings, never on message text, so they never change once released.

#include <string_view>

namespace candor::envelope {

/// Why a result is incomplete (`incomplete_reasons[].code`).
namespace reason_codes {
inline constexpr std::string_view more_pages_available = "MORE_PAGES_AVAILABLE";
inline constexpr std::string_view result_limit_reached = "RESULT_LIMIT_REACHED";
inline constexpr std::string_view time_budget_exceeded = "TIME_BUDGET_EXCEEDED";
inline constexpr std::string_view source_unavailable = "SOURCE_UNAVAILABLE";
inline constexpr std::string_view visibility_restricted = "VISIBILITY_RESTRICTED";
inline constexpr std::string_view rate_limited = "RATE_LIMITED";
inline constexpr std::string_view client_page_limit = "CLIENT_PAGE_LIMIT";
inline constexpr std::string_view cancelled = "CANCELLED";
/// The result was cut to fit its byte budget (`limit`): a page ended at its last whole item
/// (`returned`, with a cursor right after it), or strings were shortened (`fields`).
inline constexpr std::string_view result_size_limit = "RESULT_SIZE_LIMIT";
/// The page read the current data, not one snapshot: rows written between the pages of the
/// walk may be missed or seen twice (`changes`).
inline constexpr std::string_view snapshot_not_pinned = "SNAPSHOT_NOT_PINNED";
}  // namespace reason_codes

/// What qualifies confidence in a result without touching completeness (`warnings[].code`).
namespace warning_codes {
inline constexpr std::string_view stale_index = "STALE_INDEX";
inline constexpr std::string_view partial_field_set = "PARTIAL_FIELD_SET";
inline constexpr std::string_view default_scope_applied = "DEFAULT_SCOPE_APPLIED";
inline constexpr std::string_view default_sort_applied = "DEFAULT_SORT_APPLIED";
inline constexpr std::string_view value_normalized = "VALUE_NORMALIZED";
/// A reversible write stored a draft although an external source could not confirm it.
inline constexpr std::string_view unverified_draft = "UNVERIFIED_DRAFT";
/// A string of the result was cut to fit its byte budget: `path`, `bytes` (its length), `kept`
/// (the bytes sent), and `rest` when the tool says how to get the rest.
inline constexpr std::string_view field_truncated = "FIELD_TRUNCATED";
/// The request asked for a smaller result budget than the floor (1,024 bytes) and was raised.
inline constexpr std::string_view result_budget_raised = "RESULT_BUDGET_RAISED";
}  // namespace warning_codes

/// Error codes the framework itself puts into error envelopes (`errors[].code`). The intake
/// codes (`DUPLICATE_KEY`, `DEPTH_LIMIT`, …) and the contract codes come from their modules.
namespace error_codes {
/// A bug on the server side (an exception escaped a handler, or the handler built an envelope
/// that breaks the invariants). Never carries internals; the details are in the server log.
inline constexpr std::string_view internal_error = "INTERNAL_ERROR";
/// The call ran past its deadline and was stopped.
inline constexpr std::string_view deadline_exceeded = "DEADLINE_EXCEEDED";
/// The connection already has the maximum number of tool calls in flight.
inline constexpr std::string_view too_many_calls_in_flight = "TOO_MANY_CALLS_IN_FLIGHT";
/// Stateless revision: the call needs more answers from the client than the sealed request
/// state may carry (`server_options::max_request_state_bytes`).
inline constexpr std::string_view request_state_too_large = "REQUEST_STATE_TOO_LARGE";
/// `_meta.traceparent`, `tracestate` or `baggage` larger than W3C allows (8,192 bytes): the
/// request is refused (`-32602`, `data.limit`) — a merely malformed value is ignored instead.
inline constexpr std::string_view trace_context_too_large = "TRACE_CONTEXT_TOO_LARGE";
/// The result does not fit its byte budget and nothing in it can be cut to fit (`bytes`,
/// `limit`).
inline constexpr std::string_view result_too_large = "RESULT_TOO_LARGE";
/// `_meta["io.candor/maxResultBytes"]` (or `anthropic/maxResultSizeChars`) is not a positive
/// integer: the call is refused (`-32602`, `data.key`).
inline constexpr std::string_view invalid_result_budget = "INVALID_RESULT_BUDGET";
/// Tasks extension: the server (`task_options::max_tasks`) or the caller
/// (`max_tasks_per_principal`) holds the most tasks allowed; `limit`, `scope`.
inline constexpr std::string_view too_many_tasks = "TOO_MANY_TASKS";
/// Tasks extension: the task's result is larger than `task_options::max_result_bytes`.
inline constexpr std::string_view task_result_too_large = "TASK_RESULT_TOO_LARGE";
}  // namespace error_codes

/// Codes of the validation pipeline (docs/validation.md): `errors[].code`, except where noted.
namespace validation_codes {
/// An external check's source failed or missed its deadline (never a silent pass).
inline constexpr std::string_view source_unavailable = "SOURCE_UNAVAILABLE";
/// The caller used up its repair attempts for this tool within the window.
inline constexpr std::string_view repair_limit_exceeded = "REPAIR_LIMIT_EXCEEDED";
/// The user declined the action when asked (elicitation).
inline constexpr std::string_view action_declined = "ACTION_DECLINED";
/// The user cancelled the question, or chose "cancel".
inline constexpr std::string_view action_cancelled = "ACTION_CANCELLED";
/// No usable answer to the approval question (timeout, client error, unusable narrowing).
inline constexpr std::string_view action_not_approved = "ACTION_NOT_APPROVED";
/// Two-step approval: no `plan_token`; the plan is in `details.plan`.
inline constexpr std::string_view plan_token_required = "PLAN_TOKEN_REQUIRED";
/// Malformed or tampered `plan_token`.
inline constexpr std::string_view plan_token_invalid = "PLAN_TOKEN_INVALID";
/// The `plan_token` is past its expiry.
inline constexpr std::string_view plan_token_expired = "PLAN_TOKEN_EXPIRED";
/// The `plan_token` was already executed (an approval runs its action once).
inline constexpr std::string_view plan_token_used = "PLAN_TOKEN_USED";
/// The answer that approved was presented again (a replayed retry): it ran its action once.
inline constexpr std::string_view approval_used = "APPROVAL_USED";
/// The `plan_token` was issued for another tool, caller, targets or arguments.
inline constexpr std::string_view plan_token_mismatch = "PLAN_TOKEN_MISMATCH";
}  // namespace validation_codes

/// True for a well-formed code: 1–64 characters of [A-Z0-9_], starting with a letter.
/// @complexity linear in the length of `code`
constexpr bool is_valid_code(std::string_view code) noexcept {
    if (code.empty() || code.size() > 64) return false;
    if (code.front() < 'A' || code.front() > 'Z') return false;
    for (char c : code) {
        const bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (!ok) return false;
    }
    return true;
}

}  // namespace candor::envelope
