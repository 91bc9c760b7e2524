// SPDX-License-Identifier: BSL-1.0
// The server object and a connection's message dispatch: intake, lifecycle, tools/list,
// logging. Tool calls themselves are in call.cpp.
#include "server_core.hpp"

#include <candor/jsonrpc/encode.hpp>
#include <candor/jsonrpc/intake.hpp>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <stdexcept>

namespace candor::mcp {

namespace rpc = jsonrpc;

std::string_view to_string(registration_error e) noexcept {
    switch (e) {
        case registration_error::invalid_name: return "INVALID_TOOL_NAME";
        case registration_error::duplicate_name: return "DUPLICATE_TOOL_NAME";
        case registration_error::null_handler: return "NULL_HANDLER";
        case registration_error::invalid_uri: return "INVALID_URI";
        case registration_error::invalid_header_annotation: return "INVALID_HEADER_ANNOTATION";
    }
    return "INVALID_TOOL_NAME";
}

void throw_exception_from_error(registration_error e, const boost::source_location&) {
    throw std::invalid_argument("tool registration failed: " + std::string(to_string(e)));
}

// ---------------------------------------------------------------------------------------------
// server

server::server(server_options opts) : core_(std::make_shared<detail::server_core>(std::move(opts))) {}
server::~server() = default;

const server_options& server::options() const noexcept { return core_->opts; }

void server::set_log(log_sink sink) {
    core_->opts.log = sink ? std::move(sink) : log_sink([](log_level, std::string_view) {});
}

void server::add_observer(std::shared_ptr<call_observer> observer) {
    if (!observer) return;
    std::lock_guard lock(core_->mu);
    core_->opts.observers.push_back(std::move(observer));
}

void server::set_request_state_sealer(std::shared_ptr<const state_sealer> sealer) {
    std::lock_guard lock(core_->mu);
    core_->opts.request_state_sealer = std::move(sealer);
}

void server::set_max_result_bytes(std::size_t bytes) {
    std::lock_guard lock(core_->mu);
    core_->opts.max_result_bytes = bytes;
}

void server::set_result_text(result_text mode) {
    std::lock_guard lock(core_->mu);
    core_->opts.result_text_mode = mode;
}

boost::system::result<void, registration_error> server::add_tool(std::shared_ptr<tool_handler> tool) {
    if (!tool) return registration_error::null_handler;
    const auto& name = tool->info().name;
    if (!is_valid_tool_name(name)) return registration_error::invalid_name;
    auto mirrored = detail::header_params_of(tool->info().input_schema);
    if (!mirrored) {
        core_->opts.log(log_level::error, "tool " + name + " refused: " + mirrored.error());
        return registration_error::invalid_header_annotation;
    }
    std::vector<std::shared_ptr<connection>> to_notify;
    {
        std::lock_guard lock(core_->mu);
        if (core_->tools.count(name)) return registration_error::duplicate_name;
        if (!mirrored->empty())
            core_->tool_headers.insert_or_assign(
                name, std::make_shared<const std::vector<detail::header_param>>(std::move(*mirrored)));
        core_->tools.emplace(name, std::move(tool));
        for (auto& w : core_->connections)
            if (auto c = w.lock()) to_notify.push_back(std::move(c));
    }
    for (auto& c : to_notify) c->notify_list_changed("notifications/tools/list_changed");
    return {};
}

bool server::remove_tool(std::string_view name) {
    std::vector<std::shared_ptr<connection>> to_notify;
    {
        std::lock_guard lock(core_->mu);
        auto it = core_->tools.find(name);
        if (it == core_->tools.end()) return false;
        core_->tools.erase(it);
        if (auto h = core_->tool_headers.find(name); h != core_->tool_headers.end()) core_->tool_headers.erase(h);
        for (auto& w : core_->connections)
            if (auto c = w.lock()) to_notify.push_back(std::move(c));
    }
    for (auto& c : to_notify) c->notify_list_changed("notifications/tools/list_changed");
    return true;
}

std::shared_ptr<const tool_handler> server::find_tool(std::string_view name) const { return core_->find(name); }

boost::json::value server::describe_tool(std::string_view name) const {
    auto tool = core_->find(name);
    if (!tool) return nullptr;
    return detail::describe(*tool, latest_rules());
}

boost::json::array server::describe_tools() const {
    std::vector<std::shared_ptr<tool_handler>> tools;
    {
        std::lock_guard lock(core_->mu);
        for (const auto& kv : core_->tools) tools.push_back(kv.second);
    }
    boost::json::array out;
    for (const auto& t : tools) out.emplace_back(detail::describe(*t, latest_rules()));
    return out;
}

std::optional<issue_list> server::check_arguments(std::string_view name, std::string_view arguments_text) const {
    auto tool = core_->find(name);
    if (!tool) return std::nullopt;
    json::limits lim = tool->info().budget;
    lim.max_bytes = core_->opts.message_limits.max_bytes;
    auto intake_issue = [](const json::violation& v) {
        issue i;
        i.code = std::string(json::to_string(v.code));
        i.path = v.path;
        i.message = v.message;
        i.where = layer::intake;
        if (v.limit) i.details["limit"] = *v.limit;
        return i;
    };
    auto scanned = json::scan(arguments_text, lim);
    if (!scanned) return issue_list{intake_issue(scanned.error())};
    if (!scanned->violations.empty()) {
        issue_list issues;
        for (const auto& v : scanned->violations) issues.push_back(intake_issue(v));
        return issues;
    }
    const auto& args = scanned->doc.root();
    if (!args.is_object()) {
        issue i;
        i.code = "TYPE_MISMATCH";
        i.message = "the arguments must be a JSON object";
        i.where = layer::contract;
        return issue_list{std::move(i)};
    }
    return tool->check_arguments(args, &scanned->doc);
}

std::shared_ptr<connection> server::connect(boost::asio::any_io_executor ex, connection::send_function send,
                                            connection_options opts) {
    connection::routed_send_function routed;
    if (send) routed = [s = std::move(send)](std::string text, const message_route&) { s(std::move(text)); };
    return connect_routed(std::move(ex), std::move(routed), std::move(opts));
}

std::shared_ptr<connection> server::connect_routed(boost::asio::any_io_executor ex,
                                                   connection::routed_send_function send, connection_options opts) {
    std::shared_ptr<connection> c(new connection(core_, std::move(ex), std::move(send), std::move(opts)));
    std::lock_guard lock(core_->mu);
    std::erase_if(core_->connections, [](const auto& w) { return w.expired(); });
    core_->connections.push_back(c);
    return c;
}

// ---------------------------------------------------------------------------------------------
// connection: transport-facing side

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
    : core_(std::move(core)),
      strand_(make_connection_strand(std::move(ex))),
      send_(std::move(send)),
      opts_(std::move(opts)),
      rules_(latest_rules()),
      client_level_(core_->opts.client_log_level),
      deadline_timer_(strand_) {
    // The session's facts are one immutable `session_info` that every call points to; what
    // changes them (initialize, a stateless request from another client) makes a new one.
    auto session = std::make_shared<session_info>();
    session->id = opts_.session_id;
    session_ = std::move(session);
    std::lock_guard lock(core_->mu);
    observers_ = core_->opts.observers;
}

connection::~connection() {
    if (phase_ != phase::awaiting_initialize) tell_session(session_event::kind::closed);
}

void connection::tell_session(session_event::kind what) const {
    const session_event e{what, reinterpret_cast<std::uintptr_t>(this)};
    for (const auto& o : observers_) o->on_session_event(e);
}

template <class Work>
void connection::post_guarded(Work work) {
    boost::asio::post(strand_, [self = shared_from_this(), w = std::move(work)]() mutable {
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

void connection::receive(std::string text) {
    post_guarded([t = std::move(text)](connection& c) mutable { c.handle(std::move(t)); });
}

void connection::receive(rpc::inbound message, std::size_t bytes) {
    post_guarded([m = std::move(message), bytes](connection& c) mutable {
        if (c.begin_message(bytes)) c.dispatch_message(m);
    });
}

void connection::assume_initialized(std::string protocol_version, std::string client_name, std::string client_version,
                                    boost::json::object client_capabilities) {
    post_guarded([v = std::move(protocol_version), n = std::move(client_name), cv = std::move(client_version),
                  caps = std::move(client_capabilities)](connection& c) mutable {
        if (c.phase_ != phase::awaiting_initialize) return;
        c.rules_ = negotiate(v);
        auto session = std::make_shared<session_info>(*c.session_);
        session->protocol_version = std::string(c.rules_.version);
        session->client_name = std::move(n);
        session->client_version = std::move(cv);
        session->client_capabilities = std::move(caps);
        c.session_ = std::move(session);
        c.phase_ = phase::ready;
        c.tell_session(session_event::kind::opened);
    });
}

void connection::set_caller(mcp::principal caller) {
    post_guarded([p = std::move(caller)](connection& c) mutable { c.opts_.caller = std::move(p); });
}

void connection::close() {
    {
        // Replies still waiting for observers are dropped, and the executor is let go now.
        std::lock_guard lock(durable_mutex_);
        durable_closed_ = true;
        durable_waiting_ = 0;
        durable_work_ = {};
    }
    boost::asio::post(strand_, [self = shared_from_this()] {
        if (!self->closed_) self->end_listeners();
        self->closed_ = true;
        for (auto& [id, call] : self->calls_) {
            call->answered = true;
            call->cancelled = true;
            self->forget_deadline(*call);
            call->signal.emit(boost::asio::cancellation_type::terminal);
        }
        self->deadline_timer_.cancel();
        // Requests to the client no reply can reach any more.
        for (auto& [id, p] : self->pending_) {
            if (!p->outcome) p->outcome = client_request_error::cancelled;
            p->timer.cancel();
        }
        self->pending_.clear();
    });
}

void connection::log(log_level l, std::string_view text, log_fields fields) const {
    if (fields.principal.empty()) fields.principal = opts_.caller.id;
    if (fields.session.empty()) fields.session = session_->id;
    core_->opts.log(l, text, fields);
}

void connection::log_call(log_level l, std::string_view text, std::string_view tool, const rpc::request_id& id,
                          std::span<const std::string_view> codes) const {
    const auto request_id = detail::request_id_text(id);
    log(l, text, {.tool = tool, .request_id = request_id, .codes = codes});
}

void connection::send_text(std::string text, const message_route& route) {
    if (closed_ || !send_) return;
    send_(std::move(text), route);
}

std::optional<std::string> connection::result_message(const rpc::request_id& id, const boost::json::value& result) {
    auto text = rpc::encode_result(id, result);
    if (!text) {
        log(log_level::error, "response could not be serialized: " + std::string(json::to_string(text.error())));
        send_error(id, rpc::error_object::make(rpc::error_code::internal_error, "internal error"));
        return std::nullopt;
    }
    return std::move(*text);
}

std::size_t connection::send_result(const rpc::request_id& id, const boost::json::value& result) {
    auto text = result_message(id, result);
    if (!text) return 0;
    const std::size_t bytes = text->size();
    send_text(std::move(*text), message_route{id, true});
    return bytes;
}

void connection::send_error(const std::optional<rpc::request_id>& id, const rpc::error_object& e) {
    auto text = rpc::encode_error(id, e);
    // Recorded before it leaves: whoever sees the answer sees it counted.
    if (!observers_.empty()) {
        call_record r = record_call(id.value_or(rpc::request_id(std::string())), current_, nullptr, "refused");
        r.what = call_record::kind::protocol_refusal;
        if (!id) r.request_id.clear();
        r.rpc_error = e.code;
        r.bytes_out = text.size();
        publish(r, current_);
    }
    send_text(std::move(text), message_route{id, id.has_value()});
}

void connection::answer(const rpc::request_id& id, std::variant<boost::json::object, rpc::error_object> a,
                        const reply_style& style) {
    if (const auto* err = std::get_if<rpc::error_object>(&a)) send_error(id, *err);
    else send_result(id, std::move(std::get<boost::json::object>(a)), style);
}

void connection::send_result(const rpc::request_id& id, boost::json::object result, const reply_style& style) {
    dress(result, style);
    send_result(id, boost::json::value(std::move(result)));
}

void connection::dress(boost::json::object& result, const reply_style& style) const {
    if (!style.stateless) return;
    if (!result.contains("resultType")) result["resultType"] = "complete";
    boost::json::object meta;
    if (auto* existing = result.if_contains("_meta"); existing && existing->is_object()) meta = existing->get_object();
    meta[meta_key::server_info] = detail::server_identity(core_->opts);
    result["_meta"] = std::move(meta);
    if (style.cache) {
        result["ttlMs"] = style.cache->ttl.count() < 0 ? 0 : style.cache->ttl.count();
        result["cacheScope"] = style.cache->shared ? "public" : "private";
    }
}

void connection::send_notification(std::string_view method, const boost::json::object& params,
                                   const message_route& route) {
    auto text = rpc::encode_notification(method, params);
    if (!text) {
        log(log_level::error, "notification " + std::string(method) + " could not be serialized");
        return;
    }
    send_text(std::move(*text), route);
}

void connection::notify_list_changed(std::string_view method) {
    boost::asio::post(strand_, [self = shared_from_this(), m = std::string(method)] {
        if (self->phase_ != phase::awaiting_initialize) self->send_notification(m, {});
        self->notify_listeners(m, nullptr);
    });
}

void connection::notify_resource_updated(const std::string& uri) {
    boost::asio::post(strand_, [self = shared_from_this(), uri] {
        if (self->subscriptions_.count(uri))
            self->send_notification("notifications/resources/updated", boost::json::object{{"uri", uri}});
        self->notify_listeners("notifications/resources/updated", &uri);
    });
}

// ---------------------------------------------------------------------------------------------
// connection: dispatch

bool connection::begin_message(std::size_t bytes) {
    if (closed_) return false;
    current_ = call_origin{std::chrono::steady_clock::now(), bytes, nullptr};
    current_method_ = {};
    return true;
}

void connection::handle(std::string text) {
    if (!begin_message(text.size())) return;
    auto in = rpc::read_message(text, core_->opts.message_limits);
    if (!in) {
        send_error(in.error().id, in.error().error);
        return;
    }
    dispatch_message(*in);
}

void connection::dispatch_message(rpc::inbound& in) {
    if (auto* req = std::get_if<rpc::request>(&in.msg)) {
        current_method_ = detail::known_method(req->method);
        handle_request(in, *req);
    } else if (auto* n = std::get_if<rpc::notification>(&in.msg)) {
        handle_notification(in, *n);
    } else {
        on_response(std::get<rpc::response>(in.msg));
    }
}

void connection::handle_request(rpc::inbound& in, rpc::request& req) {
    if (!used_ && phase_ != phase::awaiting_initialize && req.method != "initialize") {
        used_ = true;
        tell_session(session_event::kind::used);
    }
    // Only tools/call gives meaning to violations inside its params (those in `arguments`);
    // for every other method they make the message ambiguous.
    if (req.method != "tools/call" && !in.param_violations.empty()) {
        auto& v = in.param_violations.front();
        v.path.insert(0, "/params");
        send_error(req.id, rpc::error_object::make(rpc::error_code::parse_error, v.message,
                                                   boost::json::value(rpc::to_json(v))));
        return;
    }
    if (auto refused = detail::trace_context(req, current_.traceparent, current_.tracestate)) {
        send_error(req.id, std::move(*refused));
        return;
    }
    if (claims_stateless(req)) return handle_stateless(in, req);
    enter_session_frame();
    if (req.method == "ping") {
        send_result(req.id, boost::json::object{});
        return;
    }
    if (req.method == "initialize") {
        on_initialize(req);
        return;
    }
    if (rules_.requires_initialize && phase_ == phase::awaiting_initialize) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_request,
                                                   "the session is not initialized: send initialize first"));
        return;
    }
    if (req.method == "tools/list") return on_tools_list(req);
    if (req.method == "tools/call") return on_tools_call(in, req);
    if (req.method == "logging/setLevel") return on_set_level(req);
    if (req.method == "resources/list") return on_resources_list(req);
    if (req.method == "resources/templates/list") return on_resource_templates_list(req);
    if (req.method == "resources/read") return on_resources_read(req);
    if (req.method == "resources/subscribe") return on_resources_subscribe(req, true);
    if (req.method == "resources/unsubscribe") return on_resources_subscribe(req, false);
    if (req.method == "prompts/list") return on_prompts_list(req);
    if (req.method == "prompts/get") return on_prompts_get(req);
    if (req.method == "completion/complete") return on_complete(req);
    send_error(req.id, rpc::error_object::make(rpc::error_code::method_not_found, "method not found: " + req.method));
}

void connection::enter_session_frame() {
    current_.session = session_;
    current_.stateless = false;
    frame_.rules = rules_;
    frame_.log_threshold.reset();
}

void connection::handle_stateless(rpc::inbound& in, rpc::request& req) {
    current_.stateless = true;
    if (auto refused = detail::preflight(*core_, req, nullptr)) {
        send_error(req.id, refused->error);
        return;
    }
    const auto meta = read_request_meta(req).value();  // preflight accepted it
    frame_.rules = *rules_for(meta.protocol_version);
    frame_.log_threshold.reset();
    if (meta.log_level) frame_.log_threshold = parse_log_level(*meta.log_level);
    // The client facts of this request. A client sends the same _meta on every request: the
    // last one's facts are reused while nothing in them changed.
    const auto& last = stateless_session_;
    const bool same = last && last->protocol_version == meta.protocol_version &&
                      last->client_capabilities == *meta.client_capabilities &&
                      (meta.client_info ? detail::same_client(*last, *meta.client_info)
                                        : last->client_name.empty() && last->client_version.empty());
    if (!same) {
        auto session = std::make_shared<session_info>();
        session->id = opts_.session_id;
        session->protocol_version = std::string(meta.protocol_version);
        session->client_capabilities = json::detach(boost::json::value(*meta.client_capabilities)).as_object();
        if (meta.client_info) {
            if (const auto* n = meta.client_info->if_contains("name"); n && n->is_string())
                session->client_name = n->get_string();
            if (const auto* v = meta.client_info->if_contains("version"); v && v->is_string())
                session->client_version = v->get_string();
        }
        stateless_session_ = std::move(session);
    }
    current_.session = stateless_session_;
    const auto& m = req.method;
    if (m == "server/discover") return on_discover(req);
    if (m == "tools/list") return on_tools_list(req);
    if (m == "tools/call") return on_tools_call(in, req);
    if (m == "resources/list") return on_resources_list(req);
    if (m == "resources/templates/list") return on_resource_templates_list(req);
    if (m == "resources/read") return on_resources_read(req);
    if (m == "prompts/list") return on_prompts_list(req);
    if (m == "prompts/get") return on_prompts_get(req);
    if (m == "completion/complete") return on_complete(req);
    if (m == "subscriptions/listen") return on_listen(req);
    if (m == "tasks/get") return on_tasks_get(req);
    if (m == "tasks/update") return on_tasks_update(req);
    if (m == "tasks/cancel") return on_tasks_cancel(req);
    // preflight refuses every other method
    send_error(req.id, rpc::error_object::make(rpc::error_code::method_not_found, "Method not found: " + m));
}

void connection::handle_notification(rpc::inbound&, rpc::notification& n) {
    if (n.method == "notifications/initialized") {
        if (phase_ == phase::initializing) phase_ = phase::ready;
    } else if (n.method == "notifications/cancelled") {
        on_cancelled(n);
    } else {
        // Notifications are never answered, not even with an error. Their names are the
        // client's text: only known ones are logged by name.
        log(log_level::debug, "ignored notification " + std::string(detail::known_method(n.method)));
    }
}

namespace {

const boost::json::value* member(const boost::json::object* o, std::string_view key) {
    return o ? o->if_contains(key) : nullptr;
}

// A copy that owns its memory (values in an inbound document live in its arena).
boost::json::value detached(const boost::json::value& v) { return boost::json::value(v, boost::json::storage_ptr()); }

}  // namespace

void connection::on_initialize(const rpc::request& req) {
    if (phase_ != phase::awaiting_initialize) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_request,
                                                   "initialize may be sent once per session"));
        return;
    }
    const auto* version = member(req.params, "protocolVersion");
    if (!version || !version->is_string()) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                   "initialize needs params.protocolVersion (a string)"));
        return;
    }
    const auto* caps = member(req.params, "capabilities");
    const auto* client = member(req.params, "clientInfo");
    if ((caps && !caps->is_object()) || (client && !client->is_object())) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                   "capabilities and clientInfo must be objects"));
        return;
    }
    rules_ = negotiate(version->get_string());
    auto session = std::make_shared<session_info>(*session_);
    session->protocol_version = std::string(rules_.version);
    if (caps) session->client_capabilities = detached(*caps).as_object();
    if (client) {
        const auto& ci = client->get_object();
        if (const auto* n = ci.if_contains("name"); n && n->is_string()) session->client_name = n->get_string();
        if (const auto* v = ci.if_contains("version"); v && v->is_string()) session->client_version = v->get_string();
    }
    session_ = std::move(session);

    const auto& o = core_->opts;
    boost::json::object info{{"name", o.name}, {"version", o.version}};
    if (rules_.titles && !o.title.empty()) info["title"] = o.title;
    boost::json::object result;
    result["protocolVersion"] = rules_.version;
    boost::json::object capabilities{{"tools", boost::json::object{{"listChanged", true}}},
                                     {"logging", boost::json::object{}}};
    {
        // Only what something is registered for (at the time of initialize).
        std::lock_guard lock(core_->mu);
        if (!core_->resources.empty() || !core_->templates.empty())
            capabilities["resources"] = boost::json::object{{"subscribe", true}, {"listChanged", true}};
        if (!core_->prompts.empty()) capabilities["prompts"] = boost::json::object{{"listChanged", true}};
        if (!core_->completions.empty()) capabilities["completions"] = boost::json::object{};
    }
    result["capabilities"] = std::move(capabilities);
    result["serverInfo"] = std::move(info);
    if (!o.instructions.empty()) result["instructions"] = o.instructions;
    phase_ = phase::initializing;
    send_result(req.id, result);
    tell_session(session_event::kind::opened);
}

