// SPDX-License-Identifier: BSL-1.0
// The wire form of the cursor error envelopes, against golden files (tests/data/paging/).
// Update a golden file deliberately, by hand, never from the test's output automatically.
#include <candor/paging/collection.hpp>

#include "golden.hpp"
#include "paging/support.hpp"

using namespace candor::test;

namespace {

boost::json::value read_golden(const std::string& name) { return candor::test::read_golden("paging", name); }

boost::json::value call_result(collection_harness& h, boost::json::object args, const std::string& who = "alice") {
    auto r = h.client(who).request("tools/call", {{"name", "items"}, {"arguments", std::move(args)}});
    return at(r, "result");
}

}  // namespace

TEST(CursorGolden, ErrorEnvelopesMatchTheGoldenFiles) {
    collection_harness h;
    h.fill(10);
    auto c = cursor_of(h.page({}));
    EXPECT_EQ(call_result(h, {{"cursor", "AAAA"}}), read_golden("cursor_invalid.json"))
        << boost::json::serialize(call_result(h, {{"cursor", "AAAA"}}));
    EXPECT_EQ(call_result(h, {{"cursor", c}}, "mallory"), read_golden("cursor_mismatch.json"))
        << boost::json::serialize(call_result(h, {{"cursor", c}}, "mallory"));
    h.clocks.wall += std::chrono::hours(1);
    EXPECT_EQ(call_result(h, {{"cursor", c}}), read_golden("cursor_expired.json"))
        << boost::json::serialize(call_result(h, {{"cursor", c}}));
}
