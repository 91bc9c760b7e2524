// SPDX-License-Identifier: BSL-1.0
// A connection: its public face, which hands everything to its impl, and what the impl's parts
// share — the session's state on the strand, posting to it, sending results, errors and
// notifications, the log. Dispatch is in dispatch.cpp, tool calls in call.cpp.
#include "connection_impl.hpp"

#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

// On an io_context the strand is one of the io_context's own executor, which fits the
// any_io_executor's inline storage: copying, converting or re-preferring it (Asio does so
// several times per call) never allocates. A strand of a type-erased executor does not fit and
// is the fallback for other executors.
boost::asio::any_io_executor make_connection_strand(boost::asio::any_io_executor ex) {
    using io_executor = boost::asio::io_context::executor_type;
    if (const auto* io = ex.target<io_executor>()) return boost::asio::make_strand(*io);
    using tracked_io_executor =
        decltype(boost::asio::require(std::declval<io_executor>(), boost::asio::execution::outstanding_work.tracked));
    if (const auto* io = ex.target<tracked_io_executor>()) return boost::asio::make_strand(*io);
    return boost::asio::make_strand(std::move(ex));
}

}  // namespace

connection::connection(std::shared_ptr<detail::server_core> core, boost::asio::any_io_executor ex,
                       routed_send_function send, connection_options opts)
    : impl_(std::make_unique<detail::connection_impl>(std::move(core), std::move(ex), std::move(send),
                                                      std::move(opts))) {}

connection::~connection() = default;

void connection::receive(std::string text) { impl_->receive(std::move(text)); }

void connection::receive(rpc::inbound message, std::size_t bytes) { impl_->receive(std::move(message), bytes); }

void connection::assume_initialized(std::string protocol_version, std::string client_name, std::string client_version,
                                    boost::json::object client_capabilities) {
    impl_->assume_initialized(std::move(protocol_version), std::move(client_name), std::move(client_version),
                              std::move(client_capabilities));
}

void connection::set_caller(mcp::principal caller) { impl_->set_caller(std::move(caller)); }

void connection::close() { impl_->close(); }

void connection::input_ended() {
    if (impl_->enlisted.exchange(false)) impl_->core->withdraw(impl_.get());
}

const boost::asio::any_io_executor& connection::strand() const noexcept { return impl_->strand; }

