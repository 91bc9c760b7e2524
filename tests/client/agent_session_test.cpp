// SPDX-License-Identifier: BSL-1.0
// The helpdesk's scripted agent session (scripts/demo) on the C++ client, against the helpdesk
// over stdio on a fresh database: every step answers as the demo says, in order.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace candor::test {
namespace {

TEST(AgentSession, TheDemoSessionRunsToItsEndOnTheClient) {
    const auto db =
        (std::filesystem::temp_directory_path() / ("candor-agent-" + std::to_string(::getpid()) + ".db")).string();
    const std::string bin = std::string(CANDOR_BINARY_DIR) + "/examples/helpdesk/";
    auto r = run(bin + "helpdesk-agent " + bin + "helpdesk " + db);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    ASSERT_EQ(r.status, 0) << r.out;
    // Each step's telling code, in the order the session meets them.
    std::size_t at = 0;
    for (const char* step : {
             R"("code":"MORE_PAGES_AVAILABLE")",                                 // a first page of tickets
             R"("code":"FILTER_UNKNOWN_FIELD")",                                 // a typo in the filter, repairable
             R"("code":"VISIBILITY_RESTRICTED")",                                // team-a's inventory is partial
             R"("code":"EVIDENCE_INCOMPLETE")",                                  // so its token archives nothing
             R"({"calls":10,"accounts":500,"complete":true,"next":"proceed"})",  // collect: a whole walk
             R"("code":"EVIDENCE_INVALID")",                                     // a tampered token
             R"("code":"EVIDENCE_NOT_COVERED")",                                 // an id the walk did not deliver
             R"("code":"PLAN_TOKEN_REQUIRED")",                                  // approval first
             R"("archived":["svc-007","svc-014"])",                              // then the archive
             R"("code":"PLAN_TOKEN_USED")",                                      // once
             R"("code":"VALUE_NORMALIZED")",                                     // an order repaired
             R"("code":"UNKNOWN_SKU")",
             R"("code":"RESULT_SIZE_LIMIT","returned")",  // a page cut to its budget
             R"("code":"FIELD_TRUNCATED")",               // a body cut, with the way to the rest
             R"("complete":true,"calls":)",               // a walk over a table being written
             R"("code":"TARGET_CHANGED")",                // a customer changed since the walk
         }) {
        const auto found = r.out.find(step, at);
        ASSERT_NE(found, std::string::npos) << "missing, or out of order: " << step << "\n" << r.out;
        at = found;
    }
}

}  // namespace
}  // namespace candor::test
