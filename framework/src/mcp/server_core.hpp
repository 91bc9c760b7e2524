// SPDX-License-Identifier: BSL-1.0
#pragma once
// Server state shared by the server object and its connections, and the per-call state.
// Private to the mcp module.

#include <candor/mcp/server.hpp>

#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace candor::mcp::detail {

/// True for the methods of the stateless revision (`initialize`, `ping`, `logging/setLevel`,
/// `resources/subscribe` and `resources/unsubscribe` are not among them).
bool is_stateless_method(std::string_view method) noexcept;

struct server_core;
class connection_impl;
struct task_run;
struct pending_reply;

class registry_cache;

/// The checks of `server::preflight`, for the connection (no headers) and the server; the tool
/// is found in `registry` when there is one.
std::optional<request_refusal> preflight(const server_core& core, const jsonrpc::request& req,
                                         const header_lookup* headers, registry_cache* registry = nullptr);

/// Thrown out of a tool's request to the client on the stateless revision when the client has
/// not answered it yet: the call ends here and is answered `input_required`; its retry runs the
/// tool again with the answers. Not a std::exception, so a tool's `catch (std::exception&)`
/// does not swallow it (and one that swallows everything is answered `input_required` anyway).
struct input_required_signal {};

/// The most bytes `_meta.traceparent`, `tracestate` or `baggage` may hold (W3C Baggage's
/// limit; the others are far shorter).
inline constexpr std::size_t max_trace_context_bytes = 8192;

/// W3C Trace Context from the request's `_meta` (any revision), when well formed; cleared
/// otherwise (a malformed value is dropped, not recorded).
/// @return the refusal of a value larger than `max_trace_context_bytes` (`-32602`,
///         `TRACE_CONTEXT_TOO_LARGE`)
std::optional<jsonrpc::error_object> trace_context(const jsonrpc::request& req, std::string& traceparent,
                                                   std::string& tracestate);

/// True when `client_info` names the same client (name and version) as `s`.
bool same_client(const session_info& s, const boost::json::object& client_info);

/// `{name, version, title?}`: the server's `Implementation`.
boost::json::object server_identity(const server_options& o);
/// `,"resultType":"complete","_meta":{serverInfo}`: what a stateless `tools/call` result ends with.
std::string stateless_call_fields(const server_options& o);
/// The error of a call whose caller lacks scopes the tool requires (`INSUFFICIENT_SCOPE`).
issue insufficient_scope(const tool_info& info, std::vector<std::string> missing);

/// `TOO_MANY_TASKS`: `limit` and `scope` ("server" or "principal").
/// @param across_replicas counted on every replica (the shared task table), not this one only
issue too_many_tasks(const task_options& o, bool server_wide, bool across_replicas);

/// 128 random bits as hex: ids nobody can guess (task ids, question nonces, replica ids).
std::string random_id();

struct server_core {
    explicit server_core(server_options o) : opts(std::move(o)), call_fields(stateless_call_fields(opts)) {
        if (!opts.log) opts.log = [](log_level, std::string_view) {};
        tasks = opts.tasks.store ? opts.tasks.store : make_memory_task_store();
    }

    server_options opts;
    /// `stateless_call_fields(opts)`, written once: the server's identity does not change.
    const std::string call_fields;

    // Guards the registries and `connections` only; held for lookups and copies of shared
    // pointers, never while a tool, reader or prompt runs or a message is sent.
    mutable std::mutex mu;
    std::map<std::string, std::shared_ptr<tool_handler>, std::less<>> tools;
    /// Tools with `x-mcp-header` parameters, by name.
    std::map<std::string, std::shared_ptr<const std::vector<header_param>>, std::less<>> tool_headers;
    /// Counts the changes to `tools`, `tool_headers` and `opts.observers` (written under `mu`):
    /// a `registry_cache` remakes its snapshot when it moved.
    std::atomic<std::uint64_t> generation{0};
    std::vector<std::weak_ptr<connection_impl>> connections;

