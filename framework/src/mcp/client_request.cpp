// SPDX-License-Identifier: BSL-1.0
// Requests from the server to the client on behalf of a tool call (elicitation, sampling):
// the outbound id, the pending-reply table of the connection (`client_requests`), and routing
// the client's reply (a separate inbound message; over HTTP a separate POST) back to the
// awaiting coroutine.
//
// Everything here runs on the connection's strand: the tool's coroutine does (it was spawned
// there), and so does the connection's dispatch, which delivers replies. No locks.

#include "connection_impl.hpp"

#include <candor/json/document.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

// The capability a client must declare before the server may send it `method`; empty for
// methods that need none (ping).
std::string_view capability_for(std::string_view method) noexcept {
    if (method == "elicitation/create") return "elicitation";
    if (method == "sampling/createMessage") return "sampling";
    if (method == "roots/list") return "roots";
    return {};
}

}  // namespace

bool call_context::can_elicit() const noexcept { return state_->session->client_capabilities.contains("elicitation"); }
bool call_context::can_sample() const noexcept { return state_->session->client_capabilities.contains("sampling"); }

namespace detail {

boost::system::result<std::pair<rpc::request_id, std::shared_ptr<pending_reply>>, client_request_error>
call_state::send_request(const std::string& method, const boost::json::object& params,
                         std::chrono::milliseconds timeout, std::string key) {
    const auto needed = capability_for(method);
    if (!needed.empty() && !session->client_capabilities.contains(needed)) return client_request_error::not_supported;
    if (task) return ask_in_task(*this, method, params, timeout, std::move(key));
    auto c = conn.lock();
    if (!c || c->closed || cancelled || answered) return client_request_error::cancelled;
    return c->to_client.send(tool_name, method, params, timeout, route);
}

void call_state::abandon_request(const rpc::request_id& id, bool timed_out) {
    if (task) return abandon_in_task(*task, id);
    auto c = conn.lock();
    if (!c) return;
    c->to_client.abandon(id, timed_out, route);
}

boost::system::result<std::pair<rpc::request_id, std::shared_ptr<pending_reply>>, client_request_error>
client_requests::send(const std::string& tool, const std::string& method, const boost::json::object& params,
                      std::chrono::milliseconds timeout, const message_route& route) {
    // Per connection, never reused; the client's own request ids are a separate space.
    const rpc::request_id id(next_id_++);
    auto text = rpc::encode_request(id, method, params);
    if (!text) {
        // The tool put something unserializable (NaN) into the params: its bug.
        c_.log(log_level::error, "tool " + tool + ": request " + method + " could not be serialized");
        return client_request_error::malformed_reply;
    }
    auto p = std::make_shared<pending_reply>(c_.strand);
    p->timer.expires_after(timeout);
    pending_.emplace(id, p);
    // Routed as the call's own messages: over HTTP on the call's stream, over stdio on stdout.
    c_.send_text(std::move(*text), route);
    return std::make_pair(id, std::move(p));
}

void client_requests::abandon(const rpc::request_id& id, bool timed_out, const message_route& route) {
    pending_.erase(id);
    // Tell the client to stop working on it; a late reply is dropped.
    boost::json::object params{{"requestId", id.to_json()},
                               {"reason", timed_out ? "timed out" : "the tool call was cancelled"}};
    c_.send_notification("notifications/cancelled", params, route);
}

void client_requests::on_response(rpc::response& r) {
    if (!r.id) {
        // The client could not read one of our messages; nothing to route it to.
        c_.log(log_level::warning, "the client answered an unreadable message with an error" +
                                       (r.error ? ": " + r.error->message : std::string()));
        return;
    }
    auto it = pending_.find(*r.id);
    if (it == pending_.end()) {
        // Late (after a timeout or cancellation) or never asked: dropped, never answered.
        c_.log(log_level::debug, "dropped a response to an unknown or abandoned request");
        return;
    }
    auto p = it->second;
    pending_.erase(it);
    if (r.error) {
        c_.log(log_level::info, "the client refused a request (JSON-RPC error " + std::to_string(r.error->code) + ")");
        p->outcome = client_request_error::rejected;
    } else if (r.result && r.result->is_object()) {
        // Out of the inbound document's arena: the result outlives the message.
        p->outcome = json::detach(*r.result).as_object();
    } else {
        p->outcome = client_request_error::malformed_reply;
    }
    p->timer.cancel();
}

void client_requests::cancel_all() {
    // Requests to the client no reply can reach any more.
    for (auto& [id, p] : pending_) {
        if (!p->outcome) p->outcome = client_request_error::cancelled;
        p->timer.cancel();
    }
    pending_.clear();
}

}  // namespace detail

