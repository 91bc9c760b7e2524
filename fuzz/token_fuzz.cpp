// SPDX-License-Identifier: BSL-1.0
// Fuzzes the decoding of snapshot tokens and plan tokens. The first byte chooses the kind and
// whether the rest is the token itself (the outer encoding, key id and MAC) or the payload that
// a key ring sealed (sealed here with a fixed key, so that the claims reader, which only ever
// sees payloads behind a valid MAC, gets every input). Checked on every input: no crash, no
// hang, and a token that opens is one the sealer writes: sealing its claims again and opening
// that gives the same claims.
#include "support.hpp"

#include <candor/evidence/token.hpp>
#include <candor/validation/plan_token.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace ev = candor::evidence;
namespace va = candor::validation;

namespace {

using fuzz_support::check;
using fuzz_support::keys;

bool same(const ev::snapshot_claims& a, const ev::snapshot_claims& b) {
    return a.resource == b.resource && a.query == b.query && a.principal == b.principal && a.snapshot == b.snapshot &&
           a.walk == b.walk && a.complete == b.complete && a.reasons == b.reasons && a.expiry == b.expiry;
}

bool same(const va::plan_claims& a, const va::plan_claims& b) {
    return a.tool == b.tool && a.principal == b.principal && a.arguments == b.arguments && a.targets == b.targets &&
           a.expiry == b.expiry && a.nonce == b.nonce;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
    const bool plan = data[0] & 1;
    const bool sealed = data[0] & 2;
    if (plan) {
        const auto token = sealed ? keys().seal(va::plan_token_purpose, rest) : rest;
        const auto opened = va::open_plan_token(keys(), token);
        if (!opened) return 0;
        const auto again = va::open_plan_token(keys(), va::seal_plan_token(keys(), *opened));
        check(again.has_value() && same(*again, *opened));
    } else {
        const auto token = sealed ? keys().seal(ev::snapshot_token_purpose, rest) : rest;
        const auto opened = ev::open_snapshot_token(keys(), token);
        if (!opened) return 0;
        const auto again = ev::open_snapshot_token(keys(), ev::seal_snapshot_token(keys(), *opened));
        check(again.has_value() && same(*again, *opened));
    }
    return 0;
}
