// SPDX-License-Identifier: BSL-1.0
#include <candor/transport/stdio.hpp>

#include "output_backlog.hpp"

#include <candor/jsonrpc/encode.hpp>
#include <candor/mcp/connection.hpp>

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
    line_writer(int fd, boost::asio::io_context& ioc, detail::output_backlog& backlog)
        : fd_(fd), ioc_(ioc), backlog_(backlog), thread_([this] { run(); }) {}
    ~line_writer() { finish(); }

    void push(std::string message) {
        {
            std::lock_guard lock(mutex_);
            if (closing_ || failed_) return;  // a failed output takes nothing more: it cannot be written
            backlog_.add(message.size() + 1);
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
                write(batch.front());
            } else {
                buffer.clear();
                for (auto& m : batch) {
                    buffer += m;
                    buffer.push_back('\n');
                    // Keep one system call from holding megabytes.
                    if (buffer.size() >= (1u << 20)) {
                        write(buffer);
                        buffer.clear();
                    }
                }
                write(buffer);
                if (buffer.capacity() > (4u << 20)) buffer = std::string();
            }
            batch.clear();
        }
    }

    // Writes one buffer of queued messages (unless the output failed before) and counts it out
    // of the backlog. A failure releases the input's brake: nothing more can be written, so
    // holding the input back would only stall the server.
    void write(std::string_view data) {
        if (!failed_ && !write_all(fd_, data)) {
            failed_ = true;
            backlog_.release();
        }
        backlog_.remove(data.size());
    }

    int fd_;
    boost::asio::io_context& ioc_;
    detail::output_backlog& backlog_;
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
    reactor_writer(boost::asio::io_context& ioc, int fd, detail::output_backlog& backlog)
        : ioc_(ioc), fd_(fd), flags_(::fcntl(fd, F_GETFL)), descriptor_(ioc), backlog_(backlog) {}

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
        if (closing_ || failed_) return;  // a failed output takes nothing more: it cannot be written
        backlog_.add(message.size());
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
                backlog_.remove(static_cast<std::size_t>(n));
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
            fail();
        }
    }

    // The output is gone: what is queued can never be written. It leaves the backlog, and the
    // input's brake is released (holding the input back would only stall the server).
    void fail() {
        failed_ = true;
        std::size_t dropped = 0;
        for (const auto& m : queue_) dropped += m.size();
        backlog_.remove(dropped - sent_);
        queue_.clear();
        sent_ = 0;
        backlog_.release();
    }

    boost::asio::io_context& ioc_;
    int fd_;
    int flags_;
    boost::asio::posix::stream_descriptor descriptor_;
    detail::output_backlog& backlog_;
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

    /// Hands the lines of `chunk` to `sink`, at most `max_entries` of them; a line not yet ended
    /// is kept for the next chunk. @return the bytes of `chunk` used (all of it, unless it held
    /// more than `max_entries` lines)
    template <class Sink>  // sink(std::optional<std::string>)
    std::size_t feed(std::string_view chunk, Sink&& sink, std::size_t max_entries) {
        const std::size_t size = chunk.size();
        for (std::size_t entries = 0; !chunk.empty() && entries < max_entries;) {
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
            if (nl == std::string_view::npos) return size;
            chunk.remove_prefix(nl + 1);
            if (discarding_) {
                discarding_ = false;
                sink(std::optional<std::string>());
                ++entries;
                continue;
            }
            if (!line_.empty() && line_.back() == '\r') line_.pop_back();
            if (!line_.empty()) {
                sink(std::optional<std::string>(std::move(line_)));
                ++entries;
            }
            line_ = std::string();
        }
        return size - chunk.size();
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

// Where the input's bytes come from. `read` asks for the next chunk, and is called again only
// after its handler ran: the handler runs on the io_context with the bytes (valid until the next
// `read`), or with an error at the end of the input.
class input_source {
public:
    using handler = std::function<void(boost::system::error_code, std::string_view)>;
    virtual ~input_source() = default;
    virtual void read(handler h) = 0;
    /// No more chunks; a read in progress ends with `operation_aborted`, or never.
    virtual void stop() = 0;
};

// A pipe or a socket, read by the io_context itself (epoll).
class polled_input final : public input_source {
public:
    // `flags`: the descriptor's flags before the transport touched it (the writer may have made
    // it non-blocking already when stdin and stdout are one socket).
    polled_input(boost::asio::io_context& ioc, int fd, int flags) : fd_(fd), flags_(flags), descriptor_(ioc) {}

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
        return true;
    }

    void read(handler h) override {
        descriptor_.async_read_some(boost::asio::buffer(buffer_),
                                    [this, h = std::move(h)](boost::system::error_code ec, std::size_t n) {
                                        h(ec, std::string_view(buffer_.data(), n));
                                    });
    }

    void stop() override {
        boost::system::error_code ignored;
        descriptor_.close(ignored);
    }

    /// The pipe is shared with whoever gave it to us: its flags go back to what they were (Asio
    /// made it non-blocking). Only once the output is finished: stdin and stdout may be one
    /// socket, which the writer must find non-blocking while the io_context writes to it.
    void restore_flags() { ::fcntl(fd_, F_SETFL, flags_); }

private:
    int fd_;
    int flags_;
    boost::asio::posix::stream_descriptor descriptor_;
    std::array<char, 64 * 1024> buffer_{};
};

