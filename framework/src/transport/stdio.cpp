// SPDX-License-Identifier: BSL-1.0
#include <candor/transport/stdio.hpp>

#include <candor/jsonrpc/encode.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/stat.h>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace candor::transport {

namespace {

// Writes all of `data`, waiting when the descriptor is non-blocking and full.
bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                pollfd p{fd, POLLOUT, 0};
                if (::poll(&p, 1, -1) < 0 && errno != EINTR) return false;
                continue;
            }
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Outbound messages are written by a thread of their own, so a client that reads slowly never
// blocks the threads that run the server. Order is kept: one queue, one writer.
//
// The writer is woken once per round of work, not once per message: `push` only queues, and the
// first push of a round posts a wake-up behind the handlers already queued on the io_context.
// On a busy core, waking the writer per message would hand the core to it after every reply
// (the scheduler lets a woken thread preempt), one write(2) and two context switches each.
class line_writer {
public:
    line_writer(int fd, boost::asio::io_context& ioc) : fd_(fd), ioc_(ioc), thread_([this] { run(); }) {}
    ~line_writer() { finish(); }

    void push(std::string message) {
        {
            std::lock_guard lock(mutex_);
            if (closing_) return;
            queue_.push_back(std::move(message));
        }
        if (!wake_posted_.exchange(true, std::memory_order_acq_rel)) boost::asio::post(ioc_, [this] { wake(); });
    }

    /// Write what is queued, then stop (whether or not a posted wake-up ran). @return false if
    /// the output failed
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
    void wake() {
        wake_posted_.store(false, std::memory_order_release);
        // Lock and unlock: a writer between its check and its wait cannot miss this.
        { std::lock_guard lock(mutex_); }
        ready_.notify_one();
    }

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
                if (!failed_ && !write_all(fd_, batch.front())) failed_ = true;
            } else {
                buffer.clear();
                for (auto& m : batch) {
                    buffer += m;
                    buffer.push_back('\n');
                    // Keep one system call from holding megabytes.
                    if (buffer.size() >= (1u << 20)) {
                        if (!failed_ && !write_all(fd_, buffer)) failed_ = true;
                        buffer.clear();
                    }
                }
                if (!failed_ && !write_all(fd_, buffer)) failed_ = true;
                if (buffer.capacity() > (4u << 20)) buffer = std::string();
            }
            batch.clear();
        }
    }

    int fd_;
    boost::asio::io_context& ioc_;
    std::atomic<bool> wake_posted_{false};
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

// The output when it is a pipe or a socket: written from the io_context, without a thread.
// Replies queue as they are (each with its newline, never copied into a common buffer); the
// first of a round posts a flush behind the handlers already queued, so a burst of replies
// leaves in one writev(2). A client that does not read makes the write return EAGAIN: the rest
// waits for the descriptor to become writable, and the server keeps serving meanwhile. At the
// end, `finish` writes what is left, blocking.
class reactor_writer {
public:
    reactor_writer(boost::asio::io_context& ioc, int fd)
        : ioc_(ioc), fd_(fd), flags_(::fcntl(fd, F_GETFL)), descriptor_(ioc) {}

    /// False if the descriptor could not be taken over (then a thread writes instead).
    bool start() {
        if (flags_ < 0) return false;
        const int copy = ::dup(fd_);
        if (copy < 0) return false;
        boost::system::error_code ec;
        descriptor_.assign(copy, ec);
        if (!ec) descriptor_.non_blocking(true, ec);
        if (ec) {
            descriptor_.close(ec);
            ::fcntl(fd_, F_SETFL, flags_);
            return false;
        }
        return true;
    }

    void push(std::string message) {
        message.push_back('\n');
        std::lock_guard lock(mutex_);
        if (closing_) return;
        queue_.push_back(std::move(message));
        if (!flush_posted_ && !waiting_) {
            flush_posted_ = true;
            boost::asio::post(ioc_, [this] {
                std::lock_guard flush_lock(mutex_);
                flush_posted_ = false;
                write_now();
            });
        }
    }

