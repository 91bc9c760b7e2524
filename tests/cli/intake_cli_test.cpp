// SPDX-License-Identifier: BSL-1.0
#include "cli/cli.hpp"

#include <gtest/gtest.h>

using candor::test::candor_cli;
using candor::test::run;

TEST(IntakeCli, AcceptedTextPrintsShapeAndExitsZero) {
    auto r = run(candor_cli() + " intake --max-depth 3 --max-nodes 10 -", R"({"and":[{"status":"open"}]})");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "{\"ok\":true,\"depth\":3,\"nodes\":4}\n");
}

TEST(IntakeCli, RejectedTextPrintsCodePathAndLimitAndExitsOne) {
    auto r = run(candor_cli() + " intake --max-depth 3 --max-nodes 10", R"({"a":{"b":{"c":{}}}})");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find(R"("ok":false,"code":"DEPTH_LIMIT","path":"/a/b/c","limit":3)"), std::string::npos) << r.out;
}

TEST(IntakeCli, InvalidJsonCarriesTheByteOffset) {
    auto r = run(candor_cli() + " intake", R"({"limit":NaN})");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find(R"("code":"INVALID_JSON","path":"/limit","offset":9)"), std::string::npos) << r.out;
}

TEST(IntakeCli, InputOverByteLimitIsRejectedWithoutReadingItAll) {
    auto r = run(candor_cli() + " intake --max-bytes 4", "[1,2,3]");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("INPUT_TOO_LARGE"), std::string::npos) << r.out;
}

TEST(IntakeCli, DepthAboveTheCeilingIsAUsageError) {
    EXPECT_EQ(run(candor_cli() + " intake --max-depth 100000", "[]").status, 2);
    EXPECT_EQ(run(candor_cli() + " intake --max-depth x", "[]").status, 2);
    EXPECT_EQ(run(candor_cli() + " intake --bogus", "[]").status, 2);
    EXPECT_EQ(run(candor_cli() + " intake /nonexistent/file.json").status, 2);
}

TEST(IntakeCli, MegabyteOfOpenBracketsNeitherCrashesNorHangs) {
    auto r = run(candor_cli() + " intake --max-bytes 2000000 --max-depth 512 --max-nodes 100000000",
                 std::string(1'000'000, '['));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("DEPTH_LIMIT"), std::string::npos);
}
