// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Argument contracts: what a tool's arguments may look like, how complex they may be, and how
/// they become a typed C++ value. See docs/contracts.md.
///
/// @code
/// struct search_args { std::string query; int limit = 5; };
/// BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))
/// inline void describe_contract(candor::contract::spec<search_args>& s) {
///     s.field(&search_args::limit).description("How many results").range(1, 10).optional();
/// }
///
/// const candor::contract::contract<search_args> search{"search/1"};
/// auto args = search.check(doc.root(), &doc);   // result<search_args, issue_list>
/// @endcode
///
/// `check` runs three layers and stops at the first that fails, reporting every issue of that
/// layer (up to `contract_options::max_issues`):
/// 1. budget — `candor::json::measure` with the contract's `max_depth`/`max_nodes`
///    (DEPTH_LIMIT / NODE_LIMIT, `layer::intake`);
/// 2. schema — the compiled `candor::schema::validator` of the generated schema (the schema
///    `tools/list` advertises);
/// 3. typed conversion — the converter re-checks and adds the typed layer's stricter rules
///    (see detail/convert.hpp): whole-number floats for integer fields, C++ integer ranges,
///    exact decimals.

#include <candor/contract/decimal.hpp>
#include <candor/contract/detail/convert.hpp>
#include <candor/contract/detail/generate.hpp>
#include <candor/contract/spec.hpp>
#include <candor/error/issue.hpp>
#include <candor/json/document.hpp>
#include <candor/json/intake.hpp>
#include <candor/schema/validator.hpp>

#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace candor::contract {

struct contract_options {
    /// The structural budget checked on the arguments before the schema. Only `max_depth`
    /// and `max_nodes` apply (the byte budget belongs to the message, checked at intake).
    candor::json::limits budget{};
    /// Assert `format` (email, date, uuid, …) instead of treating it as an annotation.
    bool format_assertion = false;
    /// At most this many issues are reported per layer.
    std::size_t max_issues = 64;
    /// Root arguments beside the struct's fields (name → JSON Schema): the generated schema
    /// declares them, the schema layer checks them, and the conversion passes over them (the
    /// caller reads them itself). An action with approval declares its `plan_token` so.
    boost::json::object extra_arguments{};
    /// Those of `extra_arguments` the schema requires (an evidence-gated action's `ids`).
    std::vector<std::string> extra_required{};
};

/// The issue an intake violation of the arguments becomes: its code, path, message and limit,
/// `layer::intake`, repairable (the model can send smaller or well-formed arguments).
candor::issue intake_issue(const candor::json::violation& v);

/// The arguments' structural budget (`max_depth`, `max_nodes`; walked with an explicit stack).
/// @return nothing when they fit, else the issue of the first limit passed (DEPTH_LIMIT or
///         NODE_LIMIT, `layer::intake`).
std::optional<candor::issue> over_budget(const boost::json::value& arguments, const candor::json::limits& budget);

namespace detail {

/// The type-independent part of a contract: schema, version, budget, compiled validator.
class core {
public:
    /// @throws std::logic_error if the schema does not compile (for a generated schema this
    ///         is a bug in Candor).
    core(boost::json::value schema, std::string version, const contract_options& opts);
    ~core();
    core(const core&) = delete;
    core& operator=(const core&) = delete;

    const boost::json::value& schema() const noexcept { return schema_; }
    const std::string& version() const noexcept { return version_; }
    const candor::json::limits& budget() const noexcept { return opts_.budget; }
    const contract_options& options() const noexcept { return opts_; }

    /// Budget then schema. @return true when both pass; otherwise the failing layer's issues
    /// are appended to `out`.
    bool check_structure(const boost::json::value& arguments, candor::issue_list& out) const;
    /// The schema alone, on arguments whose budget the caller measured.
    bool check_schema(const boost::json::value& arguments, candor::issue_list& out) const;

    struct compiled;  // holds the validator (kept out of this header)
    static std::shared_ptr<const core> make(boost::json::value schema, std::string version,
                                            const contract_options& opts, candor::schema::schema_error* error);

private:
    core() = default;
    boost::json::value schema_;
    std::string version_;
    contract_options opts_;
    std::unique_ptr<compiled> compiled_;
};

}  // namespace detail

/// The contract of a tool whose arguments are the described struct `Args`. Immutable and
/// thread-safe after construction; cheap to copy (shared state).
template <class Args>
class contract {
    static_assert(detail::described_struct<Args>, "describe Args with BOOST_DESCRIBE_STRUCT");

public:
    /// Generate the schema from `Args` and its `describe_contract`, and compile it.
    /// @param version goes into logs and error envelopes, e.g. "search/2".
    /// @throws std::logic_error / std::invalid_argument for a contract that is itself wrong
    ///         (recursive or too deeply nested types, an invalid pattern or decimal constant):
    ///         found at registration, never at call time.
    explicit contract(std::string version, contract_options opts = {}) : core_(make_core(std::move(version), opts)) {}