    /// After the io_context stopped: write what is left (blocking), give the descriptor its
    /// flags back. @return false if the output failed
    bool finish() {
        std::lock_guard lock(mutex_);
        closing_ = true;
        boost::system::error_code ignored;
        descriptor_.close(ignored);
        ::fcntl(fd_, F_SETFL, flags_);
        for (; !failed_ && !queue_.empty(); queue_.pop_front(), sent_ = 0)
            failed_ = !write_all(fd_, std::string_view(queue_.front()).substr(sent_));
        queue_.clear();
        return !failed_;
    }

private:
    // Called with the mutex held.
    void write_now() {
        // Enough messages per call that a burst leaves in one (a reply is a few kilobytes).
        constexpr std::size_t max_parts = 64;
        std::array<iovec, max_parts> parts;
        while (!queue_.empty()) {
            if (failed_ || closing_) return;
            std::size_t count = 0;
            for (auto it = queue_.begin(); it != queue_.end() && count < max_parts; ++it, ++count) {
                const std::size_t skip = count == 0 ? sent_ : 0;
                parts[count] = iovec{it->data() + skip, it->size() - skip};
            }
            const ssize_t n = ::writev(fd_, parts.data(), static_cast<int>(count));
            if (n >= 0) {
                std::size_t left = static_cast<std::size_t>(n);
                while (left > 0 && left >= queue_.front().size() - sent_) {
                    left -= queue_.front().size() - sent_;
                    queue_.pop_front();
                    sent_ = 0;
                }
                sent_ += left;
                continue;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                waiting_ = true;
                descriptor_.async_wait(boost::asio::posix::descriptor_base::wait_write,
                                       [this](boost::system::error_code ec) {
                                           std::lock_guard lock(mutex_);
                                           waiting_ = false;
                                           if (!ec) write_now();
                                       });
                return;
            }
            failed_ = true;
        }
    }

    boost::asio::io_context& ioc_;
    int fd_;
    int flags_;
    boost::asio::posix::stream_descriptor descriptor_;
    std::mutex mutex_;
    std::deque<std::string> queue_;  // each ends in a newline; sent_ bytes of the first are out
    std::size_t sent_ = 0;
    bool flush_posted_ = false;
    bool waiting_ = false;
    bool closing_ = false;
    bool failed_ = false;
};

// Cuts a byte stream into lines. A line longer than `max_line` is dropped as it is read (never
// buffered whole) and reported as an entry without a message.
class line_splitter {
public:
    explicit line_splitter(std::size_t max_line) : max_line_(max_line) {}

    template <class Sink>  // sink(std::optional<std::string>)
    void feed(std::string_view chunk, Sink&& sink) {
        while (!chunk.empty()) {
            const auto nl = chunk.find('\n');
            const std::string_view part = chunk.substr(0, nl);
            if (!discarding_) {
                if (line_.size() + part.size() > max_line_) {
                    discarding_ = true;
                    line_ = std::string();
                } else {
                    line_.append(part);
                }
            }
            if (nl == std::string_view::npos) return;
            chunk.remove_prefix(nl + 1);
            if (discarding_) {
                discarding_ = false;
                sink(std::optional<std::string>());
                continue;
            }
            if (!line_.empty() && line_.back() == '\r') line_.pop_back();
            if (!line_.empty()) sink(std::optional<std::string>(std::move(line_)));
            line_ = std::string();
        }
    }

    /// End of input: a last line without its newline is still a message.
    template <class Sink>
    void finish(Sink&& sink) {
        if (discarding_) {
            sink(std::optional<std::string>());
        } else if (!line_.empty()) {
            sink(std::optional<std::string>(std::move(line_)));
        }
        discarding_ = false;
        line_ = std::string();
    }

private:
    std::size_t max_line_;
    std::string line_;
    bool discarding_ = false;
};