    struct resource_entry {
        resource_info info;
        resource_reader read;
    };
    struct template_entry {
        resource_template_info info;
        resource_reader read;
    };
    struct prompt_entry {
        prompt_info info;
        prompt_function get;
    };
    std::map<std::string, std::shared_ptr<const resource_entry>, std::less<>> resources;  // by URI
    std::map<std::string, std::shared_ptr<const template_entry>, std::less<>> templates;  // by template
    std::map<std::string, std::shared_ptr<const prompt_entry>, std::less<>> prompts;      // by name
    /// A published skill: `info` is its `skills/list` entry.
    struct skill_record {
        boost::json::object info;
    };
    std::map<std::string, std::shared_ptr<const skill_record>, std::less<>> skills;  // by SKILL.md URI
    /// A file of a published skill (several skills list a nested skill's files).
    struct skill_file_record {
        resource_info info;
        std::string digest;
    };
    std::map<std::string, skill_file_record, std::less<>> skill_files;  // by URI
    /// Said once: a tool asked the client something on the stateless revision without a sealer.
    std::atomic<bool> warned_no_sealer{false};
    // by "p:" + prompt name or "r:" + URI template
    std::map<std::string, std::shared_ptr<const completion_function>, std::less<>> completions;

    /// The task table (`opts.tasks.store`, or this process's own).
    std::shared_ptr<task_store> tasks;
    /// Tasks whose tool runs in this process, by id. Guarded by `tasks_mu` (lookups only).
    mutable std::mutex tasks_mu;
    std::map<std::string, std::shared_ptr<task_run>, std::less<>> task_runs;
    std::shared_ptr<task_run> find_run(std::string_view id) const;
    /// This server's name as the holder of the tasks it runs (`opts.tasks.shared`).
    const std::string replica_id = random_id();
    /// The version of this holder's next publication of a task (grows with every one).
    std::atomic<std::uint64_t> task_version{static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count())};
    /// A loop renews the leases of the tasks this server runs (guarded by `tasks_mu`).
    bool renewing_leases = false;

    /// The replicas' notice feed (`server::set_shared_notices`) and its options, and whether a
    /// loop reads it now. Guarded by `mu`.
    std::shared_ptr<shared_notices> notices;
    shared_notice_options notice_options;
    bool reading_notices = false;
    /// A client has connected: from then on, a registry change is news for the other replicas'
    /// clients (the tools a replica registers as it starts are not).
    bool serving = false;

    /// Every live connection told of changes (copied out under the lock).
    std::vector<std::shared_ptr<connection_impl>> live_connections() const;
    /// Tell `c` of changes from now on (list_changed, resources/updated); with a notice feed,
    /// read the other replicas' while a connection listens (notices.cpp).
    void enlist(std::weak_ptr<connection_impl> c);
    /// Tell `c` of changes no more (it closed, or its client will send nothing more): a loop
    /// that reads other replicas' notices for it ends at its next turn.
    void withdraw(const connection_impl* c);
    /// Tell every live connection that a registry changed (`method`: its list_changed), and the
    /// other replicas.
    void notify_list_changed(std::string_view method) const;
    /// Tell every live connection that resource `uri` changed, and the other replicas.
    void notify_resource_updated(const std::string& uri) const;
    /// Write `n` to the notice feed, if there is one (notices.cpp).
    void share(notice n) const;
    /// Act on a notice of another replica, as if it were raised here (notices.cpp).
    void deliver(const notice& n) const;

    /// Add `entry` to `registry` under `key` and tell initialized clients with `list_changed`.
    template <class Map, class Entry>
    boost::system::result<void, registration_error> add_entry(Map& registry, std::string key, Entry entry,
                                                              std::string_view list_changed) {
        {
            std::lock_guard lock(mu);
            if (!registry.emplace(std::move(key), std::move(entry)).second) return registration_error::duplicate_name;
        }
        notify_list_changed(list_changed);
        return {};
    }

    std::shared_ptr<tool_handler> find(std::string_view name) const;

    struct page {
        std::vector<std::shared_ptr<tool_handler>> tools;
        std::optional<std::string> next_cursor;
    };
    /// One page of tools in name order after the cursor's position; nothing for a cursor
    /// this server did not issue.
    std::optional<page> list(const std::optional<std::string>& cursor) const;
};

