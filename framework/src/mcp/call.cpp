// SPDX-License-Identifier: BSL-1.0
// tools/call: argument intake and budget, the call's coroutine with its deadline and
// cancellation, and turning the outcome into a CallToolResult.

#include "connection_impl.hpp"

#include <candor/contract/contract.hpp>
#include <candor/envelope/envelope.hpp>
#include <candor/json/intake.hpp>
#include <candor/json/write.hpp>
#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <exception>
#include <optional>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::string_view arguments_prefix = "/arguments";

// `{"type":"text","text":…}`
boost::json::object text_block(std::string text) {
    return boost::json::object{{"type", "text"}, {"text", std::move(text)}};
}

std::string& envelope_text_buffer() {
    thread_local std::string buffer;
    return buffer;
}

// The codes a log line reports with the answer they go with.
std::span<const std::string_view> internal_code() {
    static constexpr std::string_view code = envelope::error_codes::internal_error;
    return {&code, 1};
}
std::span<const std::string_view> deadline_code() {
    static constexpr std::string_view code = envelope::error_codes::deadline_exceeded;
    return {&code, 1};
}

const boost::json::value& empty_arguments() {
    static const boost::json::value empty = boost::json::object{};
    return empty;
}

}  // namespace

void detail::call_runner::answer_error_envelope(const rpc::request_id& id, const call_origin& origin, issue i) {
    answer_call(id, origin, envelope::failure({std::move(i)}));
}

boost::system::result<std::pair<std::size_t, bool>, rpc::error_object> detail::call_runner::result_budget_requested(
    const rpc::request& req, const tool_info& info) const {
    std::size_t limit = c_.core->opts.max_result_bytes;
    if (info.max_result_bytes && (limit == 0 || *info.max_result_bytes < limit)) limit = *info.max_result_bytes;
    bool raised = false;
    const auto* meta = req.params ? req.params->if_contains("_meta") : nullptr;
    const auto* fields = meta ? meta->if_object() : nullptr;
    if (!fields) return std::make_pair(limit, raised);
    for (const std::string_view key :
         {std::string_view("io.candor/maxResultBytes"), std::string_view("anthropic/maxResultSizeChars")}) {
        const auto* v = fields->if_contains(key);
        if (!v) continue;
        std::uint64_t asked = 0;
        if (const auto* i = v->if_int64(); i && *i > 0) asked = static_cast<std::uint64_t>(*i);
        else if (const auto* u = v->if_uint64(); u && *u > 0) asked = *u;
        else
            return rpc::error_object::make(
                rpc::error_code::invalid_params,
                "_meta[\"" + std::string(key) + "\"] must be a positive integer: the most bytes the result may take",
                boost::json::object{{"code", envelope::error_codes::invalid_result_budget}, {"key", key}});
        if (asked < detail::min_result_bytes) {
            asked = detail::min_result_bytes;
            raised = true;
        }
        if (limit == 0 || asked < limit) limit = static_cast<std::size_t>(asked);
    }
    return std::make_pair(limit, raised);
}

