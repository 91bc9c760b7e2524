// SPDX-License-Identifier: BSL-1.0
// Fuzzes what the client's OAuth reads from a server before it trusts anything: a
// `WWW-Authenticate` field (bearer_challenge), a protected resource's `resource` against the
// server's URL (resource_covers), and the metadata URLs made from an issuer or a server URL. The
// first byte chooses; the rest is split in two at the first NUL where two inputs are needed.
// Checked on every input: no crash, no hang, and the rules' own invariants — parameters only from
// a Bearer challenge with lowercase names, a resource always covers its own URL when it covers
// anything, the metadata URLs are few and each well-known.
#include "support.hpp"

#include <candor/client/oauth.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace cc = candor::client;
using fuzz_support::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto nul = rest.find('\0');
    const auto first = rest.substr(0, nul);
    const auto second = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    switch (data[0] % 4) {
        case 0: {
            for (const auto& [name, value] : cc::bearer_challenge(rest)) {
                check(!name.empty());
                check(std::none_of(name.begin(), name.end(), [](unsigned char c) { return std::isupper(c); }));
                check(value.size() <= rest.size());
            }
            break;
        }
        case 1: {
            // A resource that covers a server covers itself too (it is a URL the rules accept).
            if (cc::resource_covers(first, second)) check(cc::resource_covers(first, first));
            break;
        }
        case 2: {
            const auto urls = cc::authorization_server_metadata_urls(rest);
            check(urls.size() == 0 || urls.size() == 2 || urls.size() == 3);
            for (const auto& u : urls) check(u.find("/.well-known/") != std::string::npos);
            break;
        }
        default: {
            const auto urls = cc::protected_resource_metadata_urls(rest);
            check(urls.size() <= 2);
            for (const auto& u : urls) check(u.find("/.well-known/oauth-protected-resource") != std::string::npos);
            break;
        }
    }
    return 0;
}
