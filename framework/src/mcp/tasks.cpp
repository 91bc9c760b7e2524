// SPDX-License-Identifier: BSL-1.0
// The tasks extension (`io.modelcontextprotocol/tasks`) of the stateless revision: a call of a
// tool with task support becomes a task when it first waits; `tasks/get`, `tasks/update` and
// `tasks/cancel`; the tool's requests to the client inside a task; the task's end.
//
// A task's tool keeps running on the strand of the connection that started it (the strand
// outlives the connection), detached from it: the connection's close, deadline queue and
// in-flight count no longer see it. Other connections reach it through the task table (what a
// client may read) and `server_core::task_runs` (cancellation, answers), posting to its strand;
// no lock is held while anything runs.

#include "connection_impl.hpp"

#include <candor/envelope/codes.hpp>
#include <candor/json/document.hpp>
#include <candor/json/time.hpp>
#include <candor/json/write.hpp>

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <random>

namespace candor::mcp {

namespace rpc = jsonrpc;

namespace {

constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

std::chrono::system_clock::time_point wall_now() { return std::chrono::system_clock::now(); }

// The fields every view of a task carries.
boost::json::object task_fields(const task_record& r, const task_options& o) {
    boost::json::object t{{"taskId", r.id},
                          {"status", to_string(r.status)},
                          {"createdAt", json::format_time(r.created)},
                          {"lastUpdatedAt", json::format_time(r.updated)},
                          {"ttlMs", std::max<std::int64_t>(1, o.ttl.count())},
                          {"pollIntervalMs", std::max<std::int64_t>(1, o.poll_interval.count())}};
    if (!r.status_message.empty()) t["statusMessage"] = r.status_message;
    return t;
}

// Unknown, expired and another principal's tasks look the same.
rpc::error_object unknown_task() {
    return rpc::error_object::make(rpc::error_code::invalid_params, "no such task (unknown, expired, or not yours)",
                                   boost::json::object{{"code", "TASK_NOT_FOUND"}});
}

// The answer of a stateless `tasks/update` or `tasks/cancel`: an empty result.
boost::json::object acknowledgement() { return boost::json::object{}; }

// Drop request `key` from the record's outstanding ones; back to `working` when none is left.
bool drop_input(task_record& r, std::string_view key, std::chrono::system_clock::time_point t) {
    if (is_terminal(r.status) || !r.input_requests.erase(key)) return false;
    if (r.input_requests.empty() && r.status == task_status::input_required) r.status = task_status::working;
    r.updated = t;
    return true;
}

// The CallToolResult a task keeps for `out` (the stateless shape: structured content always),
// and the envelope it was written from, for the record of the task's end.
struct stored_result {
    boost::json::object result;
    std::string status;
    std::optional<envelope::envelope> answer;
};

stored_result result_of(tool_outcome out, const std::string& tool_name, const log_sink& log) {
    stored_result s;
    if (auto* env = std::get_if<envelope::envelope>(&out)) {
        std::string text;
        envelope::envelope answer = std::move(*env);
        if (auto valid = envelope::check(answer); !valid) {
            if (answer.status)
                log(log_level::error, "tool " + tool_name + " returned an envelope that breaks " +
                                          std::string(envelope::to_string(valid.error())));
            answer = envelope::internal_error();
        } else if (!envelope::write_sealed(answer, tool_name, text, json::depth_ceiling)) {
            log(log_level::error, "tool " + tool_name + " returned data that cannot be serialized");
            answer = envelope::internal_error();
            text.clear();
        }
        if (text.empty()) (void)envelope::write_sealed(answer, tool_name, text);
        const bool is_error = *answer.status == envelope::outcome::error;
        s.result["content"] = boost::json::array{boost::json::object{{"type", "text"}, {"text", text}}};
        s.result["structuredContent"] = json::written::adopt(text).to_value();
        s.result["isError"] = is_error;
        s.status = std::string(envelope::to_string(*answer.status));
        s.answer = std::move(answer);
    } else {
        auto& content = std::get<content_result>(out);
        s.result["content"] = std::move(content.content);
        if (content.structured_content) s.result["structuredContent"] = std::move(*content.structured_content);
        s.result["isError"] = content.is_error;
        s.status = content.is_error ? "content_error" : "content";
        if (!json::to_string(s.result)) {
            log(log_level::error, "tool " + tool_name + " returned content that cannot be serialized");
            return result_of(envelope::internal_error(), tool_name, log);
        }
    }
    s.result["resultType"] = "complete";
    return s;
}

}  // namespace

namespace detail {

std::string random_id() {
    thread_local std::random_device rd;
    static constexpr char hex[] = "0123456789abcdef";
    std::string id;
    id.reserve(32);
    for (int i = 0; i < 4; ++i) {
        const std::uint32_t v = rd();
        for (int shift = 28; shift >= 0; shift -= 4) id.push_back(hex[(v >> shift) & 0xF]);
    }
    return id;
}

bool declares_tasks_extension(const boost::json::object& client_capabilities) {
    const auto* ext = client_capabilities.if_contains("extensions");
    const auto* o = ext ? ext->if_object() : nullptr;
    return o && o->contains(tasks_extension);
}

rpc::error_object tasks_extension_required(std::string message) {
    return rpc::error_object::make(
        rpc::error_code::missing_required_client_capability, std::move(message),
        boost::json::object{
            {"requiredCapabilities",
             boost::json::object{{"extensions", boost::json::object{{tasks_extension, boost::json::object{}}}}}}});
}

bool is_task_method(std::string_view method) noexcept {
    return method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel";
}

void advertise_tasks(boost::json::object& capabilities) {
    capabilities["extensions"] = boost::json::object{{tasks_extension, boost::json::object{}}};
}

std::shared_ptr<task_run> server_core::find_run(std::string_view id) const {
    std::lock_guard lock(tasks_mu);
    auto it = task_runs.find(id);
    return it == task_runs.end() ? nullptr : it->second;
}

boost::system::result<std::pair<rpc::request_id, std::shared_ptr<pending_reply>>, client_request_error> ask_in_task(
    call_state& state, const std::string& method, const boost::json::object& params, std::chrono::milliseconds timeout,
    std::string key) {
    auto& run = *state.task;
    auto core = run.core.lock();
    if (!core || state.cancelled) return client_request_error::cancelled;
    boost::json::object entry{{"method", method}, {"params", params}};
    if (!json::to_string(entry)) {
        core->opts.log(log_level::error,
                       "tool " + state.tool_name + ": request " + method + " could not be serialized");
        return client_request_error::malformed_reply;
    }
    // Keys are unique over the task's life: a client never mistakes a new question for one it
    // answered already.
    if (key.empty()) key = input_key(method, run.used_keys.size());
    if (run.used_keys.count(key)) {
        const std::string base = key;
        for (std::size_t n = 2; run.used_keys.count(key = base + "_" + std::to_string(n)); ++n) {
        }
    }
    run.used_keys.insert(key);
    const rpc::request_id id(run.next_id++);
    auto p = std::make_shared<pending_reply>(run.executor);
    p->timer.expires_after(timeout);
    run.open.insert_or_assign(key, p);
    run.key_of.insert_or_assign(id, key);
    const auto t = wall_now();
    core->tasks->modify(run.id, t, [&](task_record& r) {
        if (is_terminal(r.status)) return false;
        r.input_requests[key] = std::move(entry);
        r.status = task_status::input_required;
        r.updated = t;
        return true;
    });
    return std::make_pair(id, std::move(p));
}

void abandon_in_task(task_run& run, const rpc::request_id& id) {
    auto it = run.key_of.find(id);
    if (it == run.key_of.end()) return;
    const std::string key = std::move(it->second);
    run.key_of.erase(it);
    run.open.erase(key);
    if (auto core = run.core.lock()) {
        const auto t = wall_now();
        core->tasks->modify(run.id, t, [&](task_record& r) { return drop_input(r, key, t); });
    }
}

void end_task(call_state& state, std::exception_ptr ep, tool_outcome out) {
    auto run = state.task;
    auto core = run->core.lock();
    if (!core) return;
    run->deadline.cancel();
    {
        std::lock_guard lock(core->tasks_mu);
        core->task_runs.erase(run->id);
    }
    const auto& o = core->opts;
    std::optional<stored_result> stored;
    boost::json::object error;
    if (run->deadline_passed) {
        stored = result_of(envelope::failure({deadline_exceeded_issue()}), state.tool_name, o.log);
    } else if (ep && !state.cancelled) {
        // A bug in the tool (or a fault it raised on purpose): the task fails with a JSON-RPC
        // error; the operator gets the details, the client none.
        o.log(log_level::error, "tool " + state.tool_name + " threw in task " + run->id + ": " + what_of(ep));
        error = boost::json::object{{"code", static_cast<int>(rpc::error_code::internal_error)},
                                    {"message", "the tool failed (internal error)"},
                                    {"data", boost::json::object{{"code", envelope::error_codes::internal_error}}}};
    } else if (!ep) {
        stored = result_of(std::move(out), state.tool_name, o.log);
        if (const auto bytes = boost::json::serialize(stored->result).size(); bytes > o.tasks.max_result_bytes) {
            issue i;
            i.code = std::string(envelope::error_codes::task_result_too_large);
            i.message = "the task's result is larger than this server keeps (" +
                        std::to_string(o.tasks.max_result_bytes) + " bytes); ask for less and call again";
            i.repairable = true;
            i.where = layer::external;
            i.details["limit"] = o.tasks.max_result_bytes;
            stored = result_of(envelope::failure({std::move(i)}), state.tool_name, o.log);
        }
    }
    const auto t = wall_now();
    task_status final_status = task_status::cancelled;
    core->tasks->modify(run->id, t, [&](task_record& r) {
        if (is_terminal(r.status)) {
            final_status = r.status;
            return false;
        }
        r.input_requests.clear();
        if (stored) {
            r.status = task_status::completed;
            r.result = stored->result;
        } else if (!error.empty()) {
            r.status = task_status::failed;
            r.error = error;
            r.status_message = "the tool failed";
        } else {
            r.status = task_status::cancelled;
        }
        final_status = r.status;
        r.updated = t;
        r.expires = t + o.tasks.ttl;
        return true;
    });
    if (run->observers.empty()) return;
    call_record rec = run->record;
    rec.time = t;
    rec.duration =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - run->received);
    if (final_status == task_status::completed && stored) {
        rec.status = stored->status;
        if (stored->answer) {
            const bool with_meta = std::any_of(run->observers.begin(), run->observers.end(),
                                               [](const auto& ob) { return ob->reads_envelope_metadata(); });
            record_envelope(rec, *stored->answer, with_meta);
        }
    } else {
        rec.status = std::string(to_string(final_status));
        if (final_status == task_status::failed) rec.rpc_error = static_cast<int>(rpc::error_code::internal_error);
    }
    for (const auto& ob : run->observers) ob->on_record(rec);
}

}  // namespace detail

