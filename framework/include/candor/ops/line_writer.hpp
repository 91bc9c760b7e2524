// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Lines written by a thread of their own: the journal's and the server log's way to the disk
/// or stderr without ever making a connection wait for I/O.
///
/// `write_line` queues a line and returns; the writer thread appends what is queued to the file
/// (rotating it at a size cap) and/or stderr, then flushes. Lines come one at a time, and a writer
/// woken for each would pay a wake-up, a context switch and a write for every line (at 30,000
/// lines a second, more CPU than the calls they describe): once woken, it lets a batch gather for
/// `batch_delay` — or until `batch_lines` wait, a durable line waits, or `flush` is called — and
/// writes it with one flush. When the queue is full the line is
/// dropped and counted (`dropped()`): a slow disk or a stalled stderr pipe costs lines, never a
/// blocked connection. A line written with `write_durable` is never dropped: its callback runs
/// once it is written and flushed (and `fdatasync`ed with `sync`), so that the caller can hold
/// something back — the reply of an irreversible action — until then, without waiting itself.

#include <boost/system/result.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace candor::ops {

struct line_writer_options {
    /// File to append to; empty: no file.
    std::string path{};
    /// Also write every line to stderr.
    bool to_stderr = false;
    /// When the file would grow past this many bytes it is rotated: PATH → PATH.1 → … →
    /// PATH.<keep_files> (the oldest is removed). 0: never rotate.
    std::uint64_t max_bytes = 64ull << 20;
    /// Rotated files kept besides the live one.
    unsigned keep_files = 3;
    /// Lines waiting for the writer; one more is dropped and counted. Durable lines are never
    /// dropped (each holds back its caller's reply, so there are at most as many as such calls
    /// answered at once).
    std::size_t queue_capacity = 4096;
    /// `fdatasync` the file after a batch that holds a durable line, before its callback runs:
    /// the line then survives a power loss, not only a crash of the process. Costs one disk
    /// sync per batch of such lines.
    bool sync = false;
    /// How long a woken writer lets lines gather before it writes them (0: at once). A durable
    /// line or a `flush` never waits for it.
    std::chrono::microseconds batch_delay{1000};
    /// A batch this large is written without waiting for the rest of `batch_delay`.
    std::size_t batch_lines = 512;
};

class line_writer {
public:
    /// Open (create or append to) the file, if any, and start the writer thread.
    /// @return the writer, or why the file cannot be opened
    static boost::system::result<std::unique_ptr<line_writer>> open(line_writer_options opts);

    ~line_writer();  ///< writes what is queued, then stops the writer
    line_writer(const line_writer&) = delete;
    line_writer& operator=(const line_writer&) = delete;

    /// Queue one line (without its newline). Never blocks on I/O.
    /// @return false if the queue was full and the line was dropped
    bool write_line(std::string line);

    /// Queue one line past the capacity, and call `stored` on the writer thread once it is
    /// written and flushed (and synced with `sync`), or could not be (then the failure is
    /// counted in `failures()` and said once on stderr).
    void write_durable(std::string line, std::function<void()> stored);

    /// Wait until every queued line has been written and flushed.
    void flush();

    std::uint64_t written() const;
    std::uint64_t dropped() const;
    std::uint64_t rotations() const;
    /// Batches whose write, flush or sync failed (their lines may be lost).
    std::uint64_t failures() const;

private:
    /// A queued line; `stored` (durable lines) is called once it is stored.
    struct entry {
        std::string line;
        std::function<void()> stored;
    };

    explicit line_writer(line_writer_options opts);
    void run();
    /// @return false when writing failed
    bool write_out(const std::string& line);
    void rotate();

    line_writer_options opts_;
    std::FILE* file_ = nullptr;
    std::uint64_t size_ = 0;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::deque<entry> queue_;
    bool busy_ = false;
    bool stopping_ = false;
    bool urgent_ = false;  ///< a durable line or a flush waits: no batch delay
    std::uint64_t written_ = 0;
    std::uint64_t dropped_ = 0;
    std::uint64_t rotations_ = 0;
    std::uint64_t failures_ = 0;
    bool failing_ = false;  ///< the writer's own: the last batch failed
    std::thread writer_;
};

}  // namespace candor::ops
