// SPDX-License-Identifier: BSL-1.0
#include <candor/http/auth/base64url.hpp>

#include <array>
#include <cstdint>

namespace candor::auth {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// 0..63 for alphabet characters, 64 for anything else.
constexpr std::array<std::uint8_t, 256> decode_table = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(64);
    for (std::uint8_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
    return t;
}();

}  // namespace

std::optional<std::string> base64url_decode(std::string_view text) {
    if (text.size() % 4 == 1) return std::nullopt;
    std::string out;
    out.reserve(text.size() / 4 * 3 + 2);
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : text) {
        const auto v = decode_table[static_cast<unsigned char>(c)];
        if (v == 64) return std::nullopt;
        acc = (acc << 6) | v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xFF));
        }
    }
    // What is left over are the unused low bits of the last character: they must be zero.
    if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
    return out;
}

std::string base64url_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    std::uint32_t acc = 0;
    int bits = 0;
    for (const char c : bytes) {
        acc = (acc << 8) | static_cast<unsigned char>(c);
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(alphabet[(acc >> bits) & 0x3F]);
        }
    }
    if (bits > 0) out.push_back(alphabet[(acc << (6 - bits)) & 0x3F]);
    return out;
}

}  // namespace candor::auth
