#pragma once
// Server state shared by the server object and its connections, and the per-call state.
// Private to the mcp module.

#include <candor/mcp/server.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/value.hpp>
#include <boost/system/result.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace candor::mcp::detail {

struct server_core {
    explicit server_core(server_options o) : opts(std::move(o)) {
        if (!opts.log) opts.log = [](log_level, std::string_view) {};
    }

    server_options opts;

    // Guards `tools` and `connections` only; held for lookups and copies of shared pointers,
    // never while a tool runs or a message is sent.
    mutable std::mutex mu;
    std::map<std::string, std::shared_ptr<tool_handler>, std::less<>> tools;
    std::vector<std::weak_ptr<connection>> connections;

    std::shared_ptr<tool_handler> find(std::string_view name) const;

    struct page {
        std::vector<std::shared_ptr<tool_handler>> tools;
        std::optional<std::string> next_cursor;
    };
    /// One page of tools in name order after the cursor's position; nothing for a cursor
    /// this server did not issue.
    std::optional<page> list(const std::optional<std::string>& cursor) const;
};

/// `method` if it is one the server knows (a static string), else "other".
std::string_view known_method(std::string_view method) noexcept;

/// The tool's `tools/list` entry under `rules`.
boost::json::object describe(const tool_handler& tool, const protocol_rules& rules);

/// Opaque list cursors: the last name of the page, encoded. Keyset, so a cursor stays valid
/// when tools are added or removed between pages.
std::string seal_list_cursor(std::string_view last_name);
std::optional<std::string> open_list_cursor(std::string_view cursor);

/// State of one tool call, shared by the connection (for cancellation and the answer), the
/// call's coroutine and its `call_context`. Touched on the connection's strand only.
class call_state {
public:
    call_state(std::weak_ptr<connection> c, const boost::asio::strand<boost::asio::any_io_executor>& s)
        : conn(std::move(c)), timer(s) {}
    call_state(const call_state&) = delete;
    call_state& operator=(const call_state&) = delete;
    /// The call is over for observers (answered, cancelled or abandoned): in-flight ends.
    ~call_state() {
        for (const auto& o : observers) o->on_call_finished();
    }

    std::weak_ptr<connection> conn;
    /// Where the call's notifications go (the request it runs for).
    message_route route;
    std::string tool_name;
    connection::call_origin origin;
    std::vector<std::shared_ptr<call_observer>> observers;
    std::chrono::steady_clock::time_point deadline;
    /// `_meta.progressToken` of the request (copied out of the document).
    std::optional<boost::json::value> progress_token;
    std::optional<double> last_progress;
    mcp::principal caller;
    session_info session;
    boost::asio::any_io_executor executor;
    /// Keeps the arguments (and values a tool copied from them) alive until the answer is sent.
    std::shared_ptr<const json::document> doc;
    boost::asio::cancellation_signal signal;
    boost::asio::steady_timer timer;
    /// The call has been answered (deadline) or must never be (client cancellation).
    bool answered = false;
    bool cancelled = false;

    void send_progress(double done, std::optional<double> total, std::string message);
    void send_log(log_level level, std::string message, boost::json::object data);
};

}  // namespace candor::mcp::detail