void detail::call_runner::on_tools_call(rpc::inbound& in, const rpc::request& req) {
    // Violations outside `arguments` (a duplicated `name`, a bad number in `_meta`) make the
    // call itself ambiguous: protocol error. Those inside are the tool's argument errors.
    issue_list argument_issues;
    for (auto& v : in.param_violations) {
        const bool inside = v.path.size() > arguments_prefix.size() &&
                            v.path.compare(0, arguments_prefix.size(), arguments_prefix) == 0 &&
                            v.path[arguments_prefix.size()] == '/';
        if (!inside) {
            v.path.insert(0, "/params");
            c_.send_error(req.id, rpc::error_object::make(rpc::error_code::parse_error, v.message,
                                                          boost::json::value(rpc::to_json(v))));
            return;
        }
        v.path.erase(0, arguments_prefix.size());
        argument_issues.push_back(contract::intake_issue(v));
    }

    const boost::json::value* name = req.params ? req.params->if_contains("name") : nullptr;
    if (!name || !name->is_string()) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "tools/call needs params.name (a string)"));
        return;
    }
    auto tool = c_.find_tool(name->get_string());
    if (!tool) {
        c_.send_error(req.id, rpc::error_object::make(rpc::error_code::invalid_params,
                                                      "unknown tool: " + std::string(name->get_string())));
        return;
    }
    const boost::json::value* arguments = req.params->if_contains("arguments");
    if (arguments && !arguments->is_object()) {
        c_.send_error(req.id,
                      rpc::error_object::make(rpc::error_code::invalid_params, "params.arguments must be an object"));
        return;
    }
    if (!arguments) arguments = &empty_arguments();
    if (calls_.count(req.id) || counting_.count(req.id)) {
        c_.send_error(
            req.id, rpc::error_object::make(rpc::error_code::invalid_request, "a call with this id is still running"));
        return;
    }
    const auto& tool_name = tool->info().name;
    auto result_limit = result_budget_requested(req, tool->info());
    if (!result_limit) {
        c_.send_error(req.id, std::move(result_limit.error()));
        return;
    }
    c_.current.max_result_bytes = result_limit->first;
    c_.current.result_budget_raised = result_limit->second;
    call_origin origin = c_.current;
    origin.tool = tool;
    // Authorization comes before anything looks at the arguments (the HTTP transport with OAuth
    // refuses such a call with 403 before it gets here; this holds for every other transport).
    if (auto missing = missing_scopes(tool->info(), c_.opts.caller); !missing.empty()) {
        answer_error_envelope(req.id, origin, detail::insufficient_scope(tool->info(), std::move(missing)));
        return;
    }
    if (!argument_issues.empty()) {
        // Codes only: a path may end in a key the caller chose (DUPLICATE_KEY).
        std::vector<std::string_view> codes;
        codes.reserve(argument_issues.size());
        for (const auto& i : argument_issues) codes.push_back(i.code);
        c_.log_call(log_level::info, "arguments refused at intake", tool_name, req.id, codes);
        answer_call(req.id, origin, envelope::failure(std::move(argument_issues)));
        return;
    }
    // The arguments are a subtree of the message: when the whole message is within the tool's
    // depth and node budget (the intake counted both), so are they, and nothing is walked again.
    const auto& budget = tool->info().budget;
    const bool message_fits = in.doc && in.doc->depth() <= budget.max_depth && in.doc->nodes() <= budget.max_nodes;
    if (auto over = message_fits ? std::nullopt : contract::over_budget(*arguments, budget)) {
        const std::string_view code = over->code;
        c_.log_call(log_level::info, "arguments over the tool's budget", tool_name, req.id, {&code, 1});
        answer_error_envelope(req.id, origin, std::move(*over));
        return;
    }
    std::optional<detail::input_round> inputs;
    if (c_.current.stateless) {
        // A retry of a multi round-trip request: the state it echoes must be ours, for this
        // request and this caller, and fresh.
        auto round = open_inputs(req, tool_name, *arguments);
        if (!round) {
            c_.send_error(req.id, round.error());
            return;
        }
        inputs = std::move(*round);
    }
    if (calls_.size() + counting_.size() >= c_.core->opts.max_calls_in_flight) {
        issue i;
        i.code = std::string(envelope::error_codes::too_many_calls_in_flight);
        i.message = "this connection already has " + std::to_string(calls_.size() + counting_.size()) +
                    " tool calls running; wait for one to finish and call again";
        i.repairable = false;
        i.where = layer::external;
        i.details["limit"] = c_.core->opts.max_calls_in_flight;
        answer_error_envelope(req.id, origin, std::move(i));
        return;
    }
    std::string task_id;
    if (c_.tasks.runs_as_task(*tool)) {
        // The task is counted against the limits before the tool runs, so that a refusal never
        // comes after the tool did something.
        auto reserved = c_.tasks.reserve_task(*tool);
        if (!reserved) {
            answer_error_envelope(req.id, origin, reserved.error());
            return;
        }
        task_id = std::move(*reserved);
    }
    const auto log_threshold = c_.frame.log_threshold;
    if (!task_id.empty() && c_.core->opts.tasks.shared) {
        // The limits hold across replicas too: the shared table is counted before the tool runs.
        count_then_start(std::move(tool), in.doc, req, arguments, std::move(inputs), std::move(task_id),
                         std::move(origin), log_threshold);
        return;
    }
    start_task_or_call(std::move(tool), in.doc, *arguments, req, std::move(inputs), std::move(task_id),
                       std::move(origin), log_threshold);
}