bool detail::task_desk::runs_as_task(const tool_handler& tool) const {
    return c_.current.stateless && tool.info().tasks != task_support::none && c_.current.session &&
           detail::declares_tasks_extension(c_.current.session->client_capabilities);
}

boost::system::result<std::string, issue> detail::task_desk::reserve_task(const tool_handler& tool) {
    const auto& o = c_.core->opts.tasks;
    task_record r;
    r.id = detail::random_id();  // nobody can guess it (ownership is checked besides)
    r.owner = c_.opts.caller.id;
    r.tool = tool.info().name;
    r.created = r.updated = wall_now();
    auto id = r.id;
    auto added = c_.core->tasks->insert(std::move(r), o.max_tasks, o.max_tasks_per_principal, wall_now());
    if (added) return {boost::system::in_place_value, std::move(id)};
    const bool server_wide = added.error() == task_refusal::server_full;
    issue i;
    i.code = std::string(envelope::error_codes::too_many_tasks);
    i.message = server_wide ? "this server holds as many tasks as it may; try again when some have finished"
                            : "you hold as many tasks as one caller may; wait for some to finish, or cancel some";
    i.repairable = false;
    i.where = layer::external;
    i.details["limit"] = server_wide ? o.max_tasks : o.max_tasks_per_principal;
    i.details["scope"] = server_wide ? "server" : "principal";
    c_.log(log_level::warning, "tool " + tool.info().name + ": task refused (" + i.code + ", " +
                                   std::string(server_wide ? "server" : "principal") + " limit)");
    return i;
}

