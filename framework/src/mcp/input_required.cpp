// SPDX-License-Identifier: BSL-1.0
// Multi round-trip requests (stateless revision): a tool's request to the client ends the run
// with an `input_required` result; the client retries with the answers and the sealed
// `requestState`, and the tool runs again from the start, getting each answer when it asks the
// same question again. Nothing is kept on the server between rounds: any replica with the same
// keys continues the request.
//
// The state is `{"v":1,"r":round,"b":binding,"c":caller,"x":expiry,"a":[answers],"q":[asked]}`,
// sealed by the server's `state_sealer`: `b` is a keyed digest of the request (method, tool,
// arguments), `c` of the caller, `a` the answers of every earlier round (`{"h":digest of the
// question, "r":result, "n":nonce, "e":expiry}`), `q` the questions of the last round
// (`{"k":key, "h":digest, "m":method, "n":nonce}`), whose answers the retry brings in
// `inputResponses`. A question's nonce is drawn when it is asked and names its answer for as long
// as the answer lives (`e`, the expiry of the state it was sent with): a replayed retry presents
// the same nonce, so an approval recorded under it is used once.

#include "connection_impl.hpp"

#include <candor/envelope/codes.hpp>
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/jsonrpc/encode.hpp>

#include <chrono>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::int64_t state_version = 1;

rpc::error_object state_error(std::string_view code, std::string message) {
    return rpc::error_object::make(rpc::error_code::invalid_params, std::move(message),
                                   boost::json::object{{"code", code}});
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

const boost::json::string* string_at(const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v ? v->if_string() : nullptr;
}

}  // namespace

namespace detail {

std::string request_binding(const state_sealer& sealer, std::string_view method, std::string_view target,
                            const boost::json::value& arguments) {
    std::string text = "candor.input.v1";
    text += '\0';
    text += method;
    text += '\0';
    text += target;
    text += '\0';
    if (!canonical_json(arguments, text)) text += "(too deep)";
    return sealer.digest(text);
}

std::string question_digest(const state_sealer& sealer, std::string_view method, const boost::json::object& params) {
    std::string text = "candor.question.v1";
    text += '\0';
    text += method;
    text += '\0';
    if (!canonical_json(boost::json::value(params), text)) text += "(too deep)";
    return sealer.digest(text);
}

std::string caller_binding(const state_sealer& sealer, const principal& caller) {
    std::string text = "candor.caller.v1";
    text += '\0';
    text += caller.id;
    return sealer.digest(text);
}

bool well_formed_answer(std::string_view method, const boost::json::object& r) {
    auto is_string = [&](std::string_view key) {
        const auto* v = r.if_contains(key);
        return v && v->is_string();
    };
    if (method == "elicitation/create") {
        const auto* action = r.if_contains("action");
        const auto* a = action ? action->if_string() : nullptr;
        if (!a || (*a != "accept" && *a != "decline" && *a != "cancel")) return false;
        const auto* content = r.if_contains("content");
        return !content || content->is_object();
    }
    if (method == "sampling/createMessage") {
        const auto* content = r.if_contains("content");
        return is_string("role") && is_string("model") && content && (content->is_object() || content->is_array());
    }
    if (method == "roots/list") {
        const auto* roots = r.if_contains("roots");
        if (!roots || !roots->is_array()) return false;
        for (const auto& root : roots->get_array()) {
            const auto* o = root.if_object();
            const auto* uri = o ? o->if_contains("uri") : nullptr;
            if (!uri || !uri->is_string()) return false;
        }
        return true;
    }
    return true;
}

std::string input_key(std::string_view method, std::size_t index) {
    std::string_view stem = "input";
    if (method == "elicitation/create") stem = "elicitation";
    else if (method == "sampling/createMessage") stem = "sampling";
    else if (method == "roots/list") stem = "roots";
    return std::string(stem) + "_" + std::to_string(index + 1);
}

}  // namespace detail

void detail::input_round::bind(const principal& who, std::string_view target) {
    if (!pending) return;
    binding = request_binding(*sealer, pending->method, target, *pending->arguments);
    caller = caller_binding(*sealer, who);
    pending.reset();
}