/// The observers a connection or a call reports to: a list shared by many and never changed,
/// so that handing it on copies one pointer, not a reference to each observer.
class observer_set {
public:
    using list = std::vector<std::shared_ptr<call_observer>>;
    observer_set() = default;
    explicit observer_set(std::shared_ptr<const list> l) : list_(std::move(l)) {}
    const list& get() const noexcept {
        static const list none;
        return list_ ? *list_ : none;
    }
    list::const_iterator begin() const noexcept { return get().begin(); }
    list::const_iterator end() const noexcept { return get().end(); }
    bool empty() const noexcept { return get().empty(); }
    std::size_t size() const noexcept { return get().size(); }

private:
    std::shared_ptr<const list> list_;
};

/// What a call reads of the registry — the tools, their mirrored headers, the observers — as of
/// one generation, with the core.
struct registry_snapshot {
    std::shared_ptr<server_core> core;
    std::uint64_t generation = 0;
    std::map<std::string, std::shared_ptr<tool_handler>, std::less<>> tools;
    std::map<std::string, std::shared_ptr<const std::vector<header_param>>, std::less<>> tool_headers;
    observer_set::list observers;
};

/// One thread's view of the registry (`connection_options::registry`). Its snapshot is made by
/// that thread and referenced by the requests it serves, through pointers that share the
/// snapshot's count: finding a tool takes no lock, and no reference count another thread
/// writes. Used on one thread at a time; a change to the registry is seen at the next look.
class registry_cache {
public:
    explicit registry_cache(std::shared_ptr<server_core> core) : core_(std::move(core)) {}
    /// The registry as it is now (remade when it changed since the last look).
    const std::shared_ptr<const registry_snapshot>& now();

private:
    std::shared_ptr<server_core> core_;
    std::shared_ptr<const registry_snapshot> snap_;
};

/// `method` if it is one the server knows (a static string), else "other".
std::string_view known_method(std::string_view method) noexcept;

/// A request id as text for records and logs: a number's digits, a string capped at 64 bytes.
std::string request_id_text(const jsonrpc::request_id& id);

/// One page of `m` (a name-ordered map) after the cursor's position, under the lock.
/// @return the entries and the next cursor; nothing for a cursor not issued for `list`
template <class Map>
std::optional<std::pair<std::vector<typename Map::mapped_type>, std::optional<std::string>>> page_of(
    const Map& m, std::string_view list, const std::optional<std::string>& cursor, std::size_t size);

/// The tool's `tools/list` entry under `rules`.
boost::json::object describe(const tool_handler& tool, const protocol_rules& rules);

/// Opaque list cursors: the last name of the page, encoded. Keyset, so a cursor stays valid
/// when tools are added or removed between pages.
std::string seal_list_cursor(std::string_view last_name);
std::optional<std::string> open_list_cursor(std::string_view cursor);
/// The same for another list (`list` names it, so a cursor of one list is refused by another);
/// the key is any text up to 2048 bytes.
std::string seal_cursor(std::string_view list, std::string_view last_key);
std::optional<std::string> open_cursor(std::string_view list, std::string_view cursor);