// Pipes and sockets are read by the io_context itself (epoll): whatever arrived while the
// server was busy is taken in one read(2), with no thread to wake per message. Terminals and
// regular files (which epoll refuses) are read by a thread of their own.
bool pollable(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return false;
    return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

// Grows the pipe at `fd` to `bytes` if it is a smaller pipe (see stdio_options).
void grow_pipe(int fd, std::size_t bytes) {
    struct stat st {};
    if (bytes == 0 || bytes > static_cast<std::size_t>(INT_MAX) || ::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
        return;
    const int now = ::fcntl(fd, F_GETPIPE_SZ);
    if (now < 0 || static_cast<std::size_t>(now) >= bytes) return;
    (void)::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(bytes));  // refused: stays as it was
}

class reactor_reader : public std::enable_shared_from_this<reactor_reader> {
public:
    // `flags`: the descriptor's flags before the transport touched it (the writer may have made
    // it non-blocking already when stdin and stdout are one socket).
    reactor_reader(boost::asio::io_context& ioc, int fd, int flags, std::size_t max_line,
                   std::shared_ptr<mcp::connection> conn, std::function<void(std::string)> send,
                   std::atomic<bool>& input_ended)
        : fd_(fd),
          flags_(flags),
          descriptor_(ioc),
          split_(max_line),
          max_line_(max_line),
          conn_(std::move(conn)),
          send_(std::move(send)),
          input_ended_(input_ended) {}

    /// False if the descriptor could not be taken over (then a thread reads instead).
    bool start() {
        const int copy = ::dup(fd_);  // the descriptor closes its copy; the caller's fd stays open
        if (copy < 0 || flags_ < 0) {
            if (copy >= 0) ::close(copy);
            return false;
        }
        boost::system::error_code ec;
        descriptor_.assign(copy, ec);
        if (ec) {
            ::close(copy);
            return false;
        }
        read();
        return true;
    }

    /// Stop reading.
    void stop() {
        boost::system::error_code ignored;
        descriptor_.close(ignored);
    }

    /// The pipe is shared with whoever gave it to us: its flags go back to what they were (Asio
    /// made it non-blocking). Only once the output is finished: stdin and stdout may be one
    /// socket, which the writer must find non-blocking while the io_context writes to it.
    void restore_flags() { ::fcntl(fd_, F_SETFL, flags_); }

private:
    void read() {
        descriptor_.async_read_some(
            boost::asio::buffer(buffer_),
            [self = shared_from_this()](boost::system::error_code ec, std::size_t n) { self->on_read(ec, n); });
    }

    void on_read(boost::system::error_code ec, std::size_t n) {
        if (ec == boost::asio::error::operation_aborted) return;
        auto sink = [this](std::optional<std::string> message) {
            if (message) {
                conn_->receive(std::move(*message));
            } else {
                send_(too_large_error(max_line_));
            }
        };
        split_.feed(std::string_view(buffer_.data(), n), sink);
        if (ec) {  // end of input, or an error reading it
            split_.finish(sink);
            input_ended_ = true;
            return;
        }
        read();
    }

    int fd_;
    int flags_;
    boost::asio::posix::stream_descriptor descriptor_;
    line_splitter split_;
    std::size_t max_line_;
    std::shared_ptr<mcp::connection> conn_;
    std::function<void(std::string)> send_;
    std::atomic<bool>& input_ended_;
    std::array<char, 64 * 1024> buffer_{};
};

}  // namespace

