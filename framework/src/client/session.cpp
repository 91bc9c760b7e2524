// SPDX-License-Identifier: BSL-1.0
// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
// A session with one server: the revision agreed (a `server/discover` probe, with the fallback
// to `initialize` the specification describes), requests numbered and matched to their
// answers, one at a time, and every answer read before it is believed.
#include "channel.hpp"

#include <candor/json/document.hpp>
#include <candor/json/intake.hpp>
#include <candor/mcp/stateless.hpp>
#include <candor/mcp/version.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <map>

namespace candor::client {

namespace detail {

client_error error(std::string code, std::string text, std::string detail) {
    client_error e;
    e.code = std::move(code);
    e.message = std::move(text);
    e.detail = std::move(detail);
    return e;
}

json::limits limits_of(const session_options& o) {
    json::limits lim;
    lim.max_bytes = o.max_message_bytes;
    lim.max_depth = std::min(o.max_depth, json::depth_ceiling);
    lim.max_nodes = o.max_nodes;
    return lim;
}

outcome<boost::json::value> read_json(std::string_view text, const session_options& o) {
    auto doc = json::parse(text, limits_of(o));
    if (!doc)
        return error("MESSAGE_REFUSED",
                     "a text from the server is not strict JSON within the limits: " + doc.error().message,
                     std::string(json::to_string(doc.error().code)));
    return json::detach(doc->root());
}

outcome<message> read_message(std::string_view text, const session_options& o) {
    auto v = read_json(text, o);
    if (!v) return v.error();
    auto* m = v->if_object();
    const auto* version = m ? m->if_contains("jsonrpc") : nullptr;
    if (!version || !version->is_string() || version->get_string() != "2.0")
        return error("MESSAGE_REFUSED", "a message from the server is not a JSON-RPC 2.0 object", "NOT_JSONRPC");
    return std::move(*m);
}

std::string id_text_of(const message& m) {
    const auto* id = m.if_contains("id");
    return id && (id->is_string() || id->is_int64() || id->is_uint64()) ? boost::json::serialize(*id) : std::string();
}

}  // namespace detail

namespace {

namespace net = boost::asio;
using detail::error;
using detail::outcome;

constexpr std::string_view modern_version = "2026-07-28";
constexpr std::string_view legacy_version = "2025-11-25";

std::string reply_to(const boost::json::value& id, boost::json::object result) {
    return boost::json::serialize(boost::json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}
std::string refusal_to(const boost::json::value& id, int code, std::string message) {
    return boost::json::serialize(
        boost::json::object{{"jsonrpc", "2.0"},
                            {"id", id},
                            {"error", boost::json::object{{"code", code}, {"message", std::move(message)}}}});
}
bool is_input_required(const boost::json::object& r) {
    const auto* type = r.if_contains("resultType");
    return type && *type == "input_required";
}
// The capabilities the host's handlers declare.
boost::json::object capabilities_of(const session_options& o) {
    boost::json::object c;
    if (o.handlers.elicitation) c["elicitation"] = boost::json::object{};
    if (o.handlers.sampling) c["sampling"] = boost::json::object{};
    if (o.handlers.roots) c["roots"] = boost::json::object{};
    return c;
}

// JSON built outside the coroutines (GCC 12 miscompiles string literals in braced initializers
// inside coroutine bodies).
boost::json::object request_object(std::int64_t id, const std::string& method, boost::json::object params) {
    boost::json::object r{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.empty()) r["params"] = std::move(params);
    return r;
}
boost::json::object client_info(const session_options& o) {
    return boost::json::object{{"name", o.client_name}, {"version", o.client_version}};
}
boost::json::object initialize_params(const session_options& o) {
    return boost::json::object{
        {"protocolVersion", legacy_version}, {"capabilities", capabilities_of(o)}, {"clientInfo", client_info(o)}};
}
boost::json::object call_params(const std::string& name, boost::json::object arguments, boost::json::object meta) {
    boost::json::object p{{"name", name}, {"arguments", std::move(arguments)}};
    if (!meta.empty()) p["_meta"] = std::move(meta);
    return p;
}
std::string initialized_note() {
    return boost::json::serialize(boost::json::object{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}
std::string cancelled_note(std::int64_t id, const std::string& reason) {
    return boost::json::serialize(
        boost::json::object{{"jsonrpc", "2.0"},
                            {"method", "notifications/cancelled"},
                            {"params", boost::json::object{{"requestId", id}, {"reason", reason}}}});
}
void add_progress_token(boost::json::object& params, const std::string& token) {
    auto& meta = params["_meta"];
    if (!meta.is_object()) meta.emplace_object();
    meta.get_object()["progressToken"] = token;
}
// The token of a progress notification's params, as the client made it (a string), or empty.
std::string progress_token_of(const boost::json::object& params) {
    const auto* t = params.if_contains("progressToken");
    return t && t->is_string() ? std::string(t->get_string()) : std::string();
}
constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

void add_meta(boost::json::object& params, const session_options& o) {
    auto& meta = params["_meta"];
    if (!meta.is_object()) meta.emplace_object();
    auto& m = meta.get_object();
    m["io.modelcontextprotocol/protocolVersion"] = modern_version;
    m["io.modelcontextprotocol/clientInfo"] = client_info(o);
    if (!m.contains("io.modelcontextprotocol/clientCapabilities")) {
        auto c = capabilities_of(o);
        if (o.tasks) c["extensions"] = boost::json::object{{tasks_extension, boost::json::object{}}};
        m["io.modelcontextprotocol/clientCapabilities"] = std::move(c);
    }
}

boost::json::object task_params(const std::string& id) { return boost::json::object{{"taskId", id}}; }
boost::json::object task_update_params(const std::string& id, boost::json::object responses) {
    return boost::json::object{{"taskId", id}, {"inputResponses", std::move(responses)}};
}
std::string string_field(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}
// A task's poll interval: what it asks for (pollIntervalMs), held between the session's bounds.
std::chrono::milliseconds poll_interval(const boost::json::object& task, const session_options& o) {
    std::chrono::milliseconds every = o.min_poll * 10;
    if (const auto* p = task.if_contains("pollIntervalMs"); p && p->is_number())
        every =
            std::chrono::milliseconds(static_cast<std::int64_t>(std::max(0.0, std::min(p->to_number<double>(), 1e9))));
    return std::clamp(every, o.min_poll, o.max_poll);
}

session_options with_defaults(session_options o) {
    if (o.client_name.empty()) o.client_name = "candor-client";
    if (o.client_version.empty()) o.client_version = std::string(candor::version());
    return o;
}

bool is_modern_error(int code) { return code == -32020 || code == -32021 || code == -32022; }

bool lists(const boost::json::value* versions, std::string_view v) {
    if (!versions || !versions->is_array()) return false;
    const auto& a = versions->get_array();
    return std::any_of(a.begin(), a.end(), [&](const auto& x) { return x.is_string() && x.get_string() == v; });
}

}  // namespace

struct session::impl {
    net::any_io_executor ex;
    session_options opts;
    std::unique_ptr<detail::channel> channel;
    std::string version;
    bool modern = false;
    boost::json::object capabilities, info;
    std::string instructions;
    std::int64_t next_id = 1;
    bool busy = false;
    bool http = false;
    // What tools/list said of each tool's x-mcp-header parameters (HTTP): the headers a call
    // carries, or why the tool is not called.
    bool tools_listed = false;
    std::map<std::string, std::vector<mcp::header_param>, std::less<>> tool_headers;
    std::map<std::string, std::string, std::less<>> invalid_tools;
    // The progress callbacks of the requests in flight, by their progress token.
    std::map<std::string, const std::function<void(const boost::json::object&)>*, std::less<>> progress;
    net::steady_timer turn{ex};  // wakes the requests waiting for theirs

    impl(net::any_io_executor e, session_options o) : ex(std::move(e)), opts(std::move(o)), turn(ex) {
        turn.expires_at(std::chrono::steady_clock::time_point::max());
    }

    // A listed tool's x-mcp-header parameters, or why it may not be called.
    void learn(const boost::json::object& tool) {
        const auto* name = tool.if_contains("name");
        const auto* schema = tool.if_contains("inputSchema");
        if (!name || !name->is_string()) return;
        const std::string n(name->get_string());
        tool_headers.erase(n);
        invalid_tools.erase(n);
        if (!schema || !schema->is_object()) return;
        auto params = mcp::header_params_of(schema->get_object());
        if (!params) invalid_tools.emplace(n, params.error());
        else if (!params->empty()) tool_headers.emplace(n, std::move(*params));
    }

    const request_handler* handler_for(std::string_view method) const {
        const auto& h = opts.handlers;
        const request_handler* f = method == "elicitation/create"       ? &h.elicitation
                                   : method == "sampling/createMessage" ? &h.sampling
                                   : method == "roots/list"             ? &h.roots
                                                                        : nullptr;
        return f && *f ? f : nullptr;
    }

    // What to do with a message that is not the awaited answer: a notification goes to the
    // host, a request is answered (`ping`, or by its handler), an answer to nothing is dropped.
    net::awaitable<std::optional<std::string>> other(const detail::message& m) const {
        const auto* method = m.if_contains("method");
        if (!method || !method->is_string()) co_return std::nullopt;
        const auto* params = m.if_contains("params");
        static const boost::json::object none;
        const auto& p = params && params->is_object() ? params->get_object() : none;
        if (!m.contains("id")) {
            if (method->get_string() == "notifications/progress")
                if (auto to = progress.find(progress_token_of(p)); to != progress.end()) {
                    (*to->second)(p);
                    co_return std::nullopt;
                }
            if (opts.on_notification) opts.on_notification(std::string(method->get_string()), p);
            co_return std::nullopt;
        }
        if (method->get_string() == "ping") co_return reply_to(m.at("id"), boost::json::object{});
        const auto* handler = handler_for(method->get_string());
        if (!handler)
            co_return refusal_to(m.at("id"), -32601,
                                 "this client does not answer " + std::string(method->get_string()));
        auto answer = co_await (*handler)(p);
        if (!answer) co_return refusal_to(m.at("id"), -32603, answer.error().message);
        co_return reply_to(m.at("id"), std::move(*answer));
    }

    // The answers to `input_required`'s requests, by key; or why not.
    net::awaitable<outcome<boost::json::object>> answer_inputs(const boost::json::value* requests) const {
        if (!requests || !requests->is_object() || requests->get_object().empty())
            co_return error("MESSAGE_REFUSED", "input_required without inputRequests", "NOT_JSONRPC");
        boost::json::object responses;
        for (const auto& [key, request] : requests->get_object()) {
            const auto* r = request.if_object();
            const auto* method = r ? r->if_contains("method") : nullptr;
            if (!method || !method->is_string())
                co_return error("MESSAGE_REFUSED", "an input request without a method", "NOT_JSONRPC");
            const auto* handler = handler_for(method->get_string());
            if (!handler)
                co_return error("INPUT_REQUIRED", "the server asks " + std::string(method->get_string()) +
                                                      ", which no handler of this client answers");
            const auto* params = r->if_contains("params");
            static const boost::json::object none;
            auto answer = co_await (*handler)(params && params->is_object() ? params->get_object() : none);
            if (!answer) co_return answer.error();
            responses[key] = std::move(*answer);
        }
        co_return responses;
    }

    static bool cancelled(const net::cancellation_state& cs) { return cs.cancelled() != net::cancellation_type::none; }

    net::awaitable<outcome<boost::json::object>> send(std::string method, boost::json::object params,
                                                      const request_options& how) {
        // A cancellation is a value here, not an exception: what was started is finished (the
        // server told), and the caller gets CANCELLED. The caller's setting is restored after.
        const bool throwing = co_await net::this_coro::throw_if_cancelled();
        co_await net::this_coro::throw_if_cancelled(false);
        // The timer never expires: cancel() wakes every waiter, one takes the turn, the others
        // wait again (resetting its expiry here would cancel the others' waits, again and again).
        while (busy && !cancelled(co_await net::this_coro::cancellation_state))
            co_await turn.async_wait(net::as_tuple(net::use_awaitable));
        outcome<boost::json::object> r = error("CANCELLED", "the request was cancelled before it was sent");
        if (!busy) {
            busy = true;
            r = co_await exchange(std::move(method), std::move(params), how);
            busy = false;
            turn.cancel();
        }
        co_await net::this_coro::throw_if_cancelled(throwing);
        co_return r;
    }

    // A request and, on 2026-07-28, its retries with the answers to what the server asked.
    net::awaitable<outcome<boost::json::object>> exchange(std::string method, boost::json::object params,
                                                          const request_options& how) {
        auto r = co_await exchange_once(method, params, how);
        for (std::size_t round = 0; r && modern && is_input_required(*r); ++round) {
            if (round == opts.max_input_rounds)
                co_return error("INPUT_REQUIRED", "the server asked again after " + std::to_string(round) + " rounds");
            auto responses = co_await answer_inputs(r->if_contains("inputRequests"));
            if (!responses) co_return responses.error();
            auto retry = params;
            retry["inputResponses"] = std::move(*responses);
            // The request state goes back as it came: the server sealed it.
            if (const auto* state = r->if_contains("requestState")) retry["requestState"] = *state;
            r = co_await exchange_once(method, std::move(retry), how);
        }
        co_return r;
    }

    net::awaitable<outcome<boost::json::object>> exchange_once(const std::string& method, boost::json::object params,
                                                               const request_options& how) {
        detail::message_facts facts;
        facts.protocol_version = version;
        facts.modern = modern;
        facts.method = method;
        facts.timeout = how.timeout.count() > 0 ? how.timeout : opts.request_timeout;
        if (method == "tools/call" || method == "prompts/get") {
            if (const auto* n = params.if_contains("name"); n && n->is_string()) facts.name = n->get_string();
            const auto* args = params.if_contains("arguments");
            if (auto h = tool_headers.find(facts.name);
                method == "tools/call" && h != tool_headers.end() && args && args->is_object())
                facts.headers = mcp::param_headers(h->second, args->get_object());
        } else if (method == "resources/read") {
            if (const auto* u = params.if_contains("uri"); u && u->is_string()) facts.name = u->get_string();
        } else if (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") {
            if (const auto* t = params.if_contains("taskId"); t && t->is_string()) facts.name = t->get_string();
        }
        if (modern) add_meta(params, opts);
        const auto id = next_id++;
        std::string token;  // only a request that asked for progress has one
        if (how.on_progress) {
            token = "candor-progress-" + std::to_string(id);
            add_progress_token(params, token);
            progress[token] = &how.on_progress;
        }
        auto text = boost::json::serialize(request_object(id, method, std::move(params)));
        const detail::on_other_message on_other = [this](const detail::message& m) { return other(m); };
        auto answer = co_await channel->exchange(std::move(text), std::to_string(id), facts, on_other);
        if (!token.empty()) progress.erase(token);
        if (!answer) {
            const bool stopped = cancelled(co_await net::this_coro::cancellation_state);
            if (!stopped && answer.error().code != "TIMEOUT") co_return answer.error();
            // The server is told, as the transport wants it: on 2026-07-28 HTTP the closed
            // response stream said it; elsewhere a notification does.
            if (stopped) co_await net::this_coro::reset_cancellation_state();
            if (!(http && modern)) {
                auto note_facts = facts;
                note_facts.method = "notifications/cancelled";
                note_facts.name.clear();
                note_facts.headers.clear();
                const auto reason = stopped ? std::string("cancelled by the client") : answer.error().message;
                (void)co_await channel->notify(cancelled_note(id, reason), note_facts);
            }
            if (stopped) co_return error("CANCELLED", "the request was cancelled; the server was told");
            co_return answer.error();
        }
        if (const auto* e = answer->if_contains("error")) {
            const auto* eo = e->if_object();
            const auto* code = eo ? eo->if_contains("code") : nullptr;
            const auto* what = eo ? eo->if_contains("message") : nullptr;
            if (!code || !code->is_int64() || !what || !what->is_string())
                co_return error("MESSAGE_REFUSED", "an error answer without a code and a message", "NOT_JSONRPC");
            auto err = error("RPC_ERROR", std::string(what->get_string()));
            err.rpc_code = static_cast<int>(code->get_int64());
            if (const auto* d = eo->if_contains("data")) err.data = *d;
            co_return err;
        }
        auto* result = answer->if_contains("result");
        if (!result || !result->is_object())
            co_return error("MESSAGE_REFUSED", "an answer without a result object", "NOT_JSONRPC");
        auto& r = result->get_object();
        if (const auto* type = r.if_contains("resultType"); modern && type && *type != "complete" &&
                                                            *type != "input_required" &&
                                                            !(*type == "task" && opts.tasks && method == "tools/call"))
            co_return error("MESSAGE_REFUSED", "a result of a type the client did not ask for");
        co_return std::move(r);
    }

    // A call answered with a task, followed to its end: its result, or why there is none.
    net::awaitable<outcome<boost::json::object>> follow_task(const std::string& id, std::chrono::milliseconds every) {
        const bool throwing = co_await net::this_coro::throw_if_cancelled();
        co_await net::this_coro::throw_if_cancelled(false);
        const request_options how;
        outcome<boost::json::object> out = error("TASK_FAILED", "the task was not followed");
        bool cancel = false;
        net::steady_timer wait(ex);
        const auto give_up = std::chrono::steady_clock::now() + opts.max_task_wait;
        while (true) {
            wait.expires_after(every);
            co_await wait.async_wait(net::as_tuple(net::use_awaitable));
            if (cancelled(co_await net::this_coro::cancellation_state)) {
                out = error("CANCELLED", "the call was cancelled; so was its task");
                cancel = true;
                break;
            }
            if (std::chrono::steady_clock::now() >= give_up) {
                out = error("TIMEOUT", "the task did not end within " + std::to_string(opts.max_task_wait.count()) +
                                           " ms; it was cancelled");
                cancel = true;
                break;
            }
            auto got = co_await send("tasks/get", task_params(id), how);
            if (!got) {
                cancel = got.error().code == "CANCELLED";
                out = got.error();
                break;
            }
            const auto status = string_field(*got, "status");
            if (status == "completed") {
                const auto* result = got->if_contains("result");
                if (result && result->is_object()) out = result->get_object();
                else out = error("MESSAGE_REFUSED", "a completed task without a result object", "NOT_JSONRPC");
                break;
            }
            if (status == "failed" || status == "cancelled") {
                auto e = error("TASK_FAILED", "the task ended " + status, status);
                if (const auto* why = got->if_contains("error")) e.data = *why;
                out = std::move(e);
                break;
            }
            if (status == "input_required") {
                auto responses = co_await answer_inputs(got->if_contains("inputRequests"));
                if (!responses) {
                    out = responses.error();
                    cancel = true;  // a question no one here answers: the task would wait for nothing
                    break;
                }
                auto update = co_await send("tasks/update", task_update_params(id, std::move(*responses)), how);
                if (!update) {
                    out = update.error();
                    cancel = update.error().code == "CANCELLED";
                    break;
                }
            } else if (status != "working") {
                out = error("MESSAGE_REFUSED", "a task with status " + status.substr(0, 40), "NOT_JSONRPC");
                break;
            }
            every = poll_interval(*got, opts);
        }
        if (cancel) {
            co_await net::this_coro::reset_cancellation_state();
            (void)co_await send("tasks/cancel", task_params(id), how);
        }
        co_await net::this_coro::throw_if_cancelled(throwing);
        co_return out;
    }

    // The modern probe: the discover result, or why not.
    net::awaitable<outcome<boost::json::object>> discover() {
        modern = true;
        version = std::string(modern_version);
        const request_options how;
        co_return co_await send("server/discover", {}, how);
    }

    net::awaitable<outcome<void>> initialize() {
        modern = false;
        version.clear();
        const request_options how;
        auto r = co_await send("initialize", initialize_params(opts), how);
        if (!r) co_return r.error();
        const auto* v = r->if_contains("protocolVersion");
        if (!v || !v->is_string() || v->get_string() != legacy_version)
            co_return error("PROTOCOL_MISMATCH",
                            "the server speaks " +
                                (v && v->is_string() ? std::string(v->get_string()) : std::string("no revision")) +
                                "; this client speaks 2026-07-28 and 2025-11-25");
        version = std::string(legacy_version);
        take_server_facts(*r, r->if_contains("serverInfo"));
        detail::message_facts facts;
        facts.protocol_version = version;
        facts.method = "notifications/initialized";
        facts.timeout = opts.request_timeout;
        auto sent = co_await channel->notify(initialized_note(), facts);
        if (sent) {
            facts.method.clear();
            const detail::on_other_message on_other = [this](const detail::message& m) { return other(m); };
            co_await channel->listen(on_other, facts);
        }
        co_return sent;
    }

    void take_server_facts(const boost::json::object& r, const boost::json::value* server) {
        if (const auto* c = r.if_contains("capabilities"); c && c->is_object()) capabilities = c->get_object();
        if (server && server->is_object()) info = server->get_object();
        if (const auto* i = r.if_contains("instructions"); i && i->is_string()) instructions = i->get_string();
    }

    net::awaitable<outcome<void>> agree() {
        if (opts.protocol != era::legacy) {
            const auto full = opts.request_timeout;
            if (opts.protocol == era::automatic) opts.request_timeout = std::min(opts.probe_timeout, full);
            auto probe = co_await discover();
            // -32022 listing 2026-07-28 after all (a version refused for a reason of the
            // moment): the probe is asked again, once, with it.
            if (!probe && probe.error().rpc_code == -32022) {
                const client_error refusal = probe.error();  // error() is a copy: keep it while it is read
                const auto* data = refusal.data.if_object();
                if (data && lists(data->if_contains("supported"), modern_version)) probe = co_await discover();
            }
            opts.request_timeout = full;
            if (probe) {
                if (lists(probe->if_contains("supportedVersions"), modern_version)) {
                    const auto* meta = probe->if_contains("_meta");
                    take_server_facts(*probe, meta && meta->is_object()
                                                  ? meta->get_object().if_contains("io.modelcontextprotocol/serverInfo")
                                                  : nullptr);
                    co_return outcome<void>{};
                }
                const auto* versions = probe->if_contains("supportedVersions");
                if (opts.protocol == era::modern ||
                    (versions && versions->is_array() && !lists(versions, legacy_version)))
                    co_return error("PROTOCOL_MISMATCH", "the server supports neither 2026-07-28 nor 2025-11-25");
                // No DiscoverResult (no supportedVersions), or one that offers 2025-11-25.
            } else {
                const auto& e = probe.error();
                const bool modern_refusal = e.rpc_code && is_modern_error(*e.rpc_code);
                if (opts.protocol == era::modern) co_return e;
                if (modern_refusal) {
                    // A modern server that will not speak 2026-07-28: the legacy revision only if it offers it.
                    const auto* data = e.data.if_object();
                    if (*e.rpc_code == -32022 && !(data && lists(data->if_contains("supported"), legacy_version)))
                        co_return error("PROTOCOL_MISMATCH", "the server supports neither 2026-07-28 nor 2025-11-25");
                    if (*e.rpc_code != -32022) co_return e;
                } else if (e.code == "CONNECT_FAILED" || e.code == "SERVER_CLOSED" || e.code == "INVALID_ENDPOINT" ||
                           e.code == "MESSAGE_REFUSED" || e.code == "UNAUTHORIZED" ||
                           e.code == "AUTHORIZATION_FAILED") {
                    co_return e;
                }
                // Any other error, or none within the probe's time: a legacy server.
            }
        }
        co_return co_await initialize();
    }
};

session::session(std::unique_ptr<impl> i) : impl_(std::move(i)) {}
session::~session() = default;

net::awaitable<outcome<std::unique_ptr<session>>> session::open(net::any_io_executor ex, endpoint where,
                                                                session_options options) {
    auto i = std::make_unique<impl>(ex, with_defaults(std::move(options)));
    i->http = !where.url.empty();
    auto channel = where.url.empty() ? detail::open_stdio(ex, where, i->opts) : detail::open_http(ex, where, i->opts);
    if (!channel) co_return channel.error();
    i->channel = std::move(*channel);
    if (auto agreed = co_await i->agree(); !agreed) {
        co_await i->channel->close();
        co_return agreed.error();
    }
    co_return std::unique_ptr<session>(new session(std::move(i)));
}

const std::string& session::protocol_version() const noexcept { return impl_->version; }
const boost::json::object& session::server_capabilities() const noexcept { return impl_->capabilities; }
const boost::json::object& session::server_info() const noexcept { return impl_->info; }
const std::string& session::instructions() const noexcept { return impl_->instructions; }

net::awaitable<outcome<boost::json::object>> session::request(std::string method, boost::json::object params,
                                                              request_options how) {
    co_return co_await impl_->send(std::move(method), std::move(params), how);
}

net::awaitable<outcome<std::vector<boost::json::object>>> session::list_all(std::string method, std::string key,
                                                                            std::size_t max_pages) {
    std::vector<boost::json::object> items;
    boost::json::object params;
    for (std::size_t page = 0; page < max_pages; ++page) {
        auto r = co_await request(method, params);
        if (!r) co_return r.error();
        const auto* list = r->if_contains(key);
        if (!list || !list->is_array()) co_return error("MESSAGE_REFUSED", method + " without a " + key + " array");
        for (const auto& item : list->get_array())
            if (item.is_object()) items.push_back(item.get_object());
        const auto* next = r->if_contains("nextCursor");
        if (!next || !next->is_string() || next->get_string().empty()) co_return items;
        params["cursor"] = *next;
    }
    co_return error("MESSAGE_REFUSED", method + " goes on past " + std::to_string(max_pages) + " pages");
}

net::awaitable<outcome<std::vector<boost::json::object>>> session::list_tools(std::size_t max_pages) {
    const std::string method = "tools/list", key = "tools";
    auto tools = co_await list_all(method, key, max_pages);
    if (!tools) co_return tools.error();
    for (const auto& t : *tools) impl_->learn(t);
    impl_->tools_listed = true;
    co_return tools;
}

net::awaitable<outcome<tool_result>> session::call_tool(std::string name, boost::json::object arguments,
                                                        boost::json::object meta, request_options how) {
    // Over HTTP a call carries its x-mcp-header parameters as headers: the tools are listed once
    // to learn them, and a tool whose annotations are invalid is not called.
    if (impl_->http && !impl_->tools_listed)
        if (auto listed = co_await list_tools(); !listed) co_return listed.error();
    if (auto bad = impl_->invalid_tools.find(name); bad != impl_->invalid_tools.end())
        co_return error(
            "TOOL_REFUSED",
            "the tool " + name + " is not called: its x-mcp-header annotations are invalid (" + bad->second + ")");
    auto r = co_await request("tools/call", call_params(name, std::move(arguments), std::move(meta)), std::move(how));
    if (!r) co_return r.error();
    tool_result out;
    if (const auto* type = r->if_contains("resultType"); type && *type == "task") {
        out.task_id = string_field(*r, "taskId");
        if (out.task_id.empty()) co_return error("MESSAGE_REFUSED", "a task without a taskId", "NOT_JSONRPC");
        r = co_await impl_->follow_task(out.task_id, poll_interval(*r, impl_->opts));
        if (!r) co_return r.error();
    }
    if (const auto* e = r->if_contains("isError"); e && e->is_bool()) out.is_error = e->get_bool();
    if (const auto* s = r->if_contains("structuredContent")) {
        out.structured = *s;
    } else if (const auto* content = r->if_contains("content");
               content && content->is_array() && !content->get_array().empty()) {
        const auto& first = content->get_array().front();
        const auto* text = first.is_object() ? first.get_object().if_contains("text") : nullptr;
        if (text && text->is_string())
            if (auto m = detail::read_json(text->get_string(), impl_->opts)) out.structured = std::move(*m);
    }
    out.raw = std::move(*r);
    co_return out;
}

net::awaitable<void> session::close() { co_await impl_->channel->close(); }

}  // namespace candor::client
