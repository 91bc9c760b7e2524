// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Lines written by a thread of their own: the journal's and the server log's way to the disk
/// or stderr without ever making a connection wait for I/O.
///
/// `write_line` queues a line and returns; the writer thread appends what is queued to the file
/// (rotating it at a size cap) and/or stderr, then flushes. Each thread queues apart from the
/// others (16 queues, one a thread, as the metrics count): a line takes no lock and writes no
/// cache line that another thread's line does, and the writer puts each batch in the order its
/// lines were queued. Lines come one at a time, and a writer woken for each would pay a
/// wake-up, a context switch and a write for every line (at 30,000 lines a second, more CPU than
/// the calls they describe): once woken, it lets a batch gather for `batch_delay` — or until a
/// thread has `batch_lines` queued, a durable line waits, or `flush` is called — and writes it
/// with one flush. When a thread's queue is full its line is dropped and counted (`dropped()`):
/// a slow disk or a stalled stderr pipe costs lines, never a blocked connection. A line written
/// with `write_durable` is never dropped: its callback runs once it is written and flushed (and
/// `fdatasync`ed with `sync`), so that the caller can hold something back — the reply of an
/// irreversible action — until then, without waiting itself.

#include <boost/system/result.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

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
    /// Lines waiting for the writer, of each writing thread (threads queue apart, so that no
    /// line takes a lock another thread takes; past 16 threads, some share): one more is dropped
    /// and counted. Durable lines are never dropped (each holds back its caller's reply, so
    /// there are at most as many as such calls answered at once).
    std::size_t queue_capacity = 4096;
    /// `fdatasync` the file after a batch that holds a durable line, before its callback runs:
    /// the line then survives a power loss, not only a crash of the process. Costs one disk
    /// sync per batch of such lines.
    bool sync = false;
    /// How long a woken writer lets lines gather before it writes them (0: at once). A durable
    /// line or a `flush` never waits for it.
    std::chrono::microseconds batch_delay{1000};
    /// When a thread has queued this many lines, the batch is written without waiting for the
    /// rest of `batch_delay`.
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

    /// Wait until every line queued before the call has been written and flushed.
    void flush();

    std::uint64_t written() const;
    std::uint64_t dropped() const;
    std::uint64_t rotations() const;
    /// Batches whose write, flush or sync failed (their lines may be lost).
    std::uint64_t failures() const;

private:
    /// A queued line; `stored` (durable lines) is called once it is stored. `at` orders a
    /// batch of lines queued by several threads.
    struct entry {
        std::string line;
        std::function<void()> stored;
        std::chrono::steady_clock::time_point at;
    };

    /// The lines of the threads that share one shard (each thread its own, as the metrics
    /// count): a line takes no lock and writes no cache line that other threads' lines do.
    struct alignas(64) shard {
        mutable std::mutex mu;
        std::vector<entry> lines;
        std::uint64_t dropped = 0;
    };
    static constexpr std::size_t shard_count = 16;

    explicit line_writer(line_writer_options opts);
    void run();
    /// Queue `e` in the calling thread's shard (unless it is full and `e` is not `durable`).
    /// @return false if it was dropped
    bool enqueue(entry e, bool durable);
    /// Wake the writer if it sleeps (`urgent`: and end its batch delay).
    void wake(bool urgent);
    /// Move every queued line into `batch` (empty), in the order they were queued.
    void take_all(std::vector<entry>& batch);
    /// Whether a line is queued in any shard.
    bool any_queued();
    /// Write, flush (and sync) a batch, then call its durable lines' callbacks.
    void write_batch(const std::vector<entry>& batch);
    /// @return false when writing failed
    bool write_out(const std::string& line);
    void rotate();
    /// Open `opts_.path` for appending, through `buffer_`.
    std::FILE* open_file();

    static constexpr std::size_t buffer_size = std::size_t{64} << 10;

    line_writer_options opts_;
    std::unique_ptr<char[]> buffer_;  ///< the file's stdio buffer (outlives `file_`)
    std::FILE* file_ = nullptr;
    std::uint64_t size_ = 0;

    std::array<shard, shard_count> shards_;
    /// The writer waits for a first line: set by it, read by every line (a line wakes it
    /// only then, and only the first line after it fell asleep finds it set).
    std::atomic<bool> asleep_{false};

    // The writer's state.
    mutable std::mutex mu_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    bool woken_ = false;  ///< a line came while the writer slept
    bool busy_ = false;   ///< a batch is being written
    bool stopping_ = false;
    bool urgent_ = false;  ///< a durable line or a flush waits: no batch delay
    std::uint64_t written_ = 0;
    std::uint64_t rotations_ = 0;
    std::uint64_t failures_ = 0;
    bool failing_ = false;  ///< the writer's own: the last batch failed
    std::thread writer_;
};

}  // namespace candor::ops
