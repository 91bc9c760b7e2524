// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The one shape in which every layer reports a problem with a tool call.
///
/// An issue is machine-readable first: `code` is stable and documented in docs/codes.md, and
/// routing (by agents, by the framework, by operators) relies on it, never on `message`.

#include <boost/assert/source_location.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace candor {

/// Which check found the problem, in the order the checks run.
enum class layer {
    intake,    ///< raw size, strict parse, structural budget
    contract,  ///< JSON Schema and typed conversion
    business,  ///< invariants across fields, declared by the tool
    external,  ///< consistency with current sources of truth (catalog, stock, permissions)
};

/// "intake", "contract", "business" or "external".
std::string_view to_string(layer l) noexcept;

struct issue {
    /// Stable UPPER_SNAKE code, e.g. "TYPE_MISMATCH".
    std::string code{};
    /// JSON Pointer (RFC 6901) into the tool's arguments; "" is the arguments object itself.
    std::string path{};
    /// For a model: what is wrong and what would be right.
    std::string message{};
    /// True when a model can fix it by re-reading the user's request and calling again; false
    /// for what only the backend knows (permissions, current price, stock, compliance).
    bool repairable = true;
    layer where = layer::contract;
    /// Schema location of the failing keyword (contract issues from the validator), else "".
    std::string keyword{};
    /// Extra machine-readable facts, e.g. {"limit": 3} or {"candidates": [...]}. Never
    /// internal ids, ACL details or other callers' data.
    boost::json::object details{};
};

using issue_list = std::vector<issue>;

/// An issue found by `where` (no schema keyword).
issue make_issue(layer where, std::string_view code, std::string path, std::string message, bool repairable,
                 boost::json::object details = {});

/// Makes `boost::system::result<T, issue_list>::value()` throw `std::invalid_argument` naming
/// the first issue (a bug at the caller: it should have checked).
[[noreturn]] void throw_exception_from_error(const issue_list& issues, const boost::source_location& loc);

}  // namespace candor