void detail::task_desk::promote_to_task(const rpc::request_id& id, const std::string& task_id) {
    auto state = c_.calls.hand_over(id, task_id);
    if (!state) {
        // Answered in the request (finished, asked, refused, cancelled): no task was made.
        c_.core->tasks->erase(task_id);
        return;
    }
    auto run = std::make_shared<detail::task_run>(task_id, c_.strand, c_.core);
    run->call = state;
    run->observers = c_.observers;
    run->received = state->origin.received;
    if (!c_.observers.empty()) {
        run->record = c_.record_call(id, state->origin, nullptr, "task");
        run->record.task_id = task_id;
    }
    state->task = run;
    // Progress and log messages had the request's stream, which is answered now.
    state->progress_token.reset();
    state->log_threshold.reset();
    {
        std::lock_guard lock(c_.core->tasks_mu);
        c_.core->task_runs.insert_or_assign(task_id, run);
    }
    run->deadline.expires_at(state->deadline);
    run->deadline.async_wait([run](boost::system::error_code ec) {
        if (ec) return;
        auto call = run->call.lock();
        if (!call || call->cancelled) return;
        run->deadline_passed = true;
        call->cancelled = true;
        call->signal.emit(boost::asio::cancellation_type::terminal);
    });
    auto record = c_.core->tasks->find(task_id, wall_now());
    if (!record) {
        // Not reached: a working task does not expire, and nobody else knows its id yet.
        c_.send_error(id, rpc::error_object::make(rpc::error_code::internal_error, "the task was lost"));
        return;
    }
    auto result = task_fields(*record, c_.core->opts.tasks);
    result["resultType"] = "task";
    c_.dress(result, reply_style{true, nullptr});
    std::optional<call_record> created;  // the call's record: it became a task
    if (!c_.observers.empty()) created = run->record;
    auto message = c_.result_message(id, boost::json::value(std::move(result)));
    if (!message) return;
    c_.deliver(std::move(*message), created ? &*created : nullptr, state->origin, message_route{id, true}, false);
}