template <class Map>
std::optional<std::pair<std::vector<typename Map::mapped_type>, std::optional<std::string>>> page_of(
    const Map& m, std::string_view list, const std::optional<std::string>& cursor, std::size_t size) {
    std::optional<std::string> after;
    if (cursor) {
        after = open_cursor(list, *cursor);
        if (!after) return std::nullopt;
    }
    if (size == 0) size = 1;
    std::vector<typename Map::mapped_type> out;
    auto it = after ? m.upper_bound(*after) : m.begin();
    std::string last;
    for (; it != m.end() && out.size() < size; ++it) {
        out.push_back(it->second);
        last = it->first;
    }
    std::optional<std::string> next;
    if (it != m.end()) next = seal_cursor(list, last);
    return std::make_pair(std::move(out), std::move(next));
}

/// A request to the client answered in an earlier round (stateless revision).
struct answered_input {
    std::string digest{};  ///< of the request it answers (method and params)
    boost::json::object result{};
    bool used = false;  ///< handed to the tool in this run
    /// The question's nonce, drawn when it was asked: the same answer presented again (a
    /// replayed retry) has the same one. Empty for an answer sent before it was asked.
    std::string nonce{};
    /// Until when a retry can present this answer: the expiry of the request state it was sent
    /// with (milliseconds since the epoch); later states carry it with that expiry, not theirs.
    std::int64_t expiry_ms = 0;
};

/// A request to the client the tool made in this run and no answer was there for.
struct asked_input {
    std::string key;  ///< its key in `inputRequests` (the tool's, or one the framework chose)
    std::string method;
    boost::json::object params;
    std::string digest;
};

/// Who gave the last answer a call got from the client, for single use: an approval's answer
/// is recorded under `id` until `replayable_until`, after which no retry can present it again.
struct answer_identity {
    /// Empty for an answer sent before it was asked (stateless revision, no `requestState`).
    std::string id;
    std::chrono::system_clock::time_point replayable_until{};
};

/// The smallest result budget a request may ask for; a smaller one is raised to it.
inline constexpr std::size_t min_result_bytes = 1024;

/// The text block of `result_text::summary`: the verdict, counts, reasons, continuation,
/// warnings and errors, one line each, then the data as JSON when it fits in `room` bytes (as
/// escaped in the text block); never more than `room` when the lines themselves fit.
std::string summarize(const envelope::envelope& e, std::size_t room);

/// The error of a result over its budget that nothing can be cut in (`RESULT_TOO_LARGE`).
envelope::envelope result_too_large(std::size_t bytes, std::size_t limit);

/// `e` as it fits `budget`: itself when it does; else with its longest strings cut at a UTF-8
/// boundary (`FIELD_TRUNCATED` warnings, `RESULT_SIZE_LIMIT`, `complete: false`; `rest` says
/// how to get the rest); else a `RESULT_TOO_LARGE` error. An `INTERNAL_ERROR` when it cannot
/// be written at all. @pre `envelope::check(e)` succeeded
envelope::envelope fit_to_budget(const envelope::envelope& e, const result_budget& budget, std::string_view tool,
                                 const std::string& rest);

/// Multi round-trip state of one stateless call: the answers it was retried with, and what it
/// asks for now. A tool runs again from the start on each retry and gets, for each request it
/// makes, the answer to the same request (method and params) from an earlier round.
struct input_round {
    std::shared_ptr<const state_sealer> sealer;
    std::vector<answered_input> answered;
    std::vector<asked_input> asked;
    /// `inputResponses` of a request without `requestState` (the client answered questions
    /// before being asked, or the result it answers carried no state): taken by key, for the
    /// question asked under that key, when well formed for its method.
    boost::json::object unbound;
    /// Binds the sealed state to this request (method, target, arguments) and caller: computed
    /// at once when a state comes in, otherwise when the run first asks the client something
    /// (most calls never do, and then cost no digest).
    std::string binding;
    std::string caller;
    /// What `bind` computes the bindings from, until it has; `arguments` lives as long as the run.
    struct unbound_request {
        std::string method;
        const boost::json::value* arguments = nullptr;
    };
    std::optional<unbound_request> pending;
    /// Computes `binding` and `caller` if still pending. @param target the request's tool,
    /// prompt or URI (its call state's `tool_name`)
    void bind(const principal& who, std::string_view target);
    /// 0 for the first attempt, n for the n-th retry.
    std::int64_t round = 0;
};

