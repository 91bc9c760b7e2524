// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// JSON Schema Draft 2020-12 validator: compile a schema once, validate many instances.
///
/// A schema is compiled into a flat table of pre-resolved nodes (every `$ref` resolved to a
/// node index, every keyword turned into a typed check, every `properties` name pre-hashed),
/// so that validating an instance walks the table without maps, string building or
/// allocation on the valid path. An invalid schema is refused by `compile`, naming the
/// keyword and its location; it is never discovered while validating.
///
/// Bounds. Evaluation recurses on the instance (bounded by the intake's
/// `candor::json::depth_ceiling`) and on in-place applicators such as `$ref` that do not
/// consume instance depth. The latter are bounded by `options::max_evaluation_depth`: a
/// cycle through `$ref`/`allOf` alone that always re-enters itself without consuming the
/// instance (`{"$ref": "#"}`) is refused at compile time, and any other runaway evaluation
/// (too deep, or more than `options::max_evaluation_steps` evaluations) stops the whole
/// validation, which then rejects the instance with one `SCHEMA_MISMATCH` issue saying so. Nothing is ever
/// fetched from the network: remote references go through `options::resolve` only.
///
/// Patterns (`pattern`, `patternProperties`, `format: regex`) run on RE2, which is
/// linear-time; ECMA-262 constructs that RE2 cannot express in linear time (lookaround,
/// backreferences) are refused at compile time. See docs/schema.md for the exact syntax.
///
/// Issues are `candor::issue` values with `where = layer::contract`, `repairable = true`,
/// `path` = JSON Pointer into the instance, `keyword` = JSON Pointer to the failing keyword
/// in the schema (e.g. "/properties/limit/maximum"), and a stable code (docs/schema.md).

#include <candor/error/issue.hpp>

#include <boost/assert/source_location.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace candor::schema {

/// Why a schema was refused at compile time.
struct schema_error {
    /// JSON Pointer to the offending keyword, prefixed with the absolute URI of its document
    /// when that is not the root document (e.g. "/properties/limit/minimum").
    std::string keyword_location{};
    /// For people: what is wrong with the keyword.
    std::string message{};
};

/// Makes `result<validator, schema_error>::value()` throw `std::invalid_argument` (with the
/// location and message) when the schema was refused: a bug at a caller that should have
/// checked, e.g. a tool registered with a schema that was never compiled in a test.
[[noreturn]] void throw_exception_from_error(const schema_error& e, const boost::source_location& loc);

struct options {
    /// Treat `format` as an assertion (FORMAT_MISMATCH) instead of an annotation. Checked
    /// formats: date, date-time, time, duration, email, hostname, uuid, ipv4, ipv6, uri,
    /// uri-reference, json-pointer, relative-json-pointer, regex; others are accepted.
    bool format_assertion = false;
    /// Resolve an absolute URI (no fragment) to a schema document; nothing is ever fetched
    /// from the network. The 2020-12 metaschema documents are built in and need no resolver.
    std::function<std::optional<boost::json::value>(std::string_view uri)> resolve{};
    /// Stop collecting issues after this many (`validate` still returns the right verdict).
    std::size_t max_issues = 64;
    /// Maximum nesting of schema evaluations for one instance (in-place applicators such as
    /// `$ref`, `allOf` and instance-consuming ones such as `properties` both count). Each
    /// level takes about 0.7 KB of stack (GCC 12, -O2): the default needs about 0.7 MB, so it
    /// is safe on 1 MB thread stacks; raise it only where threads have more.
    std::size_t max_evaluation_depth = 1024;
    /// Maximum number of schema evaluations for one instance. Combinators over recursive
    /// schemas can otherwise take time exponential in the instance depth; past this budget
    /// the instance is rejected with a `SCHEMA_MISMATCH` issue.
    std::size_t max_evaluation_steps = 10'000'000;
};

namespace detail {
struct program;
}

/// A compiled schema. Immutable after `compile`; thread-safe to share; cheap to copy and move
/// (the compiled program is reference-counted).
class validator {
public:
    /// Compile `schema` (a boolean or an object schema, Draft 2020-12).
    /// @param schema the root schema; its `$id` (if any) is the base URI, else
    ///        "urn:candor:root" stands in for it.
    /// @param opts format assertion, remote resolver, limits.
    /// @return the validator, or the first problem found in the schema.
    /// @complexity linear in the size of the schema and of every document it references.
    static boost::system::result<validator, schema_error> compile(const boost::json::value& schema,
                                                                  const options& opts = {});

    // Defaulted out of line (validator.cpp): no reference counting inlined into callers.
    validator(const validator&) noexcept;
    validator(validator&&) noexcept;
    validator& operator=(const validator&) noexcept;
    validator& operator=(validator&&) noexcept;
    ~validator();

    /// True when `instance` is valid. Builds no issue strings and does not allocate on the
    /// valid path (unevaluated* keywords need small scratch buffers).
    /// @complexity linear in the instance for schemas without combinators; `uniqueItems` is
    /// quadratic in the array length.
    bool is_valid(const boost::json::value& instance) const;

    /// Validate and append one issue per violation (at most `options::max_issues`) to `out`.
    /// @return true when `instance` is valid (then nothing is appended).
    bool validate(const boost::json::value& instance, candor::issue_list& out) const;

    /// The schema this validator was compiled from (a copy, as given).
    const boost::json::value& schema() const noexcept;

private:
    explicit validator(std::shared_ptr<const detail::program> p) noexcept : program_(std::move(p)) {}
    std::shared_ptr<const detail::program> program_;
};

}  // namespace candor::schema
