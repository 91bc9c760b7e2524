// SPDX-License-Identifier: BSL-1.0
// The tasks extension (`io.modelcontextprotocol/tasks`) of the stateless revision: a call of a
// tool with task support becomes a task when it first waits; `tasks/get`, `tasks/update` and
// `tasks/cancel`; the tool's requests to the client inside a task; the task's end.
//
// A task's tool keeps running on the strand of the connection that started it (the strand
// outlives the connection), detached from it: the connection's close, deadline queue and
// in-flight count no longer see it. Other connections reach it through the task table (what a
// client may read) and `server_core::task_runs` (cancellation, answers), posting to its strand;
// no lock is held while anything runs. With a shared task table (`task_options::shared`,
// shared_tasks.hpp) every change of a task's record is published there, a loop renews the
// leases of the tasks this process runs and reads what other replicas did to them, and a task
// this process does not know is looked up in the table.

// GCC 12 reports -Wmismatched-new-delete on coroutine frames (Asio's frame allocator pairs its
// own operator new and delete): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include "connection_impl.hpp"

#include <candor/mcp/shared_tasks.hpp>

#include <candor/envelope/codes.hpp>
#include <candor/json/document.hpp>
#include <candor/json/time.hpp>
#include <candor/json/write.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
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

// A task ended by its client: cancelled, readable for `ttl`.
void mark_cancelled(task_record& r, std::chrono::system_clock::time_point t, std::chrono::milliseconds ttl) {
    r.status = task_status::cancelled;
    r.status_message = "cancelled by the client";
    r.input_requests.clear();
    r.updated = t;
    r.expires = t + ttl;
}

// A task whose replica stopped renewing its lease: failed with TASK_LOST, readable for `ttl`.
void mark_lost(task_record& r, std::chrono::system_clock::time_point t, std::chrono::milliseconds ttl) {
    r.status = task_status::failed;
    r.status_message = "the replica that ran the task stopped";
    r.error =
        boost::json::object{{"code", static_cast<int>(rpc::error_code::internal_error)},
                            {"message", "the replica that ran the task stopped before the task ended; start it again"},
                            {"data", boost::json::object{{"code", "TASK_LOST"}}}};
    r.input_requests.clear();
    r.updated = t;
    r.expires = t + ttl;
}

// What `tasks/get` answers for `r`.
boost::json::object task_view(task_record r, const task_options& o) {
    auto out = task_fields(r, o);
    switch (r.status) {
        case task_status::input_required: out["inputRequests"] = std::move(r.input_requests); break;
        case task_status::completed: out["result"] = std::move(r.result); break;
        case task_status::failed: out["error"] = std::move(r.error); break;
        default: break;
    }
    return out;
}

// The shared task table did not answer: nothing is known of the task, and nothing was changed.
rpc::error_object table_unavailable() {
    return rpc::error_object::make(rpc::error_code::internal_error,
                                   "the tasks shared by this deployment cannot be read now; try again",
                                   boost::json::object{{"code", "TASK_STORE_UNAVAILABLE"}});
}

using answers_list = std::vector<std::pair<std::string, boost::json::object>>;

// The answers in `responses` to the outstanding requests of `r`, each checked against its
// method; any other key is ignored (a request answered already, or never asked).
boost::system::result<answers_list, rpc::error_object> answers_for(const task_record& r,
                                                                   const boost::json::object& responses) {
    answers_list answers;
    for (const auto& [key, entry] : r.input_requests) {
        const auto* answer = responses.if_contains(key);
        if (!answer) continue;
        const auto* e = entry.if_object();
        const auto* method = e ? e->if_contains("method") : nullptr;
        const std::string_view m = method && method->is_string() ? std::string_view(method->get_string()) : "";
        if (!answer->is_object() || !detail::well_formed_answer(m, answer->get_object()))
            return rpc::error_object::make(
                rpc::error_code::invalid_params,
                "inputResponses[\"" + std::string(key) + "\"] is not a valid answer to " + std::string(m),
                boost::json::object{{"code", "INPUT_RESPONSES_INVALID"}});
        answers.emplace_back(std::string(key), json::detach(*answer).as_object());
    }
    return answers;
}