/// Canonical JSON text of `v` (object keys sorted, integral numbers as integers), so that a
/// retried request whose client re-serialized it still matches. Explicit stack; false past
/// `json::depth_ceiling`.
bool canonical_json(const boost::json::value& v, std::string& out);

/// Keyed digests binding a sealed request state to its request (method, target, arguments),
/// a question (method and params) and a caller.
std::string request_binding(const state_sealer& sealer, std::string_view method, std::string_view target,
                            const boost::json::value& arguments);
std::string question_digest(const state_sealer& sealer, std::string_view method, const boost::json::object& params);
std::string caller_binding(const state_sealer& sealer, const principal& caller);

/// The `inputRequests` key of the `index`-th question of a run ("elicitation_1", …).
std::string input_key(std::string_view method, std::size_t index);

/// True when `result` has the shape the specification gives the answer to `method`
/// (ElicitResult, CreateMessageResult, ListRootsResult).
bool well_formed_answer(std::string_view method, const boost::json::object& result);

/// What observers need to know about a call besides its answer.
struct call_origin {
    std::chrono::steady_clock::time_point received{};
    std::size_t bytes_in = 0;
    std::shared_ptr<const tool_handler> tool{};
    /// Who the client is for this request (the session's, or the stateless request's own).
    std::shared_ptr<const session_info> session{};
    /// The request is of the stateless revision: its result carries `resultType` and
    /// `_meta` (serverInfo).
    bool stateless = false;
    /// W3C Trace Context from the request's `_meta` (any revision), for the records.
    std::string traceparent{};
    std::string tracestate{};
    /// A tool call's result budget in bytes (0: none), and whether the request asked for
    /// less than the floor and was raised to it (a warning says so).
    std::size_t max_result_bytes = 0;
    bool result_budget_raised = false;
};

/// Tool-call deadlines of a connection, earliest first.
using deadline_queue = std::multimap<std::chrono::steady_clock::time_point, jsonrpc::request_id>;

/// State of one tool call, shared by the connection (for cancellation and the answer), the
/// call's coroutine and its `call_context`. Touched on the connection's strand only.
class call_state {
public:
    explicit call_state(std::weak_ptr<connection_impl> c) : conn(std::move(c)) {}
    call_state(const call_state&) = delete;
    call_state& operator=(const call_state&) = delete;
    /// The call is over for observers (answered, cancelled or abandoned): in-flight ends.
    ~call_state() {
        for (const auto& o : observers) o->on_call_finished();
    }

    std::weak_ptr<connection_impl> conn;
    /// Where the call's notifications go (the request it runs for).
    message_route route;
    std::string tool_name;
    call_origin origin;
    observer_set observers;
    std::chrono::steady_clock::time_point deadline;
    /// `_meta.progressToken` of the request (copied out of the document).
    std::optional<boost::json::value> progress_token;
    std::optional<double> last_progress;
    mcp::principal caller;
    std::shared_ptr<const session_info> session;  // the connection's, shared
    boost::asio::any_io_executor executor;
    /// Keeps the arguments (and values a tool copied from them) alive until the answer is sent.
    std::shared_ptr<const json::document> doc;
    boost::asio::cancellation_signal signal;
    /// Its entry in the connection's deadline queue while it has one.
    std::optional<deadline_queue::iterator> deadline_entry;
    /// The call has been answered (deadline) or must never be (client cancellation).
    bool answered = false;
    bool cancelled = false;
    /// Stateless revision: log messages only at or above `log_threshold` (none without one),
    /// and requests to the client are answered from `inputs` or become an `input_required`
    /// result (no `inputs`: no sealer is configured, and they are `not_supported`).
    bool stateless = false;
    std::optional<log_level> log_threshold;
    std::optional<input_round> inputs;
    /// Tasks extension: the task this call's request reserved (until the call first waits), and
    /// once it runs as that task, the task's live state (requests to the client then wait for
    /// `tasks/update`).
    std::string task_id;
    std::shared_ptr<task_run> task;

