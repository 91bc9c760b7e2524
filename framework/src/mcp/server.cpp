// SPDX-License-Identifier: BSL-1.0
// The server object: its options, the tool registry's changes, the offline argument check, and
// opening connections (connection.cpp, dispatch.cpp and call.cpp are what a connection does).
#include "connection_impl.hpp"

#include <candor/contract/contract.hpp>

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
        case registration_error::invalid_skill: return "INVALID_SKILL";
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
    core_->generation.fetch_add(1, std::memory_order_release);
}

void server::set_request_state_sealer(std::shared_ptr<const state_sealer> sealer) {
    std::lock_guard lock(core_->mu);
    core_->opts.request_state_sealer = std::move(sealer);
}

void server::set_shared_tasks(std::shared_ptr<shared_task_table> table) {
    std::lock_guard lock(core_->tasks_mu);
    core_->opts.tasks.shared = std::move(table);
}

void server::set_shared_notices(std::shared_ptr<shared_notices> feed, shared_notice_options options) {
    std::lock_guard lock(core_->mu);
    core_->notices = std::move(feed);
    core_->notice_options = options;
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
    auto mirrored = header_params_of(tool->info().input_schema);
    if (!mirrored) {
        core_->opts.log(log_level::error, "tool " + name + " refused: " + mirrored.error());
        return registration_error::invalid_header_annotation;
    }
    {
        std::lock_guard lock(core_->mu);
        if (core_->tools.count(name)) return registration_error::duplicate_name;
        if (!mirrored->empty())
            core_->tool_headers.insert_or_assign(
                name, std::make_shared<const std::vector<header_param>>(std::move(*mirrored)));
        core_->tools.emplace(name, std::move(tool));
        core_->generation.fetch_add(1, std::memory_order_release);
    }
    core_->notify_list_changed("notifications/tools/list_changed");
    return {};
}

bool server::remove_tool(std::string_view name) {
    {
        std::lock_guard lock(core_->mu);
        auto it = core_->tools.find(name);
        if (it == core_->tools.end()) return false;
        core_->tools.erase(it);
        if (auto h = core_->tool_headers.find(name); h != core_->tool_headers.end()) core_->tool_headers.erase(h);
        core_->generation.fetch_add(1, std::memory_order_release);
    }
    core_->notify_list_changed("notifications/tools/list_changed");
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
    auto scanned = json::scan(arguments_text, lim);
    if (!scanned) return issue_list{contract::intake_issue(scanned.error())};
    if (!scanned->violations.empty()) {
        issue_list issues;
        for (const auto& v : scanned->violations) issues.push_back(contract::intake_issue(v));
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

std::shared_ptr<detail::registry_cache> server::make_registry_cache() const {
    return std::make_shared<detail::registry_cache>(core_);
}

std::shared_ptr<connection> server::connect_routed(boost::asio::any_io_executor ex,
                                                   connection::routed_send_function send, connection_options opts) {
    // A connection for one request holds the core through its thread's snapshot (a count on
    // that thread's cache line); one that lives on holds it directly, and keeps no snapshot
    // (nor a tool removed since) alive.
    std::shared_ptr<detail::server_core> core;
    if (opts.registry && opts.single_request) {
        const auto& snap = opts.registry->now();
        core = std::shared_ptr<detail::server_core>(snap, snap->core.get());
    } else {
        core = core_;
    }
    std::shared_ptr<connection> c(new connection(std::move(core), std::move(ex), std::move(send), std::move(opts)));
    c->impl_->adopt(c);
    if (!c->impl_->opts.single_request) core_->enlist(c->impl_->weak_from_this());
    return c;
}

}  // namespace candor::mcp
