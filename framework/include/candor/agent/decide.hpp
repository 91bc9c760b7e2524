// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The agent's side: what a client may conclude from an envelope, on its wire JSON.
///
/// A client sees JSON (`structuredContent`, or the text of `content[0]`), so both functions
/// take the envelope as a `boost::json::value` and never trust a field they cannot read: an
/// unreadable envelope is never evidence and never a go-ahead. The rules are documented for
/// agent authors in docs/agents.md.

#include <boost/json/value.hpp>

#include <string_view>

namespace candor::agent {

/// What the agent means to do with the answer.
enum class intent {
    read,                ///< show or use the data
    report,              ///< state totals or absence to a person ("there are no X")
    destructive_change,  ///< change or delete things based on the answer
};

/// What the agent should do next.
enum class decision {
    continue_search,           ///< call again as the continuation says (next page, restart, narrower, longer deadline)
    proceed,                   ///< the answer is fit for the intent
    refuse_or_request_review,  ///< do not act on it alone: show `incomplete_reasons`/errors to a person
    retry_later,               ///< a transient limit: wait, then repeat
};

std::string_view to_string(intent i) noexcept;
std::string_view to_string(decision d) noexcept;

/// True only for a readable envelope with `complete: true` and `status: "complete"`: only then
/// is the absence of an item in `data` evidence that it does not exist.
/// @complexity constant
bool may_infer_absence(const boost::json::value& envelope) noexcept;

/// The next step for `intent` after `envelope` (rules in docs/agents.md).
/// @complexity linear in the number of reasons and errors
decision decide(const boost::json::value& envelope, intent what) noexcept;

}  // namespace candor::agent