    void send_progress(double done, std::optional<double> total, std::string message);
    void send_log(log_level level, std::string message, boost::json::object data);

    /// Send `method` to the client on this call's route and register the wait for its reply
    /// (client_request.cpp). @return the request's id and its pending entry, or why not
    boost::system::result<std::pair<jsonrpc::request_id, std::shared_ptr<pending_reply>>, client_request_error>
    send_request(const std::string& method, const boost::json::object& params, std::chrono::milliseconds timeout,
                 std::string key = {});
    /// The wait for request `id` ended without a reply: forget it and send
    /// `notifications/cancelled` for it.
    void abandon_request(const jsonrpc::request_id& id, bool timed_out);
    /// Stateless revision: the answer to `method(params)` from an earlier round, `not_supported`
    /// when the client lacks the capability (or no sealer is configured), or nothing — then
    /// the question joins this round's `input_required` result (it takes `method` and `params`).
    std::optional<boost::system::result<boost::json::object, client_request_error>> answer_from_inputs(
        std::string& method, boost::json::object& params, std::string key = {});
    /// Of the answer `request_client` returned last (read by `call_context::elicit`).
    answer_identity last_answer;
    /// `call_context::budget`.
    std::optional<result_budget> budget() const;
};

/// The live part of a task whose tool is running: what only the process that runs it can do
/// (cancel it, hand answers to the requests it awaits). Touched on `executor` only, except the
/// constant members.
struct task_run {
    task_run(std::string task_id, boost::asio::any_io_executor ex, std::weak_ptr<server_core> c)
        : id(std::move(task_id)), executor(std::move(ex)), core(std::move(c)), deadline(executor) {}
    const std::string id;
    const boost::asio::any_io_executor executor;
    const std::weak_ptr<server_core> core;
    std::weak_ptr<call_state> call;
    boost::asio::steady_timer deadline;
    bool deadline_passed = false;
    /// The requests to the client the tool awaits, by key, and the key of each by its id.
    std::map<std::string, std::shared_ptr<pending_reply>, std::less<>> open;
    std::map<jsonrpc::request_id, std::string> key_of;
    /// Every key used in this task: keys are unique over its life.
    std::set<std::string, std::less<>> used_keys;
    std::int64_t next_id = 1;
    /// The record of its creation, the start of the record of its end.
    call_record record;
    observer_set observers;
    std::chrono::steady_clock::time_point received;
};

/// The call's tool ended while it ran as a task: store its outcome (unless the task was
/// cancelled) and record the task's end (tasks.cpp).
void end_task(call_state& state, std::exception_ptr ep, tool_outcome out);

/// A request to the client from a call running as a task: it joins the task's `inputRequests`
/// (status `input_required`) and waits for `tasks/update` (tasks.cpp).
boost::system::result<std::pair<jsonrpc::request_id, std::shared_ptr<pending_reply>>, client_request_error> ask_in_task(
    call_state& state, const std::string& method, const boost::json::object& params, std::chrono::milliseconds timeout,
    std::string key);
/// The wait for request `id` of a task ended without an answer: it leaves `inputRequests`.
void abandon_in_task(task_run& run, const jsonrpc::request_id& id);

/// True when the client capabilities declare `extensions["io.modelcontextprotocol/tasks"]`.
bool declares_tasks_extension(const boost::json::object& client_capabilities);
/// -32021 naming the tasks extension in `data.requiredCapabilities`.
jsonrpc::error_object tasks_extension_required(std::string message);
/// `tasks/get`, `tasks/update` or `tasks/cancel`.
bool is_task_method(std::string_view method) noexcept;
/// Add `extensions["io.modelcontextprotocol/tasks"]` to `server/discover`'s capabilities.
void advertise_tasks(boost::json::object& capabilities);
/// A resource's `resources/list` entry under `rules` (resource.cpp).
boost::json::object describe_resource(const resource_info& r, const protocol_rules& rules);
/// Add the skills extension, with `directoryRead`, to `capabilities.extensions` (skills.cpp).
void advertise_skills(boost::json::object& capabilities);