boost::system::result<std::optional<detail::input_round>, rpc::error_object> detail::call_runner::open_inputs(
    const rpc::request& req, std::string_view target, const boost::json::value& arguments) {
    const auto* state_value = req.params ? req.params->if_contains("requestState") : nullptr;
    const auto& sealer = c_.core->opts.request_state_sealer;
    if (!sealer) {
        if (state_value)
            return state_error("REQUEST_STATE_INVALID",
                               "this server does not continue multi round-trip requests (no request-state key is "
                               "configured); send the request without requestState");
        return std::optional<detail::input_round>();
    }
    detail::input_round round;
    round.sealer = sealer;
    const auto* responses_value = req.params->if_contains("inputResponses");
    const auto* responses = responses_value ? responses_value->if_object() : nullptr;
    if (responses_value && !responses)
        return state_error("INPUT_RESPONSES_INVALID", "inputResponses must be an object keyed like inputRequests");
    if (!state_value) {
        // No state to check: the bindings wait until the run asks the client something.
        round.pending = detail::input_round::unbound_request{std::string(req.method), &arguments};
        if (responses) round.unbound = json::detach(*responses_value).as_object();
        return std::optional<detail::input_round>(std::move(round));
    }
    round.binding = detail::request_binding(*sealer, req.method, target, arguments);
    round.caller = detail::caller_binding(*sealer, c_.opts.caller);

    const auto* sealed = state_value->if_string();
    if (!sealed) return state_error("REQUEST_STATE_INVALID", "requestState must be the string the server sent");
    // Never one the server sent (it seals none larger): refused before any work on it.
    if (sealed->size() > c_.core->opts.max_request_state_bytes)
        return state_error("REQUEST_STATE_INVALID", "requestState is larger than any this server issues (" +
                                                        std::to_string(c_.core->opts.max_request_state_bytes) +
                                                        " bytes); send the request without requestState");
    auto payload = sealer->open(*sealed);
    if (!payload)
        return state_error("REQUEST_STATE_INVALID",
                           "requestState was not issued by this server or was modified; send the request again "
                           "without requestState and inputResponses");
    // Ours (the MAC holds), so well formed; read it strictly anyway.
    json::limits lim;
    lim.max_bytes = c_.core->opts.max_request_state_bytes;
    lim.max_depth = json::depth_ceiling;
    auto doc = json::parse(*payload, lim);
    const auto* state = doc ? doc->root().if_object() : nullptr;
    const auto* version = state ? state->if_contains("v") : nullptr;
    if (!state || !version || !version->is_int64() || version->get_int64() != state_version)
        return state_error("REQUEST_STATE_INVALID", "requestState has a format this server does not read");
    const auto* expiry = state->if_contains("x");
    if (!expiry || !expiry->is_int64() || expiry->get_int64() < now_ms())
        return state_error("REQUEST_STATE_EXPIRED",
                           "requestState has expired; send the request again without requestState and "
                           "inputResponses");
    const auto* caller = string_at(*state, "c");
    if (!caller || *caller != round.caller)
        return state_error("REQUEST_STATE_FOREIGN", "requestState was issued to another caller");
    const auto* binding = string_at(*state, "b");
    if (!binding || *binding != round.binding)
        return state_error("REQUEST_STATE_MISMATCH",
                           "requestState belongs to another request: a retry must repeat the method, the name and "
                           "the arguments of the request it continues");
    if (const auto* r = state->if_contains("r"); r && r->is_int64()) round.round = r->get_int64() + 1;
    const auto now = now_ms();
    if (const auto* answers = state->if_contains("a"); answers && answers->is_array()) {
        for (const auto& a : answers->get_array()) {
            const auto* o = a.if_object();
            const auto* h = o ? string_at(*o, "h") : nullptr;
            const auto* result = o ? o->if_contains("r") : nullptr;
            if (!h || !result || !result->is_object()) continue;
            const auto* nonce = string_at(*o, "n");
            const auto* e = o->if_contains("e");
            const std::int64_t answer_expiry = e && e->is_int64() ? e->get_int64() : expiry->get_int64();
            // An answer lives as long as the state it was sent with, however many rounds carry
            // it on: past that its question is asked again.
            if (answer_expiry < now) continue;
            round.answered.push_back({std::string(*h), json::detach(*result).as_object(), false,
                                      nonce ? std::string(*nonce) : std::string(), answer_expiry});
        }
    }
    // This round's answers, to the questions the state says were asked. Anything else in
    // inputResponses is ignored; a missing answer is asked again; an answer of the wrong shape
    // for its question is refused.
    if (const auto* asked = state->if_contains("q"); asked && asked->is_array() && responses) {
        for (const auto& q : asked->get_array()) {
            const auto* o = q.if_object();
            const auto* key = o ? string_at(*o, "k") : nullptr;
            const auto* h = o ? string_at(*o, "h") : nullptr;
            const auto* method = o ? string_at(*o, "m") : nullptr;
            const auto* nonce = string_at(*o, "n");
            if (!key || !h || !method) continue;
            const auto* answer = responses->if_contains(*key);
            if (!answer) continue;
            if (!answer->is_object() || !detail::well_formed_answer(*method, answer->get_object()))
                return state_error(
                    "INPUT_RESPONSES_INVALID",
                    "inputResponses[\"" + std::string(*key) + "\"] is not a valid answer to " + std::string(*method));
            round.answered.push_back({std::string(*h), json::detach(*answer).as_object(), false,
                                      nonce ? std::string(*nonce) : std::string(), expiry->get_int64()});
        }
    }
    return std::optional<detail::input_round>(std::move(round));
}

