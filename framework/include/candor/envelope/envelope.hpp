// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The completeness envelope: the `structuredContent` of every Candor data tool.
///
/// An envelope answers two questions before it hands over data: did the tool examine the whole
/// requested scope (`complete`), and if not, why not (`incomplete_reasons`) and how to go on
/// (`continuation`). The field names are a contract with agents (docs/envelope.md).
///
/// The type is deliberately a plain aggregate that a tool fills in; the rules that make it
/// trustworthy are checked once, by `seal`, on the way out. A tool that breaks them does not
/// reach the agent: the framework replaces its result with an `INTERNAL_ERROR` envelope and logs
/// the breach (see `candor::mcp`). Build envelopes with `complete`, `partial` and
/// `failure` and they are valid by construction.

#include <candor/envelope/codes.hpp>
#include <candor/error/issue.hpp>
#include <candor/json/write.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::envelope {

/// `status`: the coarse verdict. `complete` ⇔ `complete: true`.
enum class outcome { complete, partial, error };

/// "complete", "partial" or "error".
std::string_view to_string(outcome s) noexcept;

/// One entry of `incomplete_reasons`: serialized as `{code, message, …details}` (the details
/// are merged into the entry, e.g. `{"code": "RESULT_LIMIT_REACHED", "message": …, "limit": 5}`).
struct reason {
    std::string code{};
    std::string message{};
    /// Extra machine-readable facts (`limit`, `source`, `retry_after_ms`, …). Keys `code` and
    /// `message` are reserved and refused by `seal`.
    boost::json::object details{};
};

/// One entry of `warnings`: same shape as a reason, but it qualifies confidence only.
struct warning {
    std::string code{};
    std::string message{};
    boost::json::object details{};
};

/// How a caller can go on from an incomplete or failed result.
struct continuation {
    enum class kind {
        next_cursor,          ///< `{kind, cursor}`: call again with this cursor
        retry_after,          ///< `{kind, seconds}`: the same call may succeed later
        retry_with_deadline,  ///< `{kind, minimum_ms}`: call again with a longer deadline
        narrow_query,         ///< `{kind, hint}`: ask for less
        restart,              ///< `{kind, reason}`: start the walk over, without a cursor
    };
    kind what = kind::restart;
    /// cursor, hint or reason, by kind.
    std::string text{};
    /// seconds or minimum_ms, by kind.
    std::uint64_t amount = 0;

    static continuation next_cursor(std::string cursor);
    static continuation retry_after(std::uint64_t seconds);
    static continuation retry_with_deadline(std::uint64_t minimum_ms);
    static continuation narrow_query(std::string hint);
    static continuation restart(std::string why);
};

/// "next_cursor", "retry_after", "retry_with_deadline", "narrow_query" or "restart".
std::string_view to_string(continuation::kind k) noexcept;

/// What `complete` covers. Empty fields are filled in by the framework: `resource` with the
/// tool's name, `visibility` with "caller" (the caller's own view), `snapshot` with "none" (no
/// snapshot semantics declared; the paging module adds "pinned" and "live").
struct scope {
    std::string resource{};
    std::string visibility{};
    std::string snapshot{};
};

/// The envelope of one tool result. Fill it in directly or use the named constructors.
struct envelope {
    /// Unset means the tool never gave a verdict; `seal` refuses that.
    std::optional<outcome> status{};
    std::optional<bool> complete{};
    std::vector<reason> incomplete_reasons{};
    std::optional<::candor::envelope::continuation> continuation{};
    ::candor::envelope::scope scope{};
    std::vector<warning> warnings{};
    /// The tool's result; required unless `status` is error, forbidden when it is.
    std::optional<boost::json::value> data{};
    /// The result already written as JSON text, in place of `data` (a collection over typed
    /// items fills this when its page goes straight to the wire): counts as `data` for every
    /// rule, is sent as it is, and is read as a tree with `data_value`. When both are set this
    /// one is what is sent.
    std::optional<json::written> data_written{};
    /// Only when `status` is error; at least one.
    issue_list errors{};
    /// Further top-level members (the completeness machinery adds `page` and
    /// `snapshot_token`). Must not repeat an envelope field.
    boost::json::object extensions{};

    envelope& add_reason(reason r);
    envelope& add_warning(warning w);
    envelope& continue_with(::candor::envelope::continuation c);
    envelope& covering(::candor::envelope::scope s);
};

