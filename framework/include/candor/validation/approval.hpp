// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Human approval of an action at a policy boundary (irreversible writes by default).
///
/// The framework asks through an `approver`. The default one, `elicitation_approver`, uses the
/// client's elicitation (`elicitation/create`): it shows the proposed action, its target scope
/// (ids and count), the evidence state, and the options proceed / narrow to listed ids /
/// cancel. When the approver is not available for a call (the client cannot elicit), the
/// framework falls back to the two-step plan flow (plan_token.hpp). The seam exists so that
/// the decision logic is testable without a client, and so that a server can route approvals
/// elsewhere (a ticket, a second operator).

#include <candor/mcp/call_context.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace candor::validation {

/// The evidence state shown to the user: whether the inventory the action rests on is
/// complete, and if not, why.
struct evidence_state {
    /// False when the tool declares no evidence requirement (then nothing is shown).
    bool declared = false;
    bool complete = true;
    /// Reason codes that made it incomplete.
    std::vector<std::string> reasons{};
};

/// What would be done: the proposed action and its exact target scope.
struct action_plan {
    /// One sentence for a human, e.g. "Archive 3 notes of project Apollo".
    std::string summary{};
    /// The objects the action touches (empty: the action has no listable targets).
    std::vector<std::string> targets{};
    evidence_state evidence{};

    /// `{action, targets, count, evidence{declared, complete, reasons}}`.
    boost::json::object to_json() const;
};

struct approval_request {
    std::string tool{};
    action_plan plan{};
};

struct approval_decision {
    enum class choice {
        proceed,      ///< run as planned
        narrow,       ///< run on `ids` only (a non-empty subset of the plan's targets)
        declined,     ///< the user said no
        cancelled,    ///< the user dismissed the question or chose "cancel"
        unavailable,  ///< no usable answer (timeout, client error, malformed reply)
    };
    choice what = choice::unavailable;
    std::vector<std::string> ids{};
    /// For `unavailable`: why (for the server log and the envelope's message).
    std::string why{};
    /// Names the answer that approved (`elicitation_result::answer_id`): the approval gate
    /// records its use in the plan ledger, so the same answer presented again runs nothing.
    /// An approver that leaves it empty gets a fresh one (its answers cannot be replayed).
    std::string answer_id{};
    /// Until when the same answer could be presented again; the ledger keeps its use as long.
    std::chrono::system_clock::time_point replayable_until{};
};

class approver {
public:
    virtual ~approver() = default;
    /// Whether this approver can ask for this call (else the plan flow is used).
    virtual bool available(const mcp::call_context& ctx) const = 0;
    virtual boost::asio::awaitable<approval_decision> ask(const approval_request& request, mcp::call_context& ctx) = 0;
};

/// Asks through `ctx.elicit`. Available when the client declared the elicitation capability.
class elicitation_approver : public approver {
public:
    explicit elicitation_approver(std::chrono::milliseconds timeout = std::chrono::minutes(5)) : timeout_(timeout) {}
    bool available(const mcp::call_context& ctx) const override;
    boost::asio::awaitable<approval_decision> ask(const approval_request& request, mcp::call_context& ctx) override;

    /// The message shown to the user (pure, for tests and for other approvers).
    static std::string message(const approval_request& request);
    /// The requested form: `decision` (proceed | narrow | cancel) and `ids` (comma-separated,
    /// for narrow). Elicitation forms hold only primitive fields, hence a string.
    static boost::json::object requested_schema();
    /// Read an elicitation answer (pure): accept + proceed/narrow/cancel, decline, cancel.
    static approval_decision interpret(const mcp::elicitation_result& answer, const action_plan& plan);

private:
    std::chrono::milliseconds timeout_;
};

}  // namespace candor::validation