void connection::on_tools_list(const rpc::request& req) {
    std::optional<std::string> cursor;
    if (!detail::read_cursor(req.params, cursor)) {
        send_error(req.id, detail::invalid_params("cursor must be a string"));
        return;
    }
    auto page = core_->list(cursor);
    if (!page) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                   "invalid cursor: pass a nextCursor from an earlier tools/list"));
        return;
    }
    const auto& listed = page.value();
    boost::json::array tools;
    for (const auto& t : listed.tools) tools.emplace_back(detail::describe(*t, frame_.rules));
    boost::json::object result{{"tools", std::move(tools)}};
    if (listed.next_cursor) result["nextCursor"] = listed.next_cursor.value();
    send_result(req.id, std::move(result), style_of(&core_->opts.caching.lists));
}

void connection::on_set_level(const rpc::request& req) {
    const auto* level = member(req.params, "level");
    std::optional<log_level> parsed;
    if (level && level->is_string()) parsed = parse_log_level(level->get_string());
    if (!parsed) {
        send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                   "level must be one of debug, info, notice, warning, "
                                                   "error, critical, alert, emergency"));
        return;
    }
    client_level_ = *parsed;
    send_result(req.id, boost::json::object{});
}

void connection::on_cancelled(const rpc::notification& n) {
    const auto* id_value = member(n.params, "requestId");
    if (!id_value) return;
    std::optional<rpc::request_id> id;
    if (const auto* s = id_value->if_string()) id = rpc::request_id(std::string(*s));
    else if (const auto* i = id_value->if_int64()) id = rpc::request_id(*i);
    if (!id) return;
    // A subscription ends without a response (the client closed it).
    if (listeners_.erase(*id)) return;
    auto it = calls_.find(*id);
    // Unknown or finished: the spec says to ignore it (the response may be on its way).
    if (it == calls_.end() || it->second->answered) return;
    // A cancelled call is never answered. It keeps its place in `calls_` until its handler has
    // returned (`finish_call`), so that `max_calls_in_flight` bounds the work really running.
    auto& call = *it->second;
    call.answered = true;
    call.cancelled = true;
    forget_deadline(call);
    log_call(log_level::info, "the call was cancelled by the client", call.tool_name, *id);
    call.signal.emit(boost::asio::cancellation_type::terminal);
}

}  // namespace candor::mcp