void detail::call_runner::start_task_or_call(std::shared_ptr<tool_handler> tool,
                                             std::shared_ptr<const json::document> doc,
                                             const boost::json::value& arguments, const rpc::request& req,
                                             std::optional<detail::input_round> inputs, std::string task_id,
                                             call_origin origin, std::optional<log_level> log_threshold) {
    if (!task_id.empty()) {
        // Queued before the tool starts, it runs right after the tool's first slice, which
        // co_spawn runs at once (this is the connection's strand), and before anything that
        // slice waits for can come back, even from another thread: a tool that finished or asked
        // before it first waited is answered in the request, any other becomes a task.
        boost::asio::post(c_.strand, [weak = c_.weak_from_this(), server = c_.core, id = req.id, task_id]() {
            if (auto self = weak.lock()) self->tasks.promote_to_task(id, task_id);
            else server->tasks->erase(task_id);
        });
    }
    start_call(std::move(tool), std::move(doc), arguments, req, std::move(inputs), std::move(task_id),
               std::move(origin), log_threshold);
}

void detail::call_runner::count_then_start(std::shared_ptr<tool_handler> tool,
                                           std::shared_ptr<const json::document> doc, const rpc::request& req,
                                           const boost::json::value* arguments,
                                           std::optional<detail::input_round> inputs, std::string task_id,
                                           call_origin origin, std::optional<log_level> log_threshold) {
    // Counted as a call in flight from now on, under its id (`calls_` holds it once it starts).
    counting_.insert(req.id);
    boost::asio::co_spawn(
        c_.strand,
        count_and_start(c_.weak_from_this(), c_.core, c_.opts.caller.id, std::move(tool), std::move(doc), req,
                        arguments, std::move(inputs), std::move(task_id), std::move(origin), log_threshold),
        boost::asio::detached);
}

boost::asio::awaitable<void> detail::call_runner::count_and_start(
    std::weak_ptr<connection_impl> weak, std::shared_ptr<server_core> server, std::string owner,
    std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc, rpc::request req,
    const boost::json::value* arguments, std::optional<detail::input_round> inputs, std::string task_id,
    call_origin origin, std::optional<log_level> log_threshold) {
    const auto table = server->opts.tasks.shared;
    auto live = co_await table->count_live(std::move(owner), std::chrono::system_clock::now());
    auto self = weak.lock();
    if (self) self->calls.counting_.erase(req.id);
    if (!self || self->closed) {
        server->tasks->erase(task_id);  // the connection is gone: so is the call
        co_return;
    }
    auto& runner = self->calls;
    const auto& o = server->opts.tasks;
    if (!live) {
        // The table cannot be read: this replica's own count holds (it was taken already).
        self->log(log_level::warning, "tasks alive on other replicas cannot be counted (" + live.error().message +
                                          "); this task is counted against this replica's limits only");
    } else if (live->total >= o.max_tasks || live->of_owner >= o.max_tasks_per_principal) {
        server->tasks->erase(task_id);
        runner.answer_error_envelope(req.id, origin, detail::too_many_tasks(o, live->total >= o.max_tasks, true));
        co_return;
    }
    runner.start_task_or_call(std::move(tool), std::move(doc), *arguments, req, std::move(inputs), std::move(task_id),
                              std::move(origin), log_threshold);
}

