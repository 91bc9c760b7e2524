// SPDX-License-Identifier: BSL-1.0
#include <candor/ops/process.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <unistd.h>

namespace {

using namespace candor;

// A real line of /proc/PID/stat, with a command name that holds spaces and parentheses.
constexpr std::string_view stat_line =
    "4242 (my (odd) server) S 1 4242 4242 0 -1 4194560 2345 0 0 0 150 50 0 0 20 0 3 0 12000 104857600 2560 "
    "18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";

TEST(ProcessStats, ParsesTheFieldsAfterTheCommandName) {
    auto s = ops::parse_proc_stat(stat_line, 100, 4096, 1'700'000'000.0);
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_DOUBLE_EQ(s->cpu_seconds, 2.0);                           // (150 + 50) ticks at 100 per second
    EXPECT_DOUBLE_EQ(s->start_time_seconds, 1'700'000'000.0 + 120);  // 12000 ticks after boot
    EXPECT_EQ(s->virtual_bytes, 104'857'600u);
    EXPECT_EQ(s->resident_bytes, 2560u * 4096u);
}

TEST(ProcessStats, RefusesWhatIsNotAStatLine) {
    EXPECT_FALSE(ops::parse_proc_stat("", 100, 4096, 0));
    EXPECT_FALSE(ops::parse_proc_stat("4242 (short) S 1 2 3", 100, 4096, 0));
    EXPECT_FALSE(ops::parse_proc_stat("4242 no parenthesis S 1 2 3", 100, 4096, 0));
    std::string bad(stat_line);
    bad.replace(bad.find(" 150 "), 5, " x50 ");
    EXPECT_FALSE(ops::parse_proc_stat(bad, 100, 4096, 0));
    EXPECT_FALSE(ops::parse_proc_stat(stat_line, 0, 4096, 0));
}

TEST(ProcessStats, ReadsThisProcess) {
    auto before = ops::read_process_stats();
    ASSERT_TRUE(before) << before.error().message();
    EXPECT_GT(before->resident_bytes, 0u);
    EXPECT_GE(before->virtual_bytes, before->resident_bytes);
    EXPECT_GT(before->max_fds, 0u);
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    EXPECT_LE(before->start_time_seconds, now + 1);
    EXPECT_GT(before->start_time_seconds, now - 24 * 3600.0);
    // One more open descriptor is seen as one more.
    const int fd = ::open("/dev/null", O_RDONLY);
    ASSERT_GE(fd, 0);
    auto after = ops::read_process_stats();
    ::close(fd);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->open_fds, before->open_fds + 1);
}

}  // namespace