    /// The generated JSON Schema (Draft 2020-12), exactly what `tools/list` advertises.
    const boost::json::value& schema() const noexcept { return core_->schema(); }
    const std::string& version() const noexcept { return core_->version(); }
    const candor::json::limits& budget() const noexcept { return core_->budget(); }

    /// Check `arguments` (budget → schema → typed conversion) and convert them.
    /// @param doc the document `arguments` lives in, for the exact text of decimals; may be
    ///        null (decimals then come from the shortest text that round-trips the double).
    ///        `document::number_text` indexes the document on first use, so one document must
    ///        not be checked from two threads at once (one document per call is the norm).
    /// @return the typed arguments, or every issue of the first layer that failed.
    /// @complexity linear in the size of `arguments`.
    boost::system::result<Args, candor::issue_list> check(const boost::json::value& arguments,
                                                          const candor::json::document* doc = nullptr) const {
        candor::issue_list issues;
        if (!core_->check_structure(arguments, issues)) return {boost::system::in_place_error, std::move(issues)};
        return convert(arguments, doc);
    }

    /// `check` without its first layer, for arguments already measured against this contract's
    /// budget: the MCP server measures every call's arguments against its tool's budget (the
    /// contract's) before the tool sees them, so a typed tool walks them once, not twice.
    boost::system::result<Args, candor::issue_list> check_within_budget(
        const boost::json::value& arguments, const candor::json::document* doc = nullptr) const {
        candor::issue_list issues;
        if (!core_->check_schema(arguments, issues)) return {boost::system::in_place_error, std::move(issues)};
        return convert(arguments, doc);
    }

    /// The typed conversion alone (no budget, no schema pass). The converter re-checks every
    /// rule it converts by (the property tests hold it to refusing whatever the validator
    /// refuses), so this is for arguments that already passed this contract's schema on their
    /// way in — a collection's query, whose tool the server checked against an input schema
    /// built from this contract — and for tests. Anything else calls `check`.
    boost::system::result<Args, candor::issue_list> convert(const boost::json::value& arguments,
                                                            const candor::json::document* doc = nullptr) const {
        return convert_with([&](const detail::cursor& root, detail::convert_context& cx,
                                Args& out) { detail::convert_object(arguments, out, root, cx); },
                            doc);
    }
    /// The same for an object held as one (no copy into a `boost::json::value` first).
    boost::system::result<Args, candor::issue_list> convert(const boost::json::object& arguments,
                                                            const candor::json::document* doc = nullptr) const {
        return convert_with([&](const detail::cursor& root, detail::convert_context& cx,
                                Args& out) { detail::convert_members(arguments, out, root, cx); },
                            doc);
    }

    const std::shared_ptr<const detail::core>& shared_core() const noexcept { return core_; }

private:
    template <class Convert>
    boost::system::result<Args, candor::issue_list> convert_with(Convert&& convert,
                                                                 const candor::json::document* doc) const {
        detail::convert_context cx;
        cx.doc = doc;
        cx.max_issues = core_->options().max_issues;
        if (!core_->options().extra_arguments.empty()) cx.passed_over = &core_->options().extra_arguments;
        Args out{};
        const detail::cursor root;
        convert(root, cx, out);
        if (!cx.issues.empty()) return {boost::system::in_place_error, std::move(cx.issues)};
        return out;
    }

    static std::shared_ptr<const detail::core> make_core(std::string version, const contract_options& opts) {
        boost::json::object s;
        s["$schema"] = "https://json-schema.org/draft/2020-12/schema";
        for (auto& kv : detail::object_schema<Args>(0)) s[kv.key()] = std::move(kv.value());
        if (!opts.extra_arguments.empty()) {
            auto& props = s["properties"];
            if (!props.is_object()) props = boost::json::object{};
            for (const auto& kv : opts.extra_arguments) {
                if (props.as_object().contains(kv.key()))
                    throw std::logic_error("candor::contract: the extra argument '" + std::string(kv.key()) +
                                           "' is also a field of the arguments");
                props.as_object()[kv.key()] = kv.value();
            }
            for (const auto& name : opts.extra_required) {
                if (!opts.extra_arguments.contains(name))
                    throw std::logic_error("candor::contract: the required extra argument '" + name +
                                           "' is not among the extra arguments");
                auto& required = s["required"];
                if (!required.is_array()) required = boost::json::array{};
                required.as_array().emplace_back(name);
            }
        }
        return detail::core::make(std::move(s), std::move(version), opts, nullptr);
    }

    std::shared_ptr<const detail::core> core_;
};

}  // namespace candor::contract