namespace detail {

std::optional<boost::system::result<boost::json::object, client_request_error>> call_state::answer_from_inputs(
    std::string& method, boost::json::object& params, std::string key) {
    const auto needed = capability_for(method);
    if (!needed.empty() && !session->client_capabilities.contains(needed)) return client_request_error::not_supported;
    if (!inputs) {
        if (auto c = conn.lock(); c && !c->core->warned_no_sealer.exchange(true))
            c->log(log_level::warning,
                   "tool " + tool_name +
                       " asked the client something on the stateless protocol revision, but no request-state "
                       "sealer is configured (server_options::request_state_sealer): such requests are refused "
                       "with not_supported");
        return client_request_error::not_supported;
    }
    auto digest = question_digest(*inputs->sealer, method, params);
    for (auto& a : inputs->answered) {
        if (a.used || a.digest != digest) continue;
        a.used = true;
        last_answer = {a.nonce, std::chrono::system_clock::time_point(std::chrono::milliseconds(a.expiry_ms))};
        return boost::system::result<boost::json::object, client_request_error>(a.result);
    }
    if (key.empty()) key = input_key(method, inputs->asked.size());
    if (auto it = inputs->unbound.find(key); it != inputs->unbound.end()) {
        // Answered without a state to bind it: taken for the question asked under its key, if
        // it is an answer to this kind of question at all.
        boost::json::object answer;
        if (const auto* o = it->value().if_object(); o && well_formed_answer(method, *o)) answer = *o;
        inputs->unbound.erase(it);
        if (!answer.empty()) {
            inputs->answered.push_back({digest, answer, true});
            last_answer = {};  // no question was asked: nothing tells this answer from a replay
            return boost::system::result<boost::json::object, client_request_error>(std::move(answer));
        }
    }
    inputs->bind(caller, tool_name);  // the state this question goes out with names this request
    inputs->asked.push_back({std::move(key), std::move(method), std::move(params), std::move(digest)});
    return std::nullopt;
}

}  // namespace detail

boost::asio::awaitable<boost::system::result<boost::json::object, client_request_error>> call_context::request_client(
    std::string method, boost::json::object params, std::chrono::milliseconds timeout) {
    auto state = state_;
    if (state->stateless && !state->task) {
        // Answered in an earlier round, or asked now: the run ends here and the call is
        // answered input_required (the retry runs the tool again, with the answer).
        if (auto known = state->answer_from_inputs(method, params)) co_return *known;
        throw detail::input_required_signal{};
    }
    auto sent = state->send_request(method, params, timeout);
    if (!sent) co_return sent.error();
    auto id = sent->first;
    auto p = sent->second;
    // Woken by the reply (which cancels the timer), the timeout, or the call's cancellation
    // (which reaches this wait through the coroutine's cancellation slot; the connection
    // closing cancels the call too).
    auto [ec] = co_await p->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (p->outcome) {
        // A live answer (or a task's tasks/update) arrives once: nothing can present it again.
        state->last_answer = {detail::random_id(), std::chrono::system_clock::now()};
        co_return *p->outcome;
    }
    const bool timed_out = !ec;
    state->abandon_request(id, timed_out);
    if (timed_out) co_return client_request_error::timeout;
    co_return client_request_error::cancelled;
}