/// Fill `r` with the facts of the checked envelope `e` (status, codes, limits; the metadata
/// object when `with_meta`), never a message or the data.
void record_envelope(call_record& r, const envelope::envelope& e, bool with_meta);

/// The issue of a call stopped at its deadline (`DEADLINE_EXCEEDED`).
issue deadline_exceeded_issue();

/// A request this server sent to the client, awaiting its reply. The awaiting coroutine
/// sleeps on `timer` (expiring at the timeout); the reply, the connection closing or the
/// call's cancellation wakes it. Touched on the connection's strand only.
struct pending_reply {
    explicit pending_reply(const boost::asio::any_io_executor& s) : timer(s) {}
    boost::asio::steady_timer timer;
    std::optional<boost::system::result<boost::json::object, client_request_error>> outcome;
};

/// What an exception says ("unknown exception" for one that is not a std::exception).
std::string what_of(std::exception_ptr ep);

/// A list method's answer: one page of `registry` (keyed by name) after `params.cursor`,
/// `{<key>: [describe(entry)…], nextCursor?}`, or -32602 for a bad cursor.
template <class Map, class Describe>
std::variant<boost::json::object, jsonrpc::error_object> list_page(const server_core& core, const Map& registry,
                                                                   const boost::json::object* params,
                                                                   std::string_view list, std::string_view key,
                                                                   Describe describe);

/// `params[key]` if it is a string, else null.
inline const boost::json::string* string_param(const boost::json::object* params, std::string_view key) {
    const auto* v = params ? params->if_contains(key) : nullptr;
    return v ? v->if_string() : nullptr;
}

/// `params.cursor` of a list request: nothing, or the text. @return false if it is not a string
inline bool read_cursor(const boost::json::object* params, std::optional<std::string>& cursor) {
    const auto* c = params ? params->if_contains("cursor") : nullptr;
    if (!c) return true;
    if (!c->is_string()) return false;
    cursor = std::string(c->get_string());
    return true;
}

/// A JSON-RPC error for a request (`-32602` and friends).
inline jsonrpc::error_object invalid_params(std::string text) {
    return jsonrpc::error_object::make(jsonrpc::error_code::invalid_params, std::move(text));
}

/// One reader, prompt or completer running: answered once, by its result or by its deadline.
struct async_answer {
    explicit async_answer(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    boost::asio::cancellation_signal stop;
    bool answered = false;
};

/// The error a request past its deadline gets (`-32001`, `data.code` `DEADLINE_EXCEEDED`).
jsonrpc::error_object deadline_error(std::string_view what, std::chrono::milliseconds limit);

template <class Map, class Describe>
std::variant<boost::json::object, jsonrpc::error_object> list_page(const server_core& core, const Map& registry,
                                                                   const boost::json::object* params,
                                                                   std::string_view list, std::string_view key,
                                                                   Describe describe) {
    std::optional<std::string> cursor;
    if (!read_cursor(params, cursor)) return invalid_params("cursor must be a string");
    decltype(page_of(registry, list, cursor, 0)) page;
    {
        std::lock_guard lock(core.mu);
        page = page_of(registry, list, cursor, core.opts.list_page_size);
    }
    if (!page) return invalid_params("invalid cursor: pass a nextCursor from an earlier list request");
    boost::json::array items;
    for (const auto& e : page->first) items.emplace_back(describe(e->info));
    boost::json::object result{{key, std::move(items)}};
    if (page->second) result["nextCursor"] = *page->second;
    return result;
}

}  // namespace candor::mcp::detail
