// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Lines written by a thread of their own: the journal's and the server log's way to the disk
/// or stderr without ever making a connection wait for I/O.
///
/// `write_line` queues a line and returns; the writer thread appends what is queued to the file
/// (rotating it at a size cap) and/or stderr, then flushes. When the queue is full the line is
/// dropped and counted (`dropped()`): a slow disk or a stalled stderr pipe costs lines, never a
/// blocked connection.

#include <boost/system/result.hpp>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace candor::ops {

struct line_writer_options {
    /// File to append to; empty: no file.
    std::string path;
    /// Also write every line to stderr.
    bool to_stderr = false;
    /// When the file would grow past this many bytes it is rotated: PATH → PATH.1 → … →
    /// PATH.<keep_files> (the oldest is removed). 0: never rotate.
    std::uint64_t max_bytes = 64ull << 20;
    /// Rotated files kept besides the live one.
    unsigned keep_files = 3;
    /// Lines waiting for the writer; one more is dropped and counted.
    std::size_t queue_capacity = 4096;
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

    /// Wait until every queued line has been written and flushed.
    void flush();

    std::uint64_t written() const;
    std::uint64_t dropped() const;
    std::uint64_t rotations() const;

private:
    explicit line_writer(line_writer_options opts);
    void run();
    void write_out(const std::string& line);
    void rotate();

    line_writer_options opts_;
    std::FILE* file_ = nullptr;
    std::uint64_t size_ = 0;

    mutable std::mutex mu_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::deque<std::string> queue_;
    bool busy_ = false;
    bool stopping_ = false;
    std::uint64_t written_ = 0;
    std::uint64_t dropped_ = 0;
    std::uint64_t rotations_ = 0;
    std::thread writer_;
};

}  // namespace candor::ops