void detail::call_runner::answer_input_required(const rpc::request_id& id, detail::call_state& state) {
    auto& r = *state.inputs;
    boost::json::array answers, asked;
    const std::int64_t expiry = now_ms() + c_.core->opts.request_state_ttl.count();
    for (const auto& a : r.answered) {
        // An answer sent before it was asked has no state of its own: it lives with this one.
        boost::json::object entry{{"h", a.digest}, {"r", a.result}, {"e", a.expiry_ms ? a.expiry_ms : expiry}};
        if (!a.nonce.empty()) entry["n"] = a.nonce;
        answers.push_back(std::move(entry));
    }
    boost::json::object requests;
    for (auto& q : r.asked) {
        // Each question asked gets a nonce of its own: its answer is told apart from a replay
        // of the same answer (an approval is used once).
        asked.push_back(
            boost::json::object{{"k", q.key}, {"h", q.digest}, {"m", q.method}, {"n", detail::random_id()}});
        requests[q.key] = boost::json::object{{"method", q.method}, {"params", std::move(q.params)}};
    }
    boost::json::object payload{{"v", state_version},   {"r", r.round}, {"b", r.binding},
                                {"c", r.caller},        {"x", expiry},  {"a", std::move(answers)},
                                {"q", std::move(asked)}};
    auto text = json::to_string(payload);
    std::string sealed;
    if (text) sealed = r.sealer->seal(*text);
    if ((!text || sealed.size() > c_.core->opts.max_request_state_bytes) && !state.origin.tool) {
        c_.send_error(id, rpc::error_object::make(
                              rpc::error_code::internal_error,
                              "this request needs more answers from the client than its request state can carry",
                              boost::json::object{{"code", envelope::error_codes::request_state_too_large},
                                                  {"limit", c_.core->opts.max_request_state_bytes}}));
        return;
    }
    if (!text || sealed.size() > c_.core->opts.max_request_state_bytes) {
        issue i;
        i.code = std::string(envelope::error_codes::request_state_too_large);
        i.message = "this call needs more answers from the client than its request state can carry (" +
                    std::to_string(c_.core->opts.max_request_state_bytes) + " bytes)";
        i.repairable = false;
        i.where = layer::external;
        i.details["limit"] = c_.core->opts.max_request_state_bytes;
        answer_call(id, state.origin, envelope::failure({std::move(i)}));
        return;
    }
    boost::json::object result{
        {"resultType", "input_required"}, {"inputRequests", std::move(requests)}, {"requestState", std::move(sealed)}};
    c_.dress(result, reply_style{true, nullptr});
    std::optional<call_record> record;
    if (!c_.observers.empty()) record = c_.record_call(id, state.origin, nullptr, "input_required");
    auto message = c_.result_message(id, boost::json::value(std::move(result)));
    if (!message) return;
    c_.deliver(std::move(*message), record ? &*record : nullptr, state.origin, message_route{id, true}, false);
}

boost::system::result<std::shared_ptr<detail::call_state>, rpc::error_object> detail::call_runner::open_request_context(
    const rpc::request& req, std::string_view target, const boost::json::value& arguments) {
    auto state = std::make_shared<detail::call_state>(c_.weak_from_this());
    state->route = message_route{req.id, false};
    state->tool_name = std::string(target);
    state->origin = c_.current;
    state->deadline = std::chrono::steady_clock::now() + c_.core->opts.default_deadline;
    state->caller = c_.opts.caller;
    state->session = c_.current.session ? c_.current.session : c_.session;
    state->executor = c_.strand;
    state->stateless = c_.current.stateless;
    state->log_threshold = c_.frame.log_threshold;
    if (c_.current.stateless) {
        auto round = open_inputs(req, target, arguments);
        if (!round) return round.error();
        state->inputs = std::move(*round);
        // A prompt's or a resource's arguments do not outlive this request: bound now.
        if (state->inputs) state->inputs->bind(state->caller, state->tool_name);
    }
    return state;
}

}  // namespace candor::mcp