void detail::call_runner::start_call(std::shared_ptr<tool_handler> tool, std::shared_ptr<const json::document> doc,
                                     const boost::json::value& arguments, const rpc::request& req,
                                     std::optional<detail::input_round> inputs, std::string task_id, call_origin origin,
                                     std::optional<log_level> log_threshold) {
    auto state = std::make_shared<detail::call_state>(c_.weak_from_this());
    state->task_id = std::move(task_id);  // before the tool's first slice, which may read it
    const auto& info = tool->info();
    state->tool_name = info.name;
    state->origin = std::move(origin);
    state->origin.tool = tool;
    state->observers = c_.observers;
    for (const auto& o : c_.observers) o->on_call_started();
    state->route = message_route{req.id, false};
    state->deadline = std::chrono::steady_clock::now() + info.deadline.value_or(c_.core->opts.default_deadline);
    if (const auto* meta = req.params->if_contains("_meta"); meta && meta->is_object()) {
        if (const auto* token = meta->get_object().if_contains("progressToken");
            token && (token->is_string() || token->is_int64() || token->is_uint64()))
            state->progress_token = boost::json::value(*token, boost::json::storage_ptr());
    }
    state->caller = c_.opts.caller;
    state->session = state->origin.session ? state->origin.session : c_.session;
    state->stateless = state->origin.stateless;
    state->log_threshold = log_threshold;
    state->inputs = std::move(inputs);
    state->executor = c_.strand;
    state->doc = doc;
    calls_.emplace(req.id, state);

    watch_deadline(*state, req.id);
    auto slot = state->signal.slot();
    boost::asio::co_spawn(c_.strand,
                          run_call(c_.weak_from_this(), req.id, std::move(tool), std::move(doc), &arguments, state),
                          // The handler holds the call's state: the cancellation signal the
                          // call is bound to outlives co_spawn's use of its slot.
                          boost::asio::bind_cancellation_slot(slot, [keep = state](std::exception_ptr ep) {
                              // finish_call threw: a bug in the framework, not in the tool.
                              if (ep) std::rethrow_exception(ep);
                          }));
}

boost::asio::awaitable<void> detail::call_runner::run_call(std::weak_ptr<detail::connection_impl> weak,
                                                           rpc::request_id id, std::shared_ptr<tool_handler> tool,
                                                           std::shared_ptr<const json::document> doc,
                                                           const boost::json::value* arguments,
                                                           std::shared_ptr<detail::call_state> state) {
    std::exception_ptr ep;
    // Constructed from the outcome, not assigned: JSON in it keeps the storage it was built in
    // (a JSON container assigned from another storage copies into its own).
    std::optional<tool_outcome> out;
    try {
        call_context ctx(state);
        out.emplace(co_await tool->invoke(*arguments, *doc, ctx));
    } catch (...) {
        ep = std::current_exception();
    }
    if (state->task) {
        // It ran as a task: the request was answered long ago; the task keeps the outcome.
        detail::end_task(*state, ep, out ? std::move(*out) : tool_outcome{});
        co_return;
    }
    // Answered here, on the connection's strand, as soon as the tool is done: a tool that did
    // not wait is answered before the next request is handled (co_spawn's own completion is
    // posted behind every request already queued, and would keep each call's state alive
    // until then).
    if (auto self = weak.lock()) self->calls.finish_call(id, ep, out ? std::move(*out) : tool_outcome{});
}

// One deadline queue and one timer per connection: a timer per call cost a queue insertion, a
// cancellation and an aborted handler on every call.
void detail::call_runner::watch_deadline(detail::call_state& call, const rpc::request_id& id) {
    call.deadline_entry = deadlines_.emplace(call.deadline, id);
    arm_deadline_timer();
}

