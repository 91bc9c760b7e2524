// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Where the tasks of the `io.modelcontextprotocol/tasks` extension are kept: the table of task
/// records the server reads for `tasks/get` and writes as a task's tool runs.
///
/// A record is what a client may see of a task (its status, outstanding questions, result or
/// error) and who owns it — never the tool's arguments. The running tool itself (its coroutine,
/// its cancellation, the questions it awaits) always lives in the process that runs it; the
/// table only holds what any replica could answer `tasks/get` from. The server's own table is
/// in this process (`make_memory_task_store`); a shared store implements the same interface.

#include <boost/json/object.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace candor::mcp {

/// The statuses of a task: `working → input_required ⇄ working → completed | failed | cancelled`.
enum class task_status { working, input_required, completed, failed, cancelled };

/// "working", "input_required", "completed", "failed" or "cancelled" (the wire names).
std::string_view to_string(task_status s) noexcept;
/// The status a wire name names, or none.
std::optional<task_status> task_status_from(std::string_view name) noexcept;

/// True for `completed`, `failed` and `cancelled`: a terminal status never changes again.
bool is_terminal(task_status s) noexcept;

/// One task as a client may see it, and who owns it.
struct task_record {
    /// Opaque, unguessable (128 random bits, hex).
    std::string id{};
    /// The principal that created it; nobody else sees it.
    std::string owner{};
    std::string tool{};
    task_status status = task_status::working;
    std::chrono::system_clock::time_point created{};
    std::chrono::system_clock::time_point updated{};
    std::string status_message{};
    /// `input_required`: the outstanding requests to the client by key (`{method, params}`).
    boost::json::object input_requests{};
    /// `completed`: the CallToolResult.
    boost::json::object result{};
    /// `failed`: the JSON-RPC error (`{code, message, data?}`).
    boost::json::object error{};
    /// Set when the task reaches a terminal status: from then on it is forgotten.
    std::optional<std::chrono::system_clock::time_point> expires{};
};

/// Why a task could not be created.
enum class task_refusal {
    server_full,     ///< `task_options::max_tasks` tasks are held already
    principal_full,  ///< the owner holds `task_options::max_tasks_per_principal` already
};

/// The task table. Thread-safe: called from every connection's strand and every task's. No call
/// blocks for longer than a table operation (the memory store takes a mutex for the map only).
class task_store {
public:
    virtual ~task_store() = default;

    /// Add `r` (a new id) unless the table holds `max_total` tasks, or `max_per_owner` of
    /// `r.owner`'s, that have not expired at `now`.
    /// @return nothing, or which limit refused it
    virtual boost::system::result<void, task_refusal> insert(task_record r, std::size_t max_total,
                                                             std::size_t max_per_owner,
                                                             std::chrono::system_clock::time_point now) = 0;

    /// A copy of task `id`, unless unknown or expired at `now`.
    virtual std::optional<task_record> find(std::string_view id, std::chrono::system_clock::time_point now) = 0;

    /// Change task `id` in place: `change` runs under the table's exclusion and returns whether
    /// it changed anything (it must not block or call back into the table).
    /// @return false if the task is unknown or expired at `now` (`change` did not run)
    virtual bool modify(std::string_view id, std::chrono::system_clock::time_point now,
                        const std::function<bool(task_record&)>& change) = 0;

    /// Forget task `id` (a task that was reserved but never handed to a client).
    virtual void erase(std::string_view id) = 0;
};

/// The task table of this process: a map under a mutex; expired tasks are dropped as the table
/// is used (no timer of its own).
std::shared_ptr<task_store> make_memory_task_store();

}  // namespace candor::mcp
