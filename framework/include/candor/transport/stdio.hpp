// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The stdio transport: one client, newline-delimited JSON-RPC messages on stdin/stdout.
///
/// stdout carries only MCP messages (the server logs to stderr). A line longer than the limit
/// is discarded as it is read — never buffered whole — and answered with a `-32700` error whose
/// `data.code` is `INPUT_TOO_LARGE`; the stream stays usable. On end of input the transport
/// stops reading, lets the calls in flight finish (within `shutdown_grace`), flushes and
/// returns; on SIGINT/SIGTERM it cancels the calls in flight and returns.
///
/// Pipes and sockets are read and written by the io_context itself (made non-blocking while the
/// transport runs, their flags restored when it returns); terminals and regular files by a
/// reader and a writer thread. A client that stops reading never blocks the server's threads,
/// and cannot make it queue replies without end: while more than `max_unsent_output_bytes`
/// wait to be written, the transport reads no input, so the client's own writes block. Nothing
/// is dropped; every request read is answered once the client reads again.

#include <candor/mcp/server.hpp>

#include <chrono>
#include <cstddef>
#include <optional>

namespace candor::transport {

struct stdio_options {
    int input_fd = 0;
    int output_fd = 1;
    /// Longest inbound line in bytes; default: the server's `message_limits.max_bytes`.
    std::optional<std::size_t> max_line_bytes{};
    /// When the output is a pipe smaller than this, ask the kernel to grow it to this many bytes
    /// (`F_SETPIPE_SZ`; it rounds up to a power-of-two number of pages). Replies to a burst of
    /// calls then leave in fewer writes, with fewer wake-ups of the reader: 64 KiB, the usual
    /// default, holds about ten 6 KiB pages of results. 0 leaves the pipe as it is. A pipe is
    /// never shrunk; a refusal (above `/proc/sys/fs/pipe-max-size`, or past the user's
    /// `pipe-user-pages-soft` budget) leaves it as it was and is not an error.
    std::size_t output_pipe_bytes = 256u << 10;
    /// Replies (and other outbound messages) written by the server but not yet taken by the
    /// client, in bytes. Above it the transport stops reading input until the client has taken
    /// half of it: a client that writes requests and never reads fills the input pipe and blocks
    /// instead of making the server queue replies without end. Nothing is dropped: requests
    /// already read are still answered (the replies to one read, at most 64 KiB of requests,
    /// may take the backlog past the limit). 0 reads only when everything sent has been written.
    std::size_t max_unsent_output_bytes = 4u << 20;
    /// Threads running tool calls (the connection itself is serialized on a strand).
    std::size_t threads = 1;
    /// After end of input, how long calls in flight may still run before they are cancelled.
    std::chrono::milliseconds shutdown_grace{30'000};
    /// Install SIGINT/SIGTERM handlers (off for embedding and tests).
    bool handle_signals = true;
    mcp::connection_options connection{};
};

/// Serve one client until end of input or a termination signal.
/// @return 0 on a clean end, 1 if the output could not be written
int serve_stdio(mcp::server& srv, const stdio_options& opts = {});

}  // namespace candor::transport
