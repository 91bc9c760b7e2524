// SPDX-License-Identifier: BSL-1.0
// Fuzzes the opening of cursor claims (paging/cursor.cpp). The input is the payload a key ring
// would have sealed: it is sealed here with a fixed key, so that the claims reader — which only
// ever sees payloads behind a valid MAC — gets every input. Checked on every input: no crash,
// no hang, and —
//  * a payload that opens is one the sealer writes: sealing the claims it opened to and opening
//    them again gives the same claims (the format has one spelling per claims);
//  * a payload of format 2 that opens is, byte for byte, what seal_cursor writes for its claims;
//  * nothing opens as expired at the epoch (issue times before it are invalid), and issue
//    times that the clock could not hold are refused rather than overflowed.
#include "support.hpp"

#include <candor/paging/cursor.hpp>
#include <candor/seal/key_ring.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

namespace pg = candor::paging;

namespace {

using fuzz_support::check;
using fuzz_support::keys;

bool same(const pg::cursor_claims& a, const pg::cursor_claims& b) {
    if (a.after.size() != b.after.size()) return false;
    for (std::size_t i = 0; i < a.after.size(); ++i)
        if (a.after[i].kind() != b.after[i].kind() || a.after[i] != b.after[i]) return false;
    return a.tool == b.tool && a.query == b.query && a.ordering == b.ordering && a.principal == b.principal &&
           a.snapshot == b.snapshot && a.issued == b.issued && a.walk == b.walk && a.delivered == b.delivered &&
           a.pages == b.pages && a.clean == b.clean && a.taints == b.taints;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string payload(reinterpret_cast<const char*>(data), size);
    const auto forever = std::chrono::seconds(std::numeric_limits<std::int32_t>::max());
    const auto now = candor::seal::wall_time{};
    const auto opened = pg::open_cursor(keys(), keys().seal(pg::cursor_purpose, payload), now, forever);
    if (!opened) {
        check(opened.error() == pg::cursor_error::invalid);  // at the epoch, nothing is old
        return 0;
    }
    // NaN keys compare unequal to themselves: the claims hold them, but `same` cannot say so.
    for (const auto& k : opened->after)
        if (k.is_double() && k.get_double() != k.get_double()) return 0;
    const std::string resealed = pg::seal_cursor(keys(), *opened);
    const auto again = pg::open_cursor(keys(), resealed, now, forever);
    check(again.has_value() && same(*again, *opened));
    if (!payload.empty() && payload.front() == '\x02')
        check(keys().open(pg::cursor_purpose, resealed).value() == payload);
    return 0;
}