/// The envelope's data as a tree, whichever way it is held (`data_written` is parsed); none
/// if it holds none.
std::optional<boost::json::value> data_value(const envelope& e);

/// A complete result: the whole requested scope was examined (empty data is fine).
envelope complete(boost::json::value data);
/// An incomplete result with at least one reason.
envelope partial(boost::json::value data, reason why);
/// An error result carrying the issues that stopped the call.
envelope failure(issue_list errors);

/// Which invariant an envelope breaks. For the server log and tests; agents never see these
/// (they get an `INTERNAL_ERROR` envelope instead).
enum class breach {
    verdict_missing,             ///< `status` or `complete` unset
    status_contradicts_verdict,  ///< `status: complete` with `complete: false`, or the reverse
    complete_with_reasons,       ///< `complete: true` with incomplete_reasons
    incomplete_without_reasons,  ///< `status: partial` with no reason
    error_without_errors,        ///< `status: error` with an empty `errors`
    errors_without_error,        ///< `errors` on a result that is not an error
    reasons_on_error,            ///< `incomplete_reasons` on an error (the errors say why)
    data_missing,                ///< no `data` on a complete or partial result
    data_on_error,               ///< `data` on an error
    continuation_on_complete,    ///< a complete result has nowhere to continue to
    invalid_continuation,        ///< `next_cursor` without cursor, `retry_after` of 0 s, …
    invalid_code,                ///< a code that is not UPPER_SNAKE (1–64 chars)
    reserved_key,                ///< details or extensions that would overwrite a field
};

/// The stable name of a breach, e.g. "COMPLETE_WITH_REASONS".
std::string_view to_string(breach b) noexcept;

/// Makes `result<T, breach>::value()` throw `std::logic_error` (a bug at the caller).
[[noreturn]] void throw_exception_from_error(breach b, const boost::source_location& loc);

/// Check every invariant of docs/envelope.md.
/// @return nothing, or the first breach found
/// @complexity linear in the number of reasons, warnings, errors and their details
boost::system::result<void, breach> check(const envelope& e);

/// Check and serialize an envelope into its wire form (field order as documented).
/// @param e the envelope
/// @param default_resource fills `scope.resource` when the tool left it empty (its name)
/// @return the JSON object, or the first breach
boost::system::result<boost::json::object, breach> seal(const envelope& e, std::string_view default_resource = {});
/// As above, moving `data` and the extensions out of `e` instead of copying them when they
/// share the result's storage (the response path: a result's data is serialized once and then
/// dropped). On a breach `e` is left untouched.
boost::system::result<boost::json::object, breach> seal(envelope&& e, std::string_view default_resource = {});

/// Write the wire form of a checked envelope straight into `out`: the same bytes as
/// `json::write(*seal(e, default_resource))`, without building the sealed object (the response
/// path, where the object would only be serialized and dropped). Data written already
/// (`data_written`) goes in as it is.
/// @pre `check(e)` succeeded
/// @param max_depth the nesting ceiling of the whole envelope, its root object being level 1
/// @return nothing, or why a value cannot be written; then `out` is as it was
/// @complexity linear in the size of the output
boost::system::result<void, json::write_error> write_sealed(const envelope& e, std::string_view default_resource,
                                                            std::string& out, std::size_t max_depth = 512);

/// The member of a continuation that carries its value: `cursor`, `seconds`, `minimum_ms`,
/// `hint` or `reason`.
std::string_view value_field(continuation::kind k) noexcept;
/// Whether that value is a number (`amount`: `retry_after`, `retry_with_deadline`) rather than
/// a text.
bool has_amount(continuation::kind k) noexcept;

/// A scope as sealed: an empty field takes its default (`default_resource`, "caller", "none").
struct sealed_scope_view {
    std::string_view resource{};
    std::string_view visibility{};
    std::string_view snapshot{};
};
sealed_scope_view sealed_scope(const scope& s, std::string_view default_resource) noexcept;

/// The error envelope the framework answers with when a tool has a bug: `INTERNAL_ERROR`, no
/// internals, not repairable. Always valid.
envelope internal_error();

/// `internal_error()` sealed.
boost::json::object internal_error_envelope(std::string_view resource);

/// Serialize one issue as an `errors[]` entry: `{code, path, message, repairable, layer}`, plus
/// `keyword` when set and the issue's details merged in (never overwriting those fields).
boost::json::object to_json(const issue& i);

}  // namespace candor::envelope