void detail::call_runner::forget_deadline(detail::call_state& call) {
    if (!call.deadline_entry) return;
    deadlines_.erase(*call.deadline_entry);
    call.deadline_entry.reset();
    // While calls remain, the timer stays armed: when it fires it finds nothing due and waits
    // for the next one. With none left it stops, so that it keeps no io_context running (a
    // server shutting down would wait for it); but not at once: calls that complete without
    // waiting leave none running between one request and the next, and re-arming the timer
    // for each would cost two system calls per call. The check runs after the work already
    // queued (the rest of a burst of requests).
    if (deadlines_.empty() && deadline_armed_ && !disarm_posted_) {
        disarm_posted_ = true;
        boost::asio::post(c_.strand, [weak = c_.weak_from_this()] {
            if (auto self = weak.lock()) self->calls.disarm_if_idle();
        });
    }
}

void detail::call_runner::disarm_if_idle() {
    disarm_posted_ = false;
    if (deadlines_.empty() && deadline_armed_) {
        deadline_armed_.reset();
        deadline_timer_.cancel();
    }
}

void detail::call_runner::arm_deadline_timer() {
    if (c_.closed || deadlines_.empty()) return;
    const auto earliest = deadlines_.begin()->first;
    if (deadline_armed_ && *deadline_armed_ <= earliest) return;
    deadline_armed_ = earliest;
    deadline_timer_.expires_at(earliest);  // a wait for a later time ends as operation_aborted
    deadline_timer_.async_wait([weak = c_.weak_from_this()](boost::system::error_code ec) {
        if (ec) return;
        if (auto self = weak.lock()) self->calls.on_deadline_timer();
    });
}

void detail::call_runner::on_deadline_timer() {
    deadline_armed_.reset();
    const auto now = std::chrono::steady_clock::now();
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
        const auto id = deadlines_.begin()->second;
        if (auto it = calls_.find(id); it != calls_.end()) forget_deadline(*it->second);
        else deadlines_.erase(deadlines_.begin());
        on_deadline(id);
    }
    arm_deadline_timer();
}

void detail::call_runner::on_deadline(const rpc::request_id& id) {
    auto it = calls_.find(id);
    if (it == calls_.end() || it->second->answered) return;
    // Answered now; the call keeps its place in `calls_` until its handler has returned
    // (`finish_call`), so that `max_calls_in_flight` bounds the work really running.
    auto state = it->second;
    state->answered = true;
    state->cancelled = true;
    c_.log_call(log_level::warning, "the call ran past its deadline and was stopped", state->tool_name, id,
                deadline_code());
    state->signal.emit(boost::asio::cancellation_type::terminal);
    answer_call(id, state->origin, envelope::failure({detail::deadline_exceeded_issue()}), true);
}

void detail::call_runner::cancel(const rpc::request_id& id) {
    auto it = calls_.find(id);
    // Unknown or finished: the spec says to ignore it (the response may be on its way).
    if (it == calls_.end() || it->second->answered) return;
    // A cancelled call is never answered. It keeps its place in `calls_` until its handler has
    // returned (`finish_call`), so that `max_calls_in_flight` bounds the work really running.
    auto& call = *it->second;
    call.answered = true;
    call.cancelled = true;
    forget_deadline(call);
    c_.log_call(log_level::info, "the call was cancelled by the client", call.tool_name, id);
    call.signal.emit(boost::asio::cancellation_type::terminal);
}

void detail::call_runner::cancel_all() {
    for (auto& [id, call] : calls_) {
        call->answered = true;
        call->cancelled = true;
        forget_deadline(*call);
        call->signal.emit(boost::asio::cancellation_type::terminal);
    }
    deadline_timer_.cancel();
}

std::shared_ptr<detail::call_state> detail::call_runner::hand_over(const rpc::request_id& id,
                                                                   const std::string& task_id) {
    auto it = calls_.find(id);
    if (it == calls_.end() || it->second->answered || it->second->task_id != task_id) return nullptr;
    auto state = it->second;
    calls_.erase(it);
    forget_deadline(*state);
    return state;
}

