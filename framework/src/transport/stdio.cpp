// GCC 12 reports a "potential null pointer dereference" inside Asio's any_executor when it
// compares io_context executors; the warning is in library code instantiated here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <candor/transport/stdio.hpp>

#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace candor::transport {

namespace {

// Outbound messages are written by a thread of their own, so a client that reads slowly never
// blocks the threads that run the server. Order is kept: one queue, one writer.
class line_writer {
public:
    explicit line_writer(int fd) : fd_(fd), thread_([this] { run(); }) {}
    ~line_writer() { finish(); }

    void push(std::string message) {
        {
            std::lock_guard lock(mutex_);
            if (closing_) return;
            queue_.push_back(std::move(message));
        }
        ready_.notify_one();
    }

    /// Write what is queued, then stop. @return false if the output failed
    bool finish() {
        {
            std::lock_guard lock(mutex_);
            closing_ = true;
        }
        ready_.notify_one();
        if (thread_.joinable()) thread_.join();
        return !failed_;
    }

private:
    // Whatever is queued when the writer wakes goes out in one write(2): under load, replies
    // finish in bursts, and one system call per burst costs far less than one per message.
    void run() {
        std::deque<std::string> batch;
        std::string buffer;
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return closing_ || !queue_.empty(); });
                if (queue_.empty()) return;
                batch.swap(queue_);
            }
            if (batch.size() == 1) {
                batch.front().push_back('\n');
                if (!failed_ && !write_all(batch.front())) failed_ = true;
            } else {
                buffer.clear();
                for (auto& m : batch) {
                    buffer += m;
                    buffer.push_back('\n');
                    // Keep one system call from holding megabytes.
                    if (buffer.size() >= (1u << 20)) {
                        if (!failed_ && !write_all(buffer)) failed_ = true;
                        buffer.clear();
                    }
                }
                if (!failed_ && !write_all(buffer)) failed_ = true;
                if (buffer.capacity() > (4u << 20)) buffer = std::string();
            }
            batch.clear();
        }
    }

    bool write_all(std::string_view data) {
        while (!data.empty()) {
            const ssize_t n = ::write(fd_, data.data(), data.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                return false;
            }
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    int fd_;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::string> queue_;
    bool closing_ = false;
    std::atomic<bool> failed_{false};
    std::thread thread_;
};

std::string too_large_error(std::size_t limit) {
    jsonrpc::error_object e;
    e.code = -32700;
    e.message = "message is larger than " + std::to_string(limit) + " bytes";
    e.data = boost::json::value(boost::json::object{{"code", "INPUT_TOO_LARGE"}, {"limit", limit}});
    return jsonrpc::encode_error(std::nullopt, e);
}

}  // namespace

int serve_stdio(mcp::server& srv, const stdio_options& opts) {
    const std::size_t max_line = opts.max_line_bytes.value_or(srv.options().message_limits.max_bytes);
    boost::asio::io_context ioc;
    auto work = boost::asio::make_work_guard(ioc);
    line_writer out(opts.output_fd);

    auto conn = srv.connect(ioc.get_executor(), [&out](std::string m) { out.push(std::move(m)); },
                            opts.connection);

    boost::asio::signal_set signals(ioc);
    // Set on the io_context when input ended (or a signal asked us to stop).
    std::atomic<bool> input_ended{false};
    std::atomic<bool> cancel_calls{false};
    if (opts.handle_signals) {
        signals.add(SIGINT);
        signals.add(SIGTERM);
        signals.async_wait([&](boost::system::error_code ec, int) {
            if (ec) return;
            input_ended = true;
            cancel_calls = true;
        });
    }

    // The reader blocks in read(2), which works for pipes, terminals and regular files alike.
    // After a signal it may stay blocked on an open input while serve_stdio returns, so what it
    // shares with us lives in `link`, and it delivers nothing once `link->gone` is set.
    struct reader_link {
        std::mutex mutex;
        bool gone = false;
        bool done = false;
    };
    auto link = std::make_shared<reader_link>();
    auto deliver = [link, conn, &out](std::optional<std::string> message, bool error_line, std::size_t limit) {
        std::lock_guard lock(link->mutex);
        if (link->gone) return;
        if (error_line) {
            out.push(too_large_error(limit));
        } else if (message) {
            conn->receive(std::move(*message));
        }
    };
    auto finished = [link, &ioc, &input_ended] {
        std::lock_guard lock(link->mutex);
        link->done = true;
        if (!link->gone) boost::asio::post(ioc, [&input_ended] { input_ended = true; });
    };
    std::thread reader([fd = opts.input_fd, max_line, deliver, finished] {
        std::string line;
        bool discarding = false;
        std::vector<char> buf(64 * 1024);
        for (;;) {
            const ssize_t n = ::read(fd, buf.data(), buf.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
            while (!chunk.empty()) {
                const auto nl = chunk.find('\n');
                const std::string_view part = chunk.substr(0, nl);
                if (!discarding) {
                    if (line.size() + part.size() > max_line) {
                        discarding = true;
                        line = std::string();
                    } else {
                        line.append(part);
                    }
                }
                if (nl == std::string_view::npos) break;
                chunk.remove_prefix(nl + 1);
                if (discarding) {
                    deliver(std::nullopt, true, max_line);
                    discarding = false;
                    continue;
                }
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (!line.empty()) deliver(std::move(line), false, max_line);
                line = std::string();
            }
        }
        if (discarding) {
            deliver(std::nullopt, true, max_line);
        } else if (!line.empty()) {
            deliver(std::move(line), false, max_line);  // a last message without its newline
        }
        finished();
    });

    std::vector<std::thread> pool;
    for (std::size_t i = 1; i < opts.threads; ++i) pool.emplace_back([&] { ioc.run(); });

    // Serve until the input ends; then let the calls in flight finish within the grace period
    // (run_for returns as soon as no work is left), and cancel whatever still runs after it.
    while (!input_ended && !ioc.stopped()) ioc.run_one();
    signals.cancel();
    work.reset();
    if (cancel_calls) conn->close();
    ioc.run_for(opts.shutdown_grace);
    if (!ioc.stopped()) {
        conn->close();
        ioc.run_for(std::chrono::seconds(5));  // cancelled calls answer and unwind
        ioc.stop();
    }
    for (auto& t : pool) t.join();

    bool reader_finished;
    {
        std::lock_guard lock(link->mutex);
        link->gone = true;
        reader_finished = link->done;
    }
    conn->close();
    const bool ok = out.finish();
    if (reader_finished) {
        reader.join();
    } else {
        reader.detach();  // blocked on an open input after a signal; it will deliver nothing
    }
    return ok ? 0 : 1;
}

}  // namespace candor::transport