// A terminal or a regular file, which epoll refuses: a thread blocks in read(2), one chunk per
// `read`. After a signal it may stay blocked on an open input while serve_stdio returns, so what
// it shares lives in `shared`, and it posts nothing once `gone` is set.
class threaded_input final : public input_source {
public:
    threaded_input(boost::asio::io_context& ioc, int fd) : shared_(std::make_shared<state>()) {
        shared_->ioc = &ioc;
        thread_ = std::thread([fd, s = shared_] { run(fd, *s); });
    }

    ~threaded_input() override {
        stop();
        bool blocked = false;
        {
            std::lock_guard lock(shared_->mutex);
            blocked = shared_->reading;
        }
        // Blocked on an open input (after a signal): it will post nothing and end with its read.
        if (blocked) {
            thread_.detach();
        } else {
            thread_.join();
        }
    }

    void read(handler h) override {
        {
            std::lock_guard lock(shared_->mutex);
            shared_->next = std::move(h);
        }
        shared_->wanted.notify_one();
    }

    void stop() override {
        {
            std::lock_guard lock(shared_->mutex);
            shared_->gone = true;
            shared_->next = nullptr;  // it holds whoever owns this source
        }
        shared_->wanted.notify_one();
    }

private:
    struct state {
        std::mutex mutex;
        std::condition_variable wanted;
        handler next;  // set by `read`, taken by the thread
        bool gone = false;
        bool reading = false;
        boost::asio::io_context* ioc = nullptr;
        std::vector<char> buffer = std::vector<char>(64 * 1024);
    };

    static void run(int fd, state& s) {
        for (;;) {
            handler h;
            {
                std::unique_lock lock(s.mutex);
                s.wanted.wait(lock, [&] { return s.gone || s.next; });
                if (s.gone) return;
                h = std::move(s.next);
                s.next = nullptr;
                s.reading = true;
            }
            ssize_t n;
            do {
                n = ::read(fd, s.buffer.data(), s.buffer.size());
            } while (n < 0 && errno == EINTR);
            const boost::system::error_code ec =
                n > 0 ? boost::system::error_code{}
                      : (n == 0 ? boost::system::error_code(boost::asio::error::eof)
                                : boost::system::error_code(errno, boost::system::system_category()));
            std::lock_guard lock(s.mutex);
            s.reading = false;
            if (s.gone) return;
            const std::string_view data(s.buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0);
            boost::asio::post(*s.ioc, [h = std::move(h), ec, data] { h(ec, data); });
            if (ec) return;
        }
    }

    std::shared_ptr<state> shared_;
    std::thread thread_;
};

// Hands the input's lines to the connection, one batch at a time, and asks the output's backlog
// before each next batch and each read: over its limit, it waits until the client has taken half
// of it, so a client that does not read its replies ends up blocked in its own writes.
//
// The check runs on the connection's strand behind the batch it follows, so the replies of the
// calls that answered at once are counted; a batch of 64 (one writev's worth of replies) keeps
// what passes the limit small, and costs one post per 64 messages.
class input_pump : public std::enable_shared_from_this<input_pump> {
public:
    static constexpr std::size_t batch = 64;

    input_pump(std::unique_ptr<input_source> source, std::size_t max_line, std::shared_ptr<mcp::connection> conn,
               std::function<void(std::string)> send, std::shared_ptr<detail::output_backlog> backlog,
               std::function<void()> on_end)
        : source_(std::move(source)),
          split_(max_line),
          max_line_(max_line),
          conn_(std::move(conn)),
          send_(std::move(send)),
          backlog_(std::move(backlog)),
          on_end_(std::move(on_end)) {}

