// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// What the kernel says about this process — CPU time, memory, descriptors, start time — for
/// the standard `process_*` metrics (Prometheus' names, as its client libraries expose them).

#include <boost/system/result.hpp>

#include <cstdint>
#include <string_view>

namespace candor::ops {

struct process_stats {
    /// User and system CPU time used so far.
    double cpu_seconds = 0;
    /// Resident set size.
    std::uint64_t resident_bytes = 0;
    /// Virtual memory size.
    std::uint64_t virtual_bytes = 0;
    /// Open file descriptors.
    std::uint64_t open_fds = 0;
    /// The soft limit on open file descriptors (`RLIMIT_NOFILE`).
    std::uint64_t max_fds = 0;
    /// When the process started, in seconds since the Unix epoch.
    double start_time_seconds = 0;
};

/// Read this process's figures from `/proc/self` (Linux). Cheap: a few small reads of kernel
/// memory, no disk.
/// @return the figures, or the error of the first file that could not be read or understood
boost::system::result<process_stats> read_process_stats();

/// The figures of a `/proc/PID/stat` line, given the system's clock ticks per second, its page
/// size and its boot time (seconds since the epoch, `btime` of `/proc/stat`); `open_fds` and
/// `max_fds` are left 0.
/// @return the figures, or `invalid_argument` for a line that is not a stat line
boost::system::result<process_stats> parse_proc_stat(std::string_view line, long ticks_per_second, long page_size,
                                                     double boot_time);

}  // namespace candor::ops