namespace detail {

connection_impl::connection_impl(std::shared_ptr<server_core> server, boost::asio::any_io_executor ex,
                                 routed_send_function send, connection_options options)
    : core(std::move(server)),
      strand(make_connection_strand(std::move(ex))),
      opts(std::move(options)),
      rules(latest_rules()),
      client_level(core->opts.client_log_level),
      send_(std::move(send)) {
    auto fresh = std::make_shared<session_info>();
    fresh->id = opts.session_id;
    session = std::move(fresh);
    if (opts.registry && opts.single_request) {
        // (A connection that lives on keeps no snapshot alive: it copies the list.)
        const auto& snap = opts.registry->now();
        observers = observer_set(std::shared_ptr<const observer_set::list>(snap, &snap->observers));
        return;
    }
    std::lock_guard lock(core->mu);
    observers = observer_set(std::make_shared<const observer_set::list>(core->opts.observers));
}

std::shared_ptr<tool_handler> connection_impl::find_tool(std::string_view name) const {
    if (!opts.registry) return core->find(name);
    const auto& snap = opts.registry->now();
    auto it = snap->tools.find(name);
    return it == snap->tools.end() ? nullptr : std::shared_ptr<tool_handler>(snap, it->second.get());
}

connection_impl::~connection_impl() {
    if (lifecycle != phase::awaiting_initialize) tell_session(session_event::kind::closed);
}

void connection_impl::tell_session(session_event::kind what) const {
    const session_event e{what, reinterpret_cast<std::uintptr_t>(this)};
    for (const auto& o : observers) o->on_session_event(e);
}

template <class Work>
void connection_impl::post_guarded(Work work) {
    boost::asio::post(strand, [self = shared_from_this(), w = std::move(work)]() mutable {
        // The one catch at the connection boundary: nothing thrown while handling a message
        // (a bug, or bad_alloc) may unwind into the transport's io_context.
        try {
            w(*self);
        } catch (const std::exception& e) {
            self->log(log_level::critical, std::string("message handling failed: ") + e.what());
        } catch (...) {
            self->log(log_level::critical, "message handling failed: unknown exception");
        }
    });
}

void connection_impl::receive(std::string text) {
    post_guarded([t = std::move(text)](connection_impl& c) mutable { c.dispatcher.handle(std::move(t)); });
}

void connection_impl::receive(rpc::inbound message, std::size_t bytes) {
    post_guarded([m = std::move(message), bytes](connection_impl& c) mutable {
        if (c.dispatcher.begin_message(bytes)) c.dispatcher.dispatch_message(m);
    });
}

void connection_impl::assume_initialized(std::string protocol_version, std::string client_name,
                                         std::string client_version, boost::json::object client_capabilities) {
    post_guarded([v = std::move(protocol_version), n = std::move(client_name), cv = std::move(client_version),
                  caps = std::move(client_capabilities)](connection_impl& c) mutable {
        if (c.lifecycle != phase::awaiting_initialize) return;
        c.rules = negotiate(v);
        auto fresh = std::make_shared<session_info>(*c.session);
        fresh->protocol_version = std::string(c.rules.version);
        fresh->client_name = std::move(n);
        fresh->client_version = std::move(cv);
        fresh->client_capabilities = std::move(caps);
        c.session = std::move(fresh);
        c.lifecycle = phase::ready;
        c.tell_session(session_event::kind::opened);
    });
}

void connection_impl::set_caller(mcp::principal caller) {
    post_guarded([p = std::move(caller)](connection_impl& c) mutable { c.opts.caller = std::move(p); });
}

void connection_impl::close() {
    if (enlisted.exchange(false)) core->withdraw(this);
    {
        // Replies still waiting for observers are dropped, and the executor is let go now.
        std::lock_guard lock(durable_mutex_);
        durable_closed_ = true;
        durable_waiting_ = 0;
        durable_work_ = {};
    }
    boost::asio::post(strand, [self = shared_from_this()] {
        if (!self->closed) self->subscriptions.end_listeners();
        self->closed = true;
        self->calls.cancel_all();
        self->to_client.cancel_all();
    });
}

void connection_impl::log(log_level l, std::string_view text, log_fields fields) const {
    if (fields.principal.empty()) fields.principal = opts.caller.id;
    if (fields.session.empty()) fields.session = session->id;
    core->opts.log(l, text, fields);
}

void connection_impl::log_call(log_level l, std::string_view text, std::string_view tool, const rpc::request_id& id,
                               std::span<const std::string_view> codes) const {
    const auto request_id = detail::request_id_text(id);
    log(l, text, {.tool = tool, .request_id = request_id, .codes = codes});
}

void connection_impl::send_text(std::string text, const message_route& route) {
    if (closed || !send_) return;
    send_(std::move(text), route);
}

std::optional<std::string> connection_impl::result_message(const rpc::request_id& id,
                                                           const boost::json::value& result) {
    auto text = rpc::encode_result(id, result);
    if (!text) {
        log(log_level::error, "response could not be serialized: " + std::string(json::to_string(text.error())));
        send_error(id, rpc::error_object::make(rpc::error_code::internal_error, "internal error"));
        return std::nullopt;
    }
    return std::move(*text);
}

std::size_t connection_impl::send_result(const rpc::request_id& id, const boost::json::value& result) {
    auto text = result_message(id, result);
    if (!text) return 0;
    const std::size_t bytes = text->size();
    send_text(std::move(*text), message_route{id, true});
    return bytes;
}

void connection_impl::send_error(const std::optional<rpc::request_id>& id, const rpc::error_object& e) {
    auto text = rpc::encode_error(id, e);
    // Recorded before it leaves: whoever sees the answer sees it counted.
    if (!observers.empty()) {
        call_record r = record_call(id.value_or(rpc::request_id(std::string())), current, nullptr, "refused");
        r.what = call_record::kind::protocol_refusal;
        if (!id) r.request_id.clear();
        r.rpc_error = e.code;
        r.bytes_out = text.size();
        publish(r, current);
    }
    send_text(std::move(text), message_route{id, id.has_value()});
}

void connection_impl::answer(const rpc::request_id& id, std::variant<boost::json::object, rpc::error_object> a,
                             const reply_style& style) {
    if (const auto* err = std::get_if<rpc::error_object>(&a)) send_error(id, *err);
    else send_result(id, std::move(std::get<boost::json::object>(a)), style);
}

void connection_impl::send_result(const rpc::request_id& id, boost::json::object result, const reply_style& style) {
    dress(result, style);
    send_result(id, boost::json::value(std::move(result)));
}

void connection_impl::dress(boost::json::object& result, const reply_style& style) const {
    if (!style.stateless) return;
    if (!result.contains("resultType")) result["resultType"] = "complete";
    boost::json::object meta;
    if (auto* existing = result.if_contains("_meta"); existing && existing->is_object()) meta = existing->get_object();
    meta[meta_key::server_info] = detail::server_identity(core->opts);
    result["_meta"] = std::move(meta);
    if (style.cache) {
        result["ttlMs"] = style.cache->ttl.count() < 0 ? 0 : style.cache->ttl.count();
        result["cacheScope"] = style.cache->shared ? "public" : "private";
    }
}

void connection_impl::append_stateless_fields(std::string& message) const { message += core->call_fields; }

void connection_impl::send_notification(std::string_view method, const boost::json::object& params,
                                        const message_route& route) {
    auto text = rpc::encode_notification(method, params);
    if (!text) {
        log(log_level::error, "notification " + std::string(method) + " could not be serialized");
        return;
    }
    send_text(std::move(*text), route);
}

void connection_impl::notify_list_changed(std::string_view method) {
    boost::asio::post(strand,
                      [self = shared_from_this(), m = std::string(method)] { self->subscriptions.list_changed(m); });
}

void connection_impl::notify_resource_updated(const std::string& uri) {
    boost::asio::post(strand, [self = shared_from_this(), uri] { self->subscriptions.resource_updated(uri); });
}

void connection_impl::cancel_in_session(std::string session_id, jsonrpc::request_id id) {
    boost::asio::post(strand, [self = shared_from_this(), session_id = std::move(session_id), id = std::move(id)] {
        if (self->session && self->session->id == session_id) self->calls.cancel(id);
    });
}

}  // namespace detail

}  // namespace candor::mcp