issue detail::deadline_exceeded_issue() {
    issue i;
    i.code = std::string(envelope::error_codes::deadline_exceeded);
    i.message =
        "the tool did not finish within its deadline and was stopped; narrow the request "
        "or try again later";
    i.repairable = false;
    i.where = layer::external;
    return i;
}

void detail::call_runner::finish_call(const rpc::request_id& id, std::exception_ptr ep, tool_outcome out) {
    auto it = calls_.find(id);
    if (it == calls_.end()) return;
    // `state` keeps the arguments' document alive until `out` (which may hold values copied
    // from the arguments, allocated in the document's arena) is gone.
    auto state = it->second;
    calls_.erase(it);
    forget_deadline(*state);
    if (state->answered) {
        out = tool_outcome{};
        return;
    }
    state->answered = true;
    if (state->inputs && !state->inputs->asked.empty()) {
        // The tool asked the client something not answered yet (its request to the client
        // ended the run, or it caught that and returned anyway): the answer is the question.
        answer_input_required(id, *state);
    } else if (ep) {
        // A bug in the tool. The operator gets the details; the client gets none.
        c_.log_call(log_level::error, "the tool threw: " + detail::what_of(ep), state->tool_name, id, internal_code());
        answer_call(id, state->origin, tool_outcome{}, true);  // an envelope without verdict
    } else {
        answer_call(id, state->origin, std::move(out), true);
    }
    out = tool_outcome{};
}