boost::asio::awaitable<std::vector<boost::system::result<boost::json::object, client_request_error>>>
call_context::request_client_all(std::vector<client_request> requests, std::chrono::milliseconds timeout) {
    using outcome = boost::system::result<boost::json::object, client_request_error>;
    auto state = state_;
    std::vector<outcome> out(requests.size(), outcome(client_request_error::cancelled));
    if (state->stateless && !state->task) {
        bool asked = false;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            if (auto known = state->answer_from_inputs(requests[i].method, requests[i].params, requests[i].key))
                out[i] = *known;
            else asked = true;
        }
        // Every unanswered one goes out in the same input_required result.
        if (asked) throw detail::input_required_signal{};
        co_return out;
    }
    // All sent at once, then awaited one by one: each waits on its own timer, so they run
    // concurrently and the total wait is the longest, not the sum.
    std::vector<std::pair<jsonrpc::request_id, std::shared_ptr<detail::pending_reply>>> pending(
        requests.size(),
        std::make_pair(jsonrpc::request_id(std::int64_t{0}), std::shared_ptr<detail::pending_reply>()));
    for (std::size_t i = 0; i < requests.size(); ++i) {
        auto sent = state->send_request(requests[i].method, requests[i].params, timeout, requests[i].key);
        if (!sent) out[i] = sent.error();
        else pending[i] = std::move(*sent);
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
        auto& [id, p] = pending[i];
        if (!p) continue;
        auto [ec] = co_await p->timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        if (p->outcome) {
            out[i] = *p->outcome;
            continue;
        }
        const bool timed_out = !ec;
        state->abandon_request(id, timed_out);
        out[i] = timed_out ? client_request_error::timeout : client_request_error::cancelled;
        if (!timed_out) {
            // Cancelled: the rest are abandoned too.
            for (std::size_t j = i + 1; j < requests.size(); ++j)
                if (pending[j].second && !pending[j].second->outcome) state->abandon_request(pending[j].first, false);
            break;
        }
    }
    co_return out;
}

boost::asio::awaitable<boost::system::result<elicitation_result, client_request_error>> call_context::elicit(
    std::string message, boost::json::object requested_schema, std::chrono::milliseconds timeout) {
    if (!can_elicit()) co_return client_request_error::not_supported;
    boost::json::object params;
    params["message"] = std::move(message);
    params["requestedSchema"] = std::move(requested_schema);
    std::string method("elicitation/create");
    auto reply = co_await request_client(std::move(method), std::move(params), timeout);
    if (!reply) co_return reply.error();
    const auto* action = reply->if_contains("action");
    if (!action || !action->is_string()) co_return client_request_error::malformed_reply;
    // No string literals as temporaries in this coroutine: GCC 12 refuses them in some
    // positions ("array used as initializer").
    const std::string_view name = action->get_string();
    elicitation_result r;
    r.answer_id = state_->last_answer.id;
    r.replayable_until = state_->last_answer.replayable_until;
    if (name == std::string_view("accept")) {
        r.action = elicitation_action::accept;
        if (const auto* content = reply->if_contains("content")) {
            if (!content->is_object()) co_return client_request_error::malformed_reply;
            r.content = content->get_object();
        }
    } else if (name == std::string_view("decline")) {
        r.action = elicitation_action::decline;
    } else if (name == std::string_view("cancel")) {
        r.action = elicitation_action::cancel;
    } else {
        co_return client_request_error::malformed_reply;
    }
    co_return r;
}

boost::asio::awaitable<boost::system::result<sampling_result, client_request_error>> call_context::sample(
    boost::json::array messages, std::int64_t max_tokens, boost::json::object options,
    std::chrono::milliseconds timeout) {
    if (!can_sample()) co_return client_request_error::not_supported;
    boost::json::object params(std::move(options));
    params["messages"] = std::move(messages);
    params["maxTokens"] = max_tokens;
    std::string method("sampling/createMessage");
    auto reply = co_await request_client(std::move(method), std::move(params), timeout);
    if (!reply) co_return reply.error();
    const std::string_view role_key("role"), content_key("content"), model_key("model"), stop_key("stopReason");
    const auto* role = reply->if_contains(role_key);
    const auto* content = reply->if_contains(content_key);
    const auto* model = reply->if_contains(model_key);
    if (!role || !role->is_string() || !content || !(content->is_object() || content->is_array()) || !model ||
        !model->is_string())
        co_return client_request_error::malformed_reply;
    sampling_result r;
    r.role = role->get_string();
    r.content = *content;
    r.model = model->get_string();
    if (const auto* stop = reply->if_contains(stop_key); stop && stop->is_string()) r.stop_reason = stop->get_string();
    co_return r;
}

std::string_view to_string(client_request_error e) noexcept {
    switch (e) {
        case client_request_error::not_supported: return "not_supported";
        case client_request_error::timeout: return "timeout";
        case client_request_error::cancelled: return "cancelled";
        case client_request_error::rejected: return "rejected";
        case client_request_error::malformed_reply: return "malformed_reply";
    }
    return "unknown";
}

}  // namespace candor::mcp
