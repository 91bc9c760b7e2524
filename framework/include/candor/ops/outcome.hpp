// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// How operators' views classify a call, in one place so that the journal, the metrics, the
/// console and `candor inspect` cannot disagree:
///
/// - a result that is incomplete only because more pages follow is *paged*, not incomplete:
///   the page is whole and the walk goes on; every other reason is a real gap;
/// - an issue code belongs to a group: the argument layers (intake, contract, business: the
///   caller can fix its arguments) apart from external checks, evidence gates, approvals and
///   the server's own failures, which are not argument problems.

#include <candor/error/issue.hpp>
#include <candor/mcp/observer.hpp>

#include <string_view>

namespace candor::ops {

/// What a call's answer was, for operators.
enum class call_outcome {
    complete,       ///< a complete result
    paged,          ///< incomplete only because more pages follow (every reason is a paging reason)
    incomplete,     ///< a real gap: a reason other than paging (visibility, a source, a budget…)
    error,          ///< an error envelope
    content,        ///< a content tool's result
    content_error,  ///< a content tool's error result
    refused,        ///< a message refused with a JSON-RPC error
};

/// "complete", "paged", "incomplete", "error", "content", "content_error" or "refused".
std::string_view to_string(call_outcome o) noexcept;

/// True for a reason that only says the result continues: `MORE_PAGES_AVAILABLE`. A page with
/// `CLIENT_PAGE_LIMIT`, `RESULT_LIMIT_REACHED` or any other reason has a gap, even when it
/// also has a continuation.
bool is_paging_reason(std::string_view code) noexcept;

/// The outcome of a call record (its status, and for a partial result its reasons: a partial
/// result without any reason counts as a gap).
call_outcome outcome_of(const mcp::call_record& r) noexcept;

/// Which kind of problem an issue code reports.
enum class issue_group {
    argument,  ///< layers intake, contract and business: the arguments are wrong
    external,  ///< an external check or source (layer external), not a gate
    evidence,  ///< an evidence gate refused (`EVIDENCE_*`)
    approval,  ///< the approval step (`PLAN_TOKEN_*`, `ACTION_DECLINED`, `ACTION_CANCELLED`, `ACTION_NOT_APPROVED`)
    server,    ///< the server's own failure (`INTERNAL_ERROR`, `DEADLINE_EXCEEDED`, `TOO_MANY_CALLS_IN_FLIGHT`)
};

/// "argument", "external", "evidence", "approval" or "server".
std::string_view to_string(issue_group g) noexcept;

/// The group of an issue: its code first (gates and the server's failures keep their group
/// whatever layer they report), else its layer.
/// @param code the issue's code
/// @param layer_name the issue's layer as written in records ("intake", "contract", …)
issue_group group_of(std::string_view code, std::string_view layer_name) noexcept;

/// @overload
issue_group group_of(std::string_view code, layer where) noexcept;

}  // namespace candor::ops