void detail::call_runner::answer_call(const rpc::request_id& id, const call_origin& origin, tool_outcome out,
                                      bool handler_ran) {
    const std::string& tool_name = origin.tool->info().name;
    // The record of an irreversible action reaches the observers' storage before its answer.
    bool durable = handler_ran && origin.tool->info().action == action_class::irreversible_write;
    std::optional<call_record> record;
    boost::json::object result;
    if (auto* env = std::get_if<envelope::envelope>(&out)) {
        // The envelope's text is written into a buffer this thread keeps from call to call (taken
        // out while in use, so a nested call gets its own): no string grown from empty per call.
        // It is written straight from the envelope (typed pages spliced in as they are): no
        // sealed object is built only to be serialized.
        std::string text = std::move(envelope_text_buffer());
        text.clear();
        envelope::envelope fallback;
        const envelope::envelope* answer = env;
        if (auto valid = envelope::check(*env); !valid) {
            // Default-constructed outcomes (a thrown exception) land here too, already logged.
            if (env->status)
                c_.log_call(
                    log_level::error,
                    "the tool returned an envelope that breaks " + std::string(envelope::to_string(valid.error())),
                    tool_name, id, internal_code());
            answer = &(fallback = envelope::internal_error());
        } else if (auto done = envelope::write_sealed(*env, tool_name, text, json::depth_ceiling); !done) {
            c_.log_call(
                log_level::error,
                "the tool returned data that cannot be serialized (" + std::string(json::to_string(done.error())) + ")",
                tool_name, id, internal_code());
            answer = &(fallback = envelope::internal_error());
        }
        if (answer == &fallback) (void)envelope::write_sealed(fallback, tool_name, text);
        // The byte budget: what goes out fits it, whatever the tool returned. The response is
        // built once and measured as it is; only one over the budget is built again.
        envelope::envelope fitted;
        auto message = call_result(id, origin, text, *answer->status == envelope::outcome::error);
        if (origin.max_result_bytes != 0 && answer != &fallback &&
            (origin.result_budget_raised || !message || message->size() > origin.max_result_bytes)) {
            auto rewrite = [&] {
                text.clear();
                (void)envelope::write_sealed(fitted, tool_name, text, json::depth_ceiling);
                answer = &fitted;
            };
            if (origin.result_budget_raised) {
                fitted = *answer;
                fitted.add_warning({std::string(envelope::warning_codes::result_budget_raised),
                                    "the request asked for a smaller result than the least this server sends; its "
                                    "budget was raised to " +
                                        std::to_string(origin.max_result_bytes) + " bytes",
                                    {{"limit", origin.max_result_bytes}}});
                rewrite();
            }
            const auto budget = result_budget_of(id, origin, *answer->status == envelope::outcome::error);
            if (budget.size_of(text.size(), json::string_size(text)) > budget.limit) {
                auto cut = detail::fit_to_budget(*answer, budget, tool_name, origin.tool->info().truncated_rest);
                fitted = std::move(cut);
                rewrite();
            }
            message = call_result(id, origin, text, *answer->status == envelope::outcome::error);
        }
        if (c_.core->opts.result_text_mode == result_text::summary && answer != &fallback) {
            // The text block says the verdict first, and holds the data only while the whole
            // answer stays within its budget (the envelope is whole in structuredContent).
            const bool err = *answer->status == envelope::outcome::error;
            std::size_t room = SIZE_MAX;
            if (origin.max_result_bytes != 0) {
                const auto b = result_budget_of(id, origin, err);
                const std::size_t fixed = b.framing + (b.structured ? text.size() : 0);
                room = b.limit > fixed ? b.limit - fixed : 0;
            }
            const auto summary = detail::summarize(*answer, room);
            message = call_result(id, origin, text, err, summary);
        }
        // A large reply does not keep its buffer pinned to the thread.
        struct give_back {
            std::string& text;
            ~give_back() {
                if (text.capacity() <= (256u << 10)) envelope_text_buffer() = std::move(text);
            }
        } keep{text};
        const bool is_error = *answer->status == envelope::outcome::error;
        // Arguments refused by the tool's own checks (intake, schema, contract) did nothing.
        if (durable && is_error && !answer->errors.empty() &&
            std::all_of(answer->errors.begin(), answer->errors.end(),
                        [](const issue& i) { return i.where == layer::intake || i.where == layer::contract; }))
            durable = false;
        if (!c_.observers.empty())
            record = c_.record_call(id, origin, answer, std::string(envelope::to_string(*answer->status)));
        if (message) {
            c_.deliver(std::move(*message), record ? &*record : nullptr, origin, message_route{id, true}, durable);
            return;
        }
        // Not reached with a well-formed id (ids and the envelope's text passed the writer
        // already); kept as the general path.
        result["content"] = boost::json::array{text_block(text)};
        if (origin.stateless || c_.rules.structured_content)
            result["structuredContent"] = json::written::adopt(text).to_value();
        result["isError"] = is_error;
    } else {
        auto& content = std::get<content_result>(out);
        result["content"] = content.content;
        if ((origin.stateless || c_.rules.structured_content) && content.structured_content)
            result["structuredContent"] = *content.structured_content;
        result["isError"] = content.is_error;
        if (!c_.observers.empty())
            record = c_.record_call(id, origin, nullptr, content.is_error ? "content_error" : "content");
        if (!json::to_string(result)) {
            c_.log_call(log_level::error, "the tool returned content that cannot be serialized", tool_name, id);
            result = boost::json::object{{"content", boost::json::array{text_block("internal error in the tool")}},
                                         {"isError", true}};
        }
    }
    c_.dress(result, reply_style{origin.stateless, nullptr});
    auto message = c_.result_message(id, boost::json::value(std::move(result)));
    if (!message) return;
    if (origin.max_result_bytes != 0 && message->size() > origin.max_result_bytes) {
        // Content blocks have no completeness to mark: too large, they are never cut, never sent.
        c_.log_call(log_level::warning, "the tool's content result is larger than its byte budget", tool_name, id);
        answer_call(id, origin, detail::result_too_large(message->size(), origin.max_result_bytes), handler_ran);
        return;
    }
    c_.deliver(std::move(*message), record ? &*record : nullptr, origin, message_route{id, true}, durable);
}

