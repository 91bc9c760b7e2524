// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/process.hpp>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <dirent.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace candor::ops {

namespace {

boost::system::error_code from_errno() { return {errno, boost::system::generic_category()}; }

// The whole of a small /proc file (they report a size of 0, so read until the end).
boost::system::result<std::string> read_small_file(const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) return from_errno();
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < (1u << 16);) text.append(buf, n);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) return boost::system::error_code(EIO, boost::system::generic_category());
    return text;
}

template <class T>
bool parse_number(std::string_view s, T& out) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

// `btime` of /proc/stat: when the system booted, in seconds since the epoch.
boost::system::result<double> boot_time() {
    auto text = read_small_file("/proc/stat");
    if (!text) return text.error();
    std::string_view rest = *text;
    constexpr std::string_view key = "\nbtime ";
    const auto at = rest.find(key);
    if (at == std::string_view::npos) return boost::system::error_code(EINVAL, boost::system::generic_category());
    rest.remove_prefix(at + key.size());
    std::uint64_t secs = 0;
    if (!parse_number(rest.substr(0, rest.find('\n')), secs))
        return boost::system::error_code(EINVAL, boost::system::generic_category());
    return static_cast<double>(secs);
}

// Descriptors in /proc/self/fd, without the one that reads the directory.
boost::system::result<std::uint64_t> count_open_fds() {
    DIR* d = ::opendir("/proc/self/fd");
    if (!d) return from_errno();
    const int own = ::dirfd(d);
    std::uint64_t n = 0;
    while (const dirent* e = ::readdir(d)) {
        int fd = -1;
        if (!parse_number(std::string_view(e->d_name), fd) || fd == own) continue;
        ++n;
    }
    ::closedir(d);
    return n;
}

}  // namespace

boost::system::result<process_stats> parse_proc_stat(std::string_view line, long ticks_per_second, long page_size,
                                                     double boot_time) {
    const auto invalid = boost::system::error_code(EINVAL, boost::system::generic_category());
    // "PID (COMM) STATE PPID …": COMM may hold spaces and parentheses; the fields follow the
    // last ')'. Fields are numbered from 1 (PID); STATE is field 3.
    const auto close = line.rfind(')');
    if (close == std::string_view::npos || ticks_per_second <= 0 || page_size <= 0) return invalid;
    std::string_view rest = line.substr(close + 1);
    std::array<std::string_view, 22> fields{};  // fields 3 … 24
    for (auto& f : fields) {
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        if (rest.empty()) return invalid;
        const auto end = rest.find_first_of(" \n");
        f = rest.substr(0, end);
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    const auto field = [&](int n) { return fields[static_cast<std::size_t>(n - 3)]; };
    std::uint64_t utime = 0, stime = 0, start = 0, vsize = 0;
    std::int64_t rss = 0;
    if (!parse_number(field(14), utime) || !parse_number(field(15), stime) || !parse_number(field(22), start) ||
        !parse_number(field(23), vsize) || !parse_number(field(24), rss))
        return invalid;
    process_stats s;
    const auto ticks = static_cast<double>(ticks_per_second);
    s.cpu_seconds = static_cast<double>(utime + stime) / ticks;
    s.start_time_seconds = boot_time + static_cast<double>(start) / ticks;
    s.virtual_bytes = vsize;
    s.resident_bytes = rss > 0 ? static_cast<std::uint64_t>(rss) * static_cast<std::uint64_t>(page_size) : 0;
    return s;
}

boost::system::result<process_stats> read_process_stats() {
    auto line = read_small_file("/proc/self/stat");
    if (!line) return line.error();
    auto booted = boot_time();
    if (!booted) return booted.error();
    auto s = parse_proc_stat(*line, ::sysconf(_SC_CLK_TCK), ::sysconf(_SC_PAGESIZE), *booted);
    if (!s) return s;
    auto fds = count_open_fds();
    if (!fds) return fds.error();
    s->open_fds = *fds;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return from_errno();
    s->max_fds = lim.rlim_cur == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(lim.rlim_cur);
    return s;
}

}  // namespace candor::ops