int serve_stdio(mcp::server& srv, const stdio_options& opts) {
    const std::size_t max_line = opts.max_line_bytes.value_or(srv.options().message_limits.max_bytes);
    boost::asio::io_context ioc;
    auto work = boost::asio::make_work_guard(ioc);
    const int input_flags = ::fcntl(opts.input_fd, F_GETFL);  // before anything changes them
    std::optional<reactor_writer> polled_out;
    std::optional<line_writer> threaded_out;
    grow_pipe(opts.output_fd, opts.output_pipe_bytes);
    if (pollable(opts.output_fd)) {
        polled_out.emplace(ioc, opts.output_fd);
        if (!polled_out->start()) polled_out.reset();
    }
    if (!polled_out) threaded_out.emplace(opts.output_fd, ioc);
    const std::function<void(std::string)> send = [&](std::string m) {
        if (polled_out) {
            polled_out->push(std::move(m));
        } else {
            threaded_out->push(std::move(m));
        }
    };

    auto conn = srv.connect(ioc.get_executor(), send, opts.connection);

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

    std::shared_ptr<reactor_reader> polled;
    if (pollable(opts.input_fd)) {
        polled = std::make_shared<reactor_reader>(ioc, opts.input_fd, input_flags, max_line, conn, send, input_ended);
        if (!polled->start()) polled.reset();
    }

    // Otherwise a thread blocks in read(2), which works for terminals and regular files too.
    // After a signal it may stay blocked on an open input while serve_stdio returns, so what it
    // shares with us lives in `link`, and it delivers nothing once `link->gone` is set.
    struct reader_link {
        std::mutex mutex;
        bool gone = false;
        bool done = false;
    };
    auto link = std::make_shared<reader_link>();
    std::thread reader;
    if (!polled) {
        // What one read(2) brought goes to the io_context in one post: one wake-up per chunk,
        // not one per message.
        using batch = std::vector<std::optional<std::string>>;
        auto deliver = [link, conn, &ioc, &send, max_line](batch& lines) {
            if (lines.empty()) return;
            std::lock_guard lock(link->mutex);
            if (link->gone) return;
            boost::asio::post(ioc, [conn, &send, max_line, b = std::move(lines)]() mutable {
                for (auto& message : b) {
                    if (message) {
                        conn->receive(std::move(*message));
                    } else {
                        send(too_large_error(max_line));
                    }
                }
            });
            lines.clear();
        };
        auto finished = [link, &ioc, &input_ended] {
            std::lock_guard lock(link->mutex);
            link->done = true;
            if (!link->gone) boost::asio::post(ioc, [&input_ended] { input_ended = true; });
        };
        reader = std::thread([fd = opts.input_fd, max_line, deliver, finished] {
            line_splitter split(max_line);
            std::vector<char> buf(64 * 1024);
            batch lines;
            auto sink = [&lines](std::optional<std::string> message) { lines.push_back(std::move(message)); };
            for (;;) {
                const ssize_t n = ::read(fd, buf.data(), buf.size());
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                split.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)), sink);
                deliver(lines);
            }
            split.finish(sink);
            deliver(lines);
            finished();
        });
    }

    std::vector<std::thread> pool;
    for (std::size_t i = 1; i < opts.threads; ++i) pool.emplace_back([&] { ioc.run(); });

    // Serve until the input ends; then let the calls in flight finish within the grace period
    // (run_for returns as soon as no work is left), and cancel whatever still runs after it.
    while (!input_ended && !ioc.stopped()) ioc.run_one();
    signals.cancel();
    work.reset();
    if (polled) boost::asio::post(ioc, [polled] { polled->stop(); });  // a pending read is work too
    if (cancel_calls) conn->close();
    ioc.run_for(opts.shutdown_grace);
    if (!ioc.stopped()) {
        conn->close();
        ioc.run_for(std::chrono::seconds(5));  // cancelled calls answer and unwind
        ioc.stop();
    }
    for (auto& t : pool) t.join();
    if (polled) polled->stop();  // again, in case the io_context stopped before the post ran

    bool reader_finished = true;
    if (reader.joinable()) {
        std::lock_guard lock(link->mutex);
        link->gone = true;
        reader_finished = link->done;
    }
    conn->close();
    const bool ok = polled_out ? polled_out->finish() : threaded_out->finish();
    if (polled) polled->restore_flags();
    if (reader.joinable()) {
        if (reader_finished) {
            reader.join();
        } else {
            reader.detach();  // blocked on an open input after a signal; it will deliver nothing
        }
    }
    return ok ? 0 : 1;
}

}  // namespace candor::transport