std::optional<std::string> detail::call_runner::call_result(const rpc::request_id& id, const call_origin& origin,
                                                            std::string_view text, bool is_error,
                                                            std::optional<std::string_view> block) const {
    // The envelope is serialized once: its text is both content[0].text (escaped) and
    // structuredContent (as it is) — unless the text block is a summary.
    auto message = rpc::open_result(id, 2 * text.size() + text.size() / 4 + 96);
    if (!message) return std::nullopt;
    *message += R"({"content":[{"type":"text","text":)";
    if (!json::write_string(block.value_or(text), *message)) return std::nullopt;
    *message += "}]";
    if (origin.stateless || c_.rules.structured_content) {
        *message += R"(,"structuredContent":)";
        *message += text;
    }
    *message += is_error ? R"(,"isError":true)" : R"(,"isError":false)";
    if (origin.stateless) c_.append_stateless_fields(*message);
    *message += "}}";
    return std::move(*message);
}

result_budget detail::call_runner::result_budget_of(const rpc::request_id& id, const call_origin& origin,
                                                    bool is_error) const {
    result_budget b;
    b.limit = origin.max_result_bytes;
    b.structured = origin.stateless || c_.rules.structured_content;
    // The response around an empty text: all but the text's copies (`""` in the text block).
    const auto empty = call_result(id, origin, {}, is_error);
    b.framing = empty ? empty->size() - 2 : 0;
    return b;
}

// ---------------------------------------------------------------------------------------------
// call_state and call_context

namespace detail {

void call_state::send_progress(double done, std::optional<double> total, std::string message) {
    if (!progress_token || answered) return;
    if (last_progress && done <= *last_progress) return;
    last_progress = done;
    auto c = conn.lock();
    if (!c) return;
    boost::json::object params{{"progressToken", *progress_token}, {"progress", done}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = std::move(message);
    boost::asio::dispatch(
        c->strand, [c, p = std::move(params), r = route] { c->send_notification("notifications/progress", p, r); });
}

void call_state::send_log(log_level level, std::string message, boost::json::object data) {
    auto c = conn.lock();
    if (!c || answered) return;
    boost::asio::dispatch(c->strand, [c, level, tool = tool_name, r = route, m = std::move(message),
                                      d = std::move(data), stateless = stateless, threshold = log_threshold]() mutable {
        // The stateless revision: only when the request asked, and at its level.
        if (stateless ? (!threshold || level < *threshold) : level < c->client_level) return;
        boost::json::object payload(std::move(d));
        payload.insert_or_assign("message", std::move(m));
        c->send_notification(
            "notifications/message",
            boost::json::object{{"level", to_string(level)}, {"logger", tool}, {"data", std::move(payload)}}, r);
    });
}

}  // namespace detail

call_context::call_context(std::shared_ptr<detail::call_state> state) noexcept : state_(std::move(state)) {}

const std::string& call_context::tool() const noexcept { return state_->tool_name; }
std::chrono::steady_clock::time_point call_context::deadline() const noexcept { return state_->deadline; }
std::chrono::milliseconds call_context::remaining() const noexcept {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(state_->deadline - std::chrono::steady_clock::now());
    return std::max(left, std::chrono::milliseconds(0));
}
bool call_context::cancelled() const noexcept { return state_->cancelled; }
const std::string& call_context::task_id() const noexcept { return state_->task_id; }
void call_context::progress(double done, std::optional<double> total, std::string message) {
    state_->send_progress(done, total, std::move(message));
}
void call_context::log(log_level level, std::string message, boost::json::object data) {
    state_->send_log(level, std::move(message), std::move(data));
}
const principal& call_context::caller() const noexcept { return state_->caller; }
std::optional<result_budget> call_context::budget() const { return state_->budget(); }

namespace detail {

std::optional<result_budget> call_state::budget() const {
    // A task's result is kept for tasks/get, under the tasks' own bound.
    if (origin.max_result_bytes == 0 || task || !route.request) return std::nullopt;
    auto c = conn.lock();
    if (!c) return std::nullopt;
    return c->calls.result_budget_of(*route.request, origin, false);
}

}  // namespace detail
const session_info& call_context::session() const noexcept { return *state_->session; }
boost::asio::any_io_executor call_context::executor() const { return state_->executor; }

}  // namespace candor::mcp