    void start() { read(); }

    /// Nothing more is read or handed over.
    void stop() {
        stopped_ = true;
        source_->stop();
    }

private:
    void read() {
        source_->read([self = shared_from_this()](boost::system::error_code ec, std::string_view data) {
            if (self->stopped_ || ec == boost::asio::error::operation_aborted) return;
            self->pending_ = data;
            self->at_end_ = static_cast<bool>(ec);  // end of input, or an error reading it
            self->deliver();
        });
    }

    void deliver() {
        auto sink = [this](std::optional<std::string> message) {
            if (message) {
                conn_->receive(std::move(*message));
            } else {
                send_(too_large_error(max_line_));
            }
        };
        pending_.remove_prefix(split_.feed(pending_, sink, batch));
        if (at_end_ && pending_.empty()) {
            split_.finish(sink);
            on_end_();
            return;
        }
        boost::asio::post(conn_->strand(), [self = shared_from_this()] { self->next(); });
    }

    void next() {
        if (stopped_) return;
        const bool held = backlog_->hold(
            [self = shared_from_this()] { boost::asio::post(self->conn_->strand(), [self] { self->next(); }); });
        if (held) return;
        if (pending_.empty()) {
            read();
        } else {
            deliver();
        }
    }

    std::unique_ptr<input_source> source_;
    line_splitter split_;
    std::size_t max_line_;
    std::shared_ptr<mcp::connection> conn_;
    std::function<void(std::string)> send_;
    std::shared_ptr<detail::output_backlog> backlog_;
    std::function<void()> on_end_;
    std::atomic<bool> stopped_{false};
    std::string_view pending_;  // what the last chunk still holds
    bool at_end_ = false;
};

}  // namespace

int serve_stdio(mcp::server& srv, const stdio_options& opts) {
    const std::size_t max_line = opts.max_line_bytes.value_or(srv.options().message_limits.max_bytes);
    boost::asio::io_context ioc;
    auto work = boost::asio::make_work_guard(ioc);
    const int input_flags = ::fcntl(opts.input_fd, F_GETFL);  // before anything changes them
    auto backlog = std::make_shared<detail::output_backlog>(opts.max_unsent_output_bytes);
    std::optional<reactor_writer> polled_out;
    std::optional<line_writer> threaded_out;
    grow_pipe(opts.output_fd, opts.output_pipe_bytes);
    if (pollable(opts.output_fd)) {
        polled_out.emplace(ioc, opts.output_fd, *backlog);
        if (!polled_out->start()) polled_out.reset();
    }
    if (!polled_out) threaded_out.emplace(opts.output_fd, ioc, *backlog);
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

    std::unique_ptr<input_source> source;
    polled_input* polled = nullptr;  // owned by `source`
    if (pollable(opts.input_fd)) {
        auto p = std::make_unique<polled_input>(ioc, opts.input_fd, input_flags);
        if (p->start()) {
            polled = p.get();
            source = std::move(p);
        }
    }
    if (!source) source = std::make_unique<threaded_input>(ioc, opts.input_fd);
    auto pump = std::make_shared<input_pump>(std::move(source), max_line, conn, send, backlog,
                                             [&input_ended] { input_ended = true; });
    pump->start();

    std::vector<std::thread> pool;
    for (std::size_t i = 1; i < opts.threads; ++i) pool.emplace_back([&] { ioc.run(); });

    // Serve until the input ends; then let the calls in flight finish within the grace period
    // (run_for returns as soon as no work is left), and cancel whatever still runs after it.
    while (!input_ended && !ioc.stopped()) ioc.run_one();
    conn->input_ended();  // nothing waits for changes now: the calls in flight end the run
    signals.cancel();
    work.reset();
    boost::asio::post(ioc, [pump] { pump->stop(); });  // a pending read is work too
    if (cancel_calls) conn->close();
    ioc.run_for(opts.shutdown_grace);
    if (!ioc.stopped()) {
        conn->close();
        ioc.run_for(std::chrono::seconds(5));  // cancelled calls answer and unwind
        ioc.stop();
    }
    for (auto& t : pool) t.join();
    pump->stop();        // again, in case the io_context stopped before the post ran
    backlog->release();  // a held pump's resumption holds the pump: let it go

    conn->close();
    const bool ok = polled_out ? polled_out->finish() : threaded_out->finish();
    if (polled) polled->restore_flags();
    return ok ? 0 : 1;
}

}  // namespace candor::transport