// Hand answers to the requests the task's tool awaits, on its strand.
void hand_answers(const std::shared_ptr<detail::task_run>& run, std::shared_ptr<answers_list> answers) {
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

// Stop the task's tool, on its strand: its waits (timers, requests to the client) end through
// its cancellation slot.
void stop_run(const std::shared_ptr<detail::task_run>& run) {
    boost::asio::post(run->executor, [run] {
        auto call = run->call.lock();
        if (!call || call->cancelled) return;
        call->cancelled = true;
        call->signal.emit(boost::asio::cancellation_type::terminal);
    });
}

// A task's record as this process publishes it to the shared table: with this holder's next
// version, and a lease from now.
struct publication {
    task_record record;
    std::uint64_t version = 0;
    std::string holder;
    std::chrono::system_clock::time_point lease_until;
};

publication publication_of(detail::server_core& core, task_record r) {
    return {std::move(r), core.task_version.fetch_add(1) + 1, core.replica_id, wall_now() + core.opts.tasks.lease};
}

// Publish the task's record as this process has it to the shared table, if there is one.
void share(detail::server_core& core, std::string_view id) {
    const auto& table = core.opts.tasks.shared;
    if (!table) return;
    auto r = core.tasks->find(id, wall_now());
    if (!r) return;
    auto p = publication_of(core, std::move(*r));
    table->publish(std::move(p.record), p.version, std::move(p.holder), p.lease_until);
}

// Answers to the task's outstanding requests: off the record first, so that a `tasks/get` after
// the acknowledgement sees them gone; then to the tool, on its strand (if it runs here).
void take_answers(detail::server_core& core, const std::string& id, std::shared_ptr<answers_list> answers) {
    const auto t = wall_now();
    core.tasks->modify(id, t, [&](task_record& r) {
        bool changed = false;
        for (const auto& a : *answers) changed = drop_input(r, a.first, t) || changed;
        return changed;
    });
    share(core, id);
    if (auto run = core.find_run(id)) hand_answers(run, std::move(answers));
}

// The end of a task this process ran, in the shared table: written there, unless another
// replica ended it first (a cancellation this process had not read yet) — then the table's end
// is the task's end here too, so that every replica tells the same.
void settle_shared(const std::shared_ptr<detail::server_core>& core, const std::string& id,
                   const boost::asio::any_io_executor& ex) {
    const auto table = core->opts.tasks.shared;
    if (!table) return;
    auto r = core->tasks->find(id, wall_now());
    if (!r) return;
    auto settle = [weak = std::weak_ptr<detail::server_core>(core), table,
                   p = publication_of(*core, std::move(*r))]() -> boost::asio::awaitable<void> {
        auto written = co_await table->publish_now(p.record, p.version, p.holder, p.lease_until);
        if (!written || *written) co_return;
        auto there = co_await table->find(p.record.id, wall_now());
        auto c = weak.lock();
        if (!c || !there || !*there || !is_terminal((*there)->record.status)) co_return;
        c->tasks->modify(p.record.id, wall_now(), [&](task_record& mine) {
            const auto expires = mine.expires;  // the local table forgets it when it planned to
            mine = std::move((*there)->record);
            mine.expires = expires;
            return true;
        });
    };
    boost::asio::co_spawn(ex, std::move(settle), boost::asio::detached);
}

// What another replica did to a task this process runs: it ended it (cancelled, or declared it
// lost while this process could not renew its lease), or answered its requests.
void deliver_mail(detail::server_core& core, task_mail m) {
    auto run = core.find_run(m.id);
    if (!run) return;
    const auto t = wall_now();
    const auto ttl = core.opts.tasks.ttl;
    if (is_terminal(m.status)) {
        core.tasks->modify(m.id, t, [&](task_record& r) {
            if (is_terminal(r.status)) return false;
            if (m.status == task_status::failed) mark_lost(r, t, ttl);
            else mark_cancelled(r, t, ttl);
            return true;
        });
        stop_run(run);
        return;
    }
    if (m.answers.empty()) return;
    auto answers = std::make_shared<answers_list>();
    for (auto& [key, answer] : m.answers)
        if (answer.is_object()) answers->emplace_back(std::string(key), std::move(answer.as_object()));
    take_answers(core, m.id, std::move(answers));
}

// While this server runs tasks and shares them: renew their leases and read what other replicas
// did to them, every `shared_poll_interval`. Ends when no task runs here (the next one starts
// it again).
boost::asio::awaitable<void> renew_leases(std::weak_ptr<detail::server_core> weak, boost::asio::any_io_executor ex) {
    // Should the loop's executor end under it, the next task starts another.
    struct restart_later {
        std::weak_ptr<detail::server_core> core;
        bool armed = true;
        ~restart_later() {
            if (!armed) return;
            if (auto c = core.lock()) {
                std::lock_guard lock(c->tasks_mu);
                c->renewing_leases = false;
            }
        }
    } guard{weak};
    boost::asio::steady_timer timer(ex);
    bool warned = false;
    for (;;) {
        std::shared_ptr<shared_task_table> table;
        std::chrono::milliseconds lease{};
        std::string holder;
        {
            auto core = weak.lock();
            if (!core) co_return;
            std::lock_guard lock(core->tasks_mu);
            if (core->task_runs.empty() || !core->opts.tasks.shared) {
                core->renewing_leases = false;  // under the lock that a new task checks it with
                guard.armed = false;
                co_return;
            }
            table = core->opts.tasks.shared;
            lease = core->opts.tasks.lease;
            holder = core->replica_id;
            timer.expires_after(core->opts.tasks.shared_poll_interval);
        }
        auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        if (ec) co_return;
        const auto now = wall_now();
        auto mail = co_await table->renew(holder, now + lease, now);
        auto core = weak.lock();
        if (!core) co_return;
        if (!mail) {
            if (!warned)
                core->opts.log(log_level::warning,
                               "the shared task table cannot be written (" + mail.error().message +
                                   "): this replica's tasks are lost to the others once their lease passes");
            warned = true;
            continue;
        }
        warned = false;
        for (auto& m : *mail) deliver_mail(*core, std::move(m));
    }
}

// `tasks/get`, `tasks/update` and `tasks/cancel` of a task another replica runs (or ran).
using reply = std::variant<boost::json::object, rpc::error_object>;

boost::asio::awaitable<reply> remote_get(std::shared_ptr<shared_task_table> table, std::string id, std::string caller,
                                         task_options o) {
    const auto now = wall_now();
    auto found = co_await table->find(id, now);
    if (!found) co_return table_unavailable();
    if (!*found || (*found)->record.owner != caller) co_return unknown_task();
    shared_task t = std::move(**found);
    if (!is_terminal(t.record.status) && t.lease_until < now) {
        // Its replica stopped renewing: whoever reads it first ends it. (Named, not temporaries
        // in the co_await expression: GCC 12 destroys those twice.)
        std::function<bool(shared_task&)> end_it = [now, ttl = o.ttl](shared_task& s) {
            if (is_terminal(s.record.status) || s.lease_until >= now) return false;
            mark_lost(s.record, now, ttl);
            return true;
        };
        boost::json::object no_answers;
        auto lost = co_await table->modify(id, now, std::move(end_it), std::move(no_answers));
        if (!lost) co_return table_unavailable();
        if (!*lost) co_return unknown_task();
        t = std::move(**lost);
    }
    co_return task_view(std::move(t.record), o);
}

boost::asio::awaitable<reply> remote_cancel(std::shared_ptr<shared_task_table> table, std::string id,
                                            std::string caller, std::chrono::milliseconds ttl) {
    const auto now = wall_now();
    std::function<bool(shared_task&)> cancel_it = [caller, now, ttl](shared_task& s) {
        if (s.record.owner != caller || is_terminal(s.record.status)) return false;
        mark_cancelled(s.record, now, ttl);
        return true;
    };
    boost::json::object no_answers;
    auto done = co_await table->modify(id, now, std::move(cancel_it), std::move(no_answers));
    if (!done) co_return table_unavailable();
    if (!*done || (*done)->record.owner != caller) co_return unknown_task();
    co_return acknowledgement();
}

boost::asio::awaitable<reply> remote_update(std::shared_ptr<shared_task_table> table, std::string id,
                                            std::string caller, boost::json::object responses) {
    const auto now = wall_now();
    auto found = co_await table->find(id, now);
    if (!found) co_return table_unavailable();
    if (!*found || (*found)->record.owner != caller) co_return unknown_task();
    auto answers = answers_for((*found)->record, responses);
    if (!answers) co_return answers.error();
    if (answers->empty()) co_return acknowledgement();
    boost::json::object mail;
    std::vector<std::string> keys;
    for (auto& [key, a] : *answers) {
        keys.push_back(key);
        mail[key] = std::move(a);
    }
    std::function<bool(shared_task&)> take_answers = [keys, now](shared_task& s) {
        bool changed = false;
        for (const auto& k : keys) changed = drop_input(s.record, k, now) || changed;
        return changed;
    };
    auto done = co_await table->modify(id, now, std::move(take_answers), std::move(mail));
    if (!done) co_return table_unavailable();
    co_return acknowledgement();
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
    auto& extensions = capabilities["extensions"];
    if (!extensions.is_object()) extensions.emplace_object();
    extensions.get_object()[tasks_extension] = boost::json::object{};
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
    share(*core, run.id);
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
        share(*core, run.id);
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
    settle_shared(core, run->id, run->executor);
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
    c_.log(log_level::warning, "tool " + tool.info().name + ": task refused (TOO_MANY_TASKS, " +
                                   std::string(server_wide ? "server" : "principal") + " limit)");
    return too_many_tasks(o, server_wide, false);
}

issue detail::too_many_tasks(const task_options& o, bool server_wide, bool across_replicas) {
    issue i;
    i.code = std::string(envelope::error_codes::too_many_tasks);
    i.message = std::string(server_wide ? "this server holds as many tasks as it may"
                                        : "you hold as many tasks as one caller may") +
                (across_replicas ? " (counted on all its replicas)" : "") +
                (server_wide ? "; try again when some have finished" : "; wait for some to finish, or cancel some");
    i.repairable = false;
    i.where = layer::external;
    i.details["limit"] = server_wide ? o.max_tasks : o.max_tasks_per_principal;
    i.details["scope"] = server_wide ? "server" : "principal";
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
    bool renew = false;
    {
        std::lock_guard lock(c_.core->tasks_mu);
        c_.core->task_runs.insert_or_assign(task_id, run);
        if (c_.core->opts.tasks.shared && !c_.core->renewing_leases) renew = c_.core->renewing_leases = true;
    }
    if (renew) boost::asio::co_spawn(c_.strand, renew_leases(c_.core, c_.strand), boost::asio::detached);
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
    const auto table = c_.core->opts.tasks.shared;
    if (!table) {
        c_.deliver(std::move(*message), created ? &*created : nullptr, state->origin, message_route{id, true}, false);
        return;
    }
    // The task is in the shared table before its id reaches the client: whichever replica the
    // client polls next knows it.
    auto answer_when_shared = [weak = c_.weak_from_this(), table, p = publication_of(*c_.core, std::move(*record)),
                               message = std::move(*message), created = std::move(created), origin = state->origin,
                               id]() mutable -> boost::asio::awaitable<void> {
        auto written = co_await table->publish_now(p.record, p.version, p.holder, p.lease_until);
        auto self = weak.lock();
        if (!self) co_return;
        if (!written)
            self->log(log_level::warning, "task " + p.record.id + " could not be written to the shared task table (" +
                                              written.error().message + "): only this replica knows it");
        self->deliver(std::move(message), created ? &*created : nullptr, origin, message_route{id, true}, false);
    };
    boost::asio::co_spawn(c_.strand, std::move(answer_when_shared), boost::asio::detached);
}

boost::system::result<std::optional<task_record>, rpc::error_object> detail::task_desk::task_of(const rpc::request& req,
                                                                                                std::string& id) const {
    const auto* given = detail::string_param(req.params, "taskId");
    if (!given)
        return rpc::error_object::make(rpc::error_code::invalid_params, req.method + " needs params.taskId (a string)");
    id = std::string(*given);
    auto r = c_.core->tasks->find(id, wall_now());
    if (r && r->owner != c_.opts.caller.id) return unknown_task();
    return r;
}

std::shared_ptr<shared_task_table> detail::task_desk::shared() const {
    std::lock_guard lock(c_.core->tasks_mu);
    return c_.core->opts.tasks.shared;
}

void detail::task_desk::on_tasks_get(const rpc::request& req) {
    std::string id;
    auto r = task_of(req, id);
    if (!r) return c_.send_error(req.id, r.error());
    if (*r) return c_.send_result(req.id, task_view(std::move(**r), c_.core->opts.tasks), c_.style_of());
    auto table = shared();
    if (!table) return c_.send_error(req.id, unknown_task());
    c_.dispatcher.answer_async(
        req.id, "tasks/get", remote_get(std::move(table), std::move(id), c_.opts.caller.id, c_.core->opts.tasks),
        [](reply a) { return a; }, c_.style_of());
}

void detail::task_desk::on_tasks_update(const rpc::request& req) {
    std::string id;
    auto r = task_of(req, id);
    if (!r) return c_.send_error(req.id, r.error());
    const auto* responses_value = req.params->if_contains("inputResponses");
    const auto* responses = responses_value ? responses_value->if_object() : nullptr;
    if (!responses)
        return c_.send_error(
            req.id,
            rpc::error_object::make(rpc::error_code::invalid_params,
                                    "tasks/update needs params.inputResponses (an object keyed like inputRequests)",
                                    boost::json::object{{"code", "INPUT_RESPONSES_INVALID"}}));
    if (!*r) {
        auto table = shared();
        if (!table) return c_.send_error(req.id, unknown_task());
        c_.dispatcher.answer_async(
            req.id, "tasks/update",
            remote_update(std::move(table), std::move(id), c_.opts.caller.id,
                          json::detach(*responses_value).as_object()),
            [](reply a) { return a; }, c_.style_of());
        return;
    }
    auto checked = answers_for(**r, *responses);
    if (!checked) return c_.send_error(req.id, checked.error());
    if (!checked->empty()) take_answers(*c_.core, id, std::make_shared<answers_list>(std::move(*checked)));
    c_.send_result(req.id, acknowledgement(), c_.style_of());
}

void detail::task_desk::on_tasks_cancel(const rpc::request& req) {
    std::string id;
    auto r = task_of(req, id);
    if (!r) return c_.send_error(req.id, r.error());
    if (!*r) {
        auto table = shared();
        if (!table) return c_.send_error(req.id, unknown_task());
        c_.dispatcher.answer_async(
            req.id, "tasks/cancel",
            remote_cancel(std::move(table), std::move(id), c_.opts.caller.id, c_.core->opts.tasks.ttl),
            [](reply a) { return a; }, c_.style_of());
        return;
    }
    const auto t = wall_now();
    bool cancelled = false;
    c_.core->tasks->modify(id, t, [&](task_record& rec) {
        if (is_terminal(rec.status)) return false;  // idempotent: a terminal task stays as it is
        mark_cancelled(rec, t, c_.core->opts.tasks.ttl);
        cancelled = true;
        return true;
    });
    if (cancelled) {
        share(*c_.core, id);
        if (auto run = c_.core->find_run(id)) stop_run(run);
    }
    c_.send_result(req.id, acknowledgement(), c_.style_of());
}

}  // namespace candor::mcp