boost::system::result<task_record, rpc::error_object> detail::task_desk::task_of(const rpc::request& req) const {
    const auto* id = detail::string_param(req.params, "taskId");
    if (!id)
        return rpc::error_object::make(rpc::error_code::invalid_params, req.method + " needs params.taskId (a string)");
    auto r = c_.core->tasks->find(*id, wall_now());
    if (!r || r->owner != c_.opts.caller.id) return unknown_task();
    return std::move(*r);
}

void detail::task_desk::on_tasks_get(const rpc::request& req) {
    auto r = task_of(req);
    if (!r) return c_.send_error(req.id, r.error());
    auto out = task_fields(*r, c_.core->opts.tasks);
    switch (r->status) {
        case task_status::input_required: out["inputRequests"] = std::move(r->input_requests); break;
        case task_status::completed: out["result"] = std::move(r->result); break;
        case task_status::failed: out["error"] = std::move(r->error); break;
        default: break;
    }
    c_.send_result(req.id, std::move(out), c_.style_of());
}

void detail::task_desk::on_tasks_update(const rpc::request& req) {
    auto r = task_of(req);
    if (!r) return c_.send_error(req.id, r.error());
    const auto* responses_value = req.params->if_contains("inputResponses");
    const auto* responses = responses_value ? responses_value->if_object() : nullptr;
    if (!responses)
        return c_.send_error(
            req.id,
            rpc::error_object::make(rpc::error_code::invalid_params,
                                    "tasks/update needs params.inputResponses (an object keyed like inputRequests)",
                                    boost::json::object{{"code", "INPUT_RESPONSES_INVALID"}}));
    // Answers to the task's outstanding requests, checked against their method; any other key
    // is ignored (a request answered already, or never asked).
    auto answers = std::make_shared<std::vector<std::pair<std::string, boost::json::object>>>();
    for (const auto& [key, entry] : r->input_requests) {
        const auto* answer = responses->if_contains(key);
        if (!answer) continue;
        const auto* e = entry.if_object();
        const auto* method = e ? e->if_contains("method") : nullptr;
        const std::string_view m = method && method->is_string() ? std::string_view(method->get_string()) : "";
        if (!answer->is_object() || !detail::well_formed_answer(m, answer->get_object()))
            return c_.send_error(
                req.id, rpc::error_object::make(
                            rpc::error_code::invalid_params,
                            "inputResponses[\"" + std::string(key) + "\"] is not a valid answer to " + std::string(m),
                            boost::json::object{{"code", "INPUT_RESPONSES_INVALID"}}));
        answers->emplace_back(std::string(key), json::detach(*answer).as_object());
    }
    if (!answers->empty()) {
        // The record first, so that a `tasks/get` after this acknowledgement sees the answered
        // requests gone; then the tool, on its strand.
        const auto t = wall_now();
        c_.core->tasks->modify(r->id, t, [&](task_record& rec) {
            bool changed = false;
            for (const auto& a : *answers) changed = drop_input(rec, a.first, t) || changed;
            return changed;
        });
        if (auto run = c_.core->find_run(r->id)) {
            boost::asio::post(run->executor, [run, answers] {
                for (auto& [key, answer] : *answers) {
                    auto it = run->open.find(key);
                    if (it == run->open.end()) continue;
                    it->second->outcome = std::move(answer);
                    it->second->timer.cancel();
                    run->open.erase(it);
                    for (auto k = run->key_of.begin(); k != run->key_of.end(); ++k)
                        if (k->second == key) {
                            run->key_of.erase(k);
                            break;
                        }
                }
            });
        }
    }
    c_.send_result(req.id, acknowledgement(), c_.style_of());
}

void detail::task_desk::on_tasks_cancel(const rpc::request& req) {
    auto r = task_of(req);
    if (!r) return c_.send_error(req.id, r.error());
    const auto t = wall_now();
    bool cancelled = false;
    c_.core->tasks->modify(r->id, t, [&](task_record& rec) {
        if (is_terminal(rec.status)) return false;  // idempotent: a terminal task stays as it is
        rec.status = task_status::cancelled;
        rec.status_message = "cancelled by the client";
        rec.input_requests.clear();
        rec.updated = t;
        rec.expires = t + c_.core->opts.tasks.ttl;
        cancelled = true;
        return true;
    });
    if (cancelled) {
        if (auto run = c_.core->find_run(r->id)) {
            boost::asio::post(run->executor, [run] {
                auto call = run->call.lock();
                if (!call || call->cancelled) return;
                call->cancelled = true;
                // Ends the tool's waits (timers, requests to the client) through its
                // cancellation slot.
                call->signal.emit(boost::asio::cancellation_type::terminal);
            });
        }
    }
    c_.send_result(req.id, acknowledgement(), c_.style_of());
}

}  // namespace candor::mcp
