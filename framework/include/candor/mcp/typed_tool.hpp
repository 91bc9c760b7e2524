// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Typed tools: arguments declared as a described struct, checked by the contract before the
/// tool's code runs.
///
/// Most tools are a callable registered with `add_tool`, which reads the argument type off the
/// callable's parameter:
/// @code
/// struct search_args { std::string query; int limit = 5; };
/// BOOST_DESCRIBE_STRUCT(search_args, (), (query, limit))
/// inline void describe_contract(candor::contract::spec<search_args>& s) {
///     s.field(&search_args::query).length(1, 200);
///     s.field(&search_args::limit).range(1, 10).optional();
/// }
///
/// add_tool(server, candor::mcp::tool_info("search_notes", "Find notes by words").with_action(read_only),
///          [&](const search_args& a) { return candor::envelope::complete(find(a.query, a.limit)); })
///     .value();
/// @endcode
///
/// A tool that keeps state of its own derives from `tool<Args>` and implements `call`.
///
/// The input schema is generated from the struct (never written by hand, so it cannot drift
/// from the code that reads the arguments); contract issues become an error envelope with layer
/// `contract` and the handler does not run.

#include <candor/contract/contract.hpp>
#include <candor/envelope/envelope.hpp>
#include <candor/mcp/server.hpp>
#include <candor/mcp/tool.hpp>

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace candor::mcp {

namespace detail {
/// The contract's generated schema as a `tools/list` input schema (an object).
/// @throws std::logic_error if `schema` is not an object (a bug in the contract generator)
boost::json::object input_schema_from(const boost::json::value& schema);

/// The version a typed tool's contract gets: `info.contract_version`, or "1" when unset.
inline std::string contract_version_of(const tool_info& info) {
    return info.contract_version.empty() ? std::string("1") : info.contract_version;
}

/// What a typed tool declares of its contract: its generated schema as the input schema, and
/// its version (for the call journal). Shared by `tool<Args>` and the layered tools.
/// @throws std::logic_error if `schema` is not an object
void declare_contract(tool_info& info, const boost::json::value& schema, std::string contract_version);
}  // namespace detail

/// Base of a typed data tool: derive, pass a `tool_info`, implement `call`.
template <class Args>
class tool : public tool_handler {
public:
    /// @param info the tool's declaration; its `input_schema` is replaced by the contract's,
    ///        its `budget` is handed to the contract, and its `contract_version` (default "1")
    ///        is recorded in the call journal
    explicit tool(tool_info info)
        : contract_(detail::contract_version_of(info), contract::contract_options{info.budget}),
          info_(std::move(info)) {
        detail::declare_contract(info_, contract_.schema(), contract_.version());
    }

    const tool_info& info() const noexcept final { return info_; }

    issue_list check_arguments(const boost::json::value& arguments, const json::document* doc) const final {
        auto args = contract_.check_within_budget(arguments, doc);
        return args ? issue_list{} : std::move(args.error());
    }

    boost::asio::awaitable<tool_outcome> invoke(const boost::json::value& arguments, const json::document& doc,
                                                call_context& ctx) final {
        auto args = contract_.check_within_budget(arguments, &doc);
        if (!args) co_return envelope::failure(std::move(args.error()));
        co_return co_await call(std::move(*args), ctx);
    }

    /// The tool's work, on arguments that passed the contract.
    virtual boost::asio::awaitable<envelope::envelope> call(Args args, call_context& ctx) = 0;

    const contract::contract<Args>& argument_contract() const noexcept { return contract_; }

private:
    contract::contract<Args> contract_;
    tool_info info_;
};

namespace detail {

/// The function type of a callable's call operator (or of a function / function pointer).
template <class T>
struct call_signature {
    static_assert(
        requires { &T::operator(); },
        "add_tool: the tool must be a callable with one call operator (a lambda with an explicit "
        "parameter type, not `auto`), a function or a function pointer");
    using type = typename call_signature<decltype(&T::operator())>::type;
};
template <class R, class... A>
struct call_signature<R (*)(A...)> {
    using type = R(A...);
};
template <class R, class... A>
struct call_signature<R (*)(A...) noexcept> {
    using type = R(A...);
};
template <class R, class C, class... A>
struct call_signature<R (C::*)(A...)> {
    using type = R(A...);
};
template <class R, class C, class... A>
struct call_signature<R (C::*)(A...) const> {
    using type = R(A...);
};
template <class R, class C, class... A>
struct call_signature<R (C::*)(A...) noexcept> {
    using type = R(A...);
};
template <class R, class C, class... A>
struct call_signature<R (C::*)(A...) const noexcept> {
    using type = R(A...);
};

/// What `add_tool` reads off a tool's signature: `R(Args)`, `R(Args, call_context&)`, or (for
/// a tool with layers, `validation::add_tool`) `R(Args, const Verdict&, call_context&)`, where
/// `Args` may be taken by value or by const reference.
template <class Sig>
struct tool_signature {
    static_assert(sizeof(Sig) == 0,
                  "add_tool: the tool must take (Args) or (Args, candor::mcp::call_context&) — or, with layers, "
                  "(Args, const candor::validation::verdict&, candor::mcp::call_context&) — Args a described struct "
                  "(or boost::json::object for the low-level path)");
};
template <class R, class A>
struct tool_signature<R(A)> {
    using args = std::remove_cvref_t<A>;
    using verdict = void;
    using result = R;
    static constexpr bool takes_context = false;
};
template <class R, class A>
struct tool_signature<R(A, call_context&)> {
    using args = std::remove_cvref_t<A>;
    using verdict = void;
    using result = R;
    static constexpr bool takes_context = true;
};
template <class R, class A, class V>
struct tool_signature<R(A, V, call_context&)> {
    using args = std::remove_cvref_t<A>;
    using verdict = std::remove_cvref_t<V>;
    using result = R;
    static constexpr bool takes_context = true;
};

template <class F>
using tool_signature_of = tool_signature<typename call_signature<std::decay_t<F>>::type>;

/// The tool's result as the awaitable the framework calls: a coroutine's is awaited, a plain
/// function's is returned (its body ran on the calling thread). `args` is the call's own copy:
/// a callable taking it by value gets it moved.
template <class Sig, class F, class A>
boost::asio::awaitable<envelope::envelope> run_tool(F& fn, A& args, call_context& ctx) {
    using R = typename Sig::result;
    constexpr bool coroutine = std::same_as<R, boost::asio::awaitable<envelope::envelope>>;
    static_assert(coroutine || std::same_as<R, envelope::envelope>,
                  "add_tool: the tool must return candor::envelope::envelope, or "
                  "boost::asio::awaitable<candor::envelope::envelope> when it is a coroutine");
    if constexpr (coroutine) {
        if constexpr (Sig::takes_context) co_return co_await fn(std::move(args), ctx);
        else co_return co_await fn(std::move(args));
    } else {
        if constexpr (Sig::takes_context) co_return fn(std::move(args), ctx);
        else co_return fn(std::move(args));
    }
}

/// A tool from a callable, its argument type deduced (see `add_tool`).
template <class F>
std::shared_ptr<tool_handler> make_deduced_tool(tool_info info, F fn) {
    using sig = tool_signature_of<F>;
    static_assert(std::is_void_v<typename sig::verdict>,
                  "add_tool: a tool that takes the layers' verdict is registered with candor::validation::add_tool, "
                  "with its layers");
    using args_type = typename sig::args;
    if constexpr (std::same_as<args_type, boost::json::object>) {
        // The low-level path: the arguments are checked against `info.input_schema` only.
        class object_tool final : public json_tool {
        public:
            object_tool(tool_info i, F f) : json_tool(std::move(i)), fn_(std::move(f)) {}
            boost::asio::awaitable<envelope::envelope> call(const boost::json::object& arguments,
                                                            call_context& ctx) override {
                // The arguments live in the request's document for the whole call.
                co_return co_await run_tool<sig>(fn_, arguments, ctx);
            }

        private:
            F fn_;
        };
        return std::make_shared<object_tool>(std::move(info), std::move(fn));
    } else {
        class deduced_tool final : public tool<args_type> {
        public:
            deduced_tool(tool_info i, F f) : tool<args_type>(std::move(i)), fn_(std::move(f)) {}
            boost::asio::awaitable<envelope::envelope> call(args_type args, call_context& ctx) override {
                // A coroutine, so that `args` outlives a callable that takes it by reference.
                co_return co_await run_tool<sig>(fn_, args, ctx);
            }

        private:
            F fn_;
        };
        return std::make_shared<deduced_tool>(std::move(info), std::move(fn));
    }
}

}  // namespace detail

/// A typed tool from a function, for tools that need no state of their own:
/// `server.add_tool(make_typed_tool<search_args>(tool_info("search_notes", "…"), fn)).value();`
/// `add_tool` does the same and deduces `Args`.
template <class Args>
std::shared_ptr<tool_handler> make_typed_tool(
    tool_info info, std::function<boost::asio::awaitable<envelope::envelope>(Args, call_context&)> fn) {
    return detail::make_deduced_tool(std::move(info), std::move(fn));
}

/// Register a tool given as a callable; the argument type is read off its parameter (as the Go
/// SDK's `AddTool[In, Out]` does), so a lambda is a tool:
/// @code
/// add_tool(srv, tool_info("search_notes", "Find notes.").with_action(action_class::read_only),
///          [&](const search_args& a) { return envelope::complete(find(a.query)); }).value();
/// @endcode
///
/// The callable takes `(Args)` or `(Args, call_context&)` (by value or const reference) and
/// returns `envelope::envelope`, or `boost::asio::awaitable<envelope::envelope>` as a
/// coroutine. `Args` is a described struct: the input schema comes from `contract<Args>` and
/// the callable runs only on arguments that passed it. With `Args = boost::json::object` it is
/// the low-level path: `info.input_schema` is written by hand and checked, nothing is
/// converted.
///
/// A plain (non-coroutine) callable runs on the connection's strand, so it is fine only for
/// work that returns at once: in-memory lookups, computing over the arguments. Anything that
/// waits — a database, a file, the network — is a coroutine that awaits it (and runs blocking
/// calls off the I/O threads, e.g. through `offload::worker`), so that deadlines and
/// cancellation always win.
///
/// The callable is kept by the tool for the server's lifetime and may be called from several
/// connections at once: what it captures must be safe to share.
/// @param srv the server
/// @param info the tool's declaration; for a typed tool its `input_schema` is replaced by the
///        contract's
/// @param fn the tool
/// @return nothing, or why the server refused the tool (see `server::add_tool`)
template <class F>
boost::system::result<void, registration_error> add_tool(server& srv, tool_info info, F&& fn) {
    return srv.add_tool(detail::make_deduced_tool(std::move(info), std::decay_t<F>(std::forward<F>(fn))));
}

}  // namespace candor::mcp
