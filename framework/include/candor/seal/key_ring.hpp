// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Sealing: HMAC-SHA-256 over a small payload, so that cursors and snapshot tokens can travel
/// through an untrusted client and come back unchanged or not at all.
///
/// A sealed text is base64url (no padding, canonical) of
/// `version(1) | key_id_length(1) | key_id | payload | mac(32)`; the MAC covers a purpose
/// label ("cursor", "snapshot") and every byte before it, so a cursor can never be replayed as
/// a snapshot token. The key id inside lets keys rotate: the first key of a ring seals, every
/// key of the ring opens. Sealing is not encryption: payloads are readable by whoever holds
/// the text, so they hold fingerprints (`fingerprint`) of principals and queries, not the
/// values.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace candor::seal {

/// Wall-clock time: what sealed texts carry (issue and expiry times) and what the stores keep.
using wall_time = std::chrono::system_clock::time_point;

/// Milliseconds since the Unix epoch — the form times take inside sealed payloads and stores.
inline std::int64_t to_epoch_ms(wall_time t) noexcept {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}
inline wall_time from_epoch_ms(std::int64_t ms) noexcept {
    return wall_time(std::chrono::duration_cast<wall_time::duration>(std::chrono::milliseconds(ms)));
}

/// The latest epoch millisecond a sealed payload may carry: half of what the clock can count, so
/// that converting it, or subtracting it from now, never overflows.
inline constexpr std::int64_t max_payload_epoch_ms =
    std::chrono::duration_cast<std::chrono::milliseconds>(wall_time::duration::max()).count() / 2;

/// A time read from a sealed payload (cursors, snapshot tokens, plan tokens), or nothing when it
/// is before the epoch or after `max_payload_epoch_ms`. A reader does not trust a payload to be
/// sane even behind a valid MAC: a sealer's bug, or another version sharing the key, could write
/// any number.
/// @param ms milliseconds since the Unix epoch
/// @return the time, or nothing (the payload is malformed)
inline std::optional<wall_time> payload_time(std::int64_t ms) noexcept {
    if (ms < 0 || ms > max_payload_epoch_ms) return std::nullopt;
    return from_epoch_ms(ms);
}

/// One HMAC key. `secret` holds raw bytes, at least 32 of them.
struct sealing_key {
    std::string id{};      ///< 1–32 characters of [A-Za-z0-9_.-]; written into every sealed text
    std::string secret{};  ///< raw key bytes (≥ 32)
};

/// Why a key ring could not be built.
enum class key_error {
    no_keys,         ///< the configuration names no key
    invalid_key_id,  ///< empty, too long or not [A-Za-z0-9_.-]
    short_secret,    ///< fewer than 32 bytes
    duplicate_id,    ///< two keys with the same id
    malformed,       ///< the configuration text is not `id:hex[,id:hex…]`
};
std::string_view to_string(key_error e) noexcept;
[[noreturn]] void throw_exception_from_error(key_error e, const boost::source_location& loc);

/// Why a sealed text was refused. Callers map every case to one stable code
/// (`CURSOR_INVALID`, `EVIDENCE_INVALID`); the distinction is for the server log.
enum class seal_error {
    malformed,    ///< not canonical base64url, too short, unknown version
    unknown_key,  ///< the key id is not in the ring (rotated out, or forged)
    bad_mac,      ///< tampered, or sealed for another purpose
};
std::string_view to_string(seal_error e) noexcept;
[[noreturn]] void throw_exception_from_error(seal_error e, const boost::source_location& loc);

/// The keys a server seals and opens with. Immutable once built; share it freely.
class key_ring {
public:
    /// @param keys at least one; `keys[0]` seals, all of them open
    static boost::system::result<key_ring, key_error> from_keys(std::vector<sealing_key> keys);

    /// Parse configuration text `id:HEX[,id:HEX…]` (HEX: the secret, 64+ hex digits), e.g.
    /// the value of an environment variable. The first key seals.
    static boost::system::result<key_ring, key_error> from_config(std::string_view text);

    /// Development mode only: one random 32-byte key that dies with the process (every cursor
    /// and token is void after a restart). Says so through `log`, once, because a production
    /// server running on it would silently break every client's walk on restart.
    static key_ring ephemeral(const std::function<void(std::string_view)>& log);

    bool is_ephemeral() const noexcept { return ephemeral_; }
    /// The id of the sealing key.
    const std::string& current_key_id() const noexcept;

    /// Seal `payload` for `purpose` with the current key.
    /// @complexity linear in the payload
    std::string seal(std::string_view purpose, std::string_view payload) const;

    /// Open a sealed text: check the encoding, the key id and the MAC (constant-time).
    /// @return the payload, or why not
    /// @complexity linear in the text
    boost::system::result<std::string, seal_error> open(std::string_view purpose, std::string_view sealed) const;

private:
    key_ring() = default;
    std::vector<sealing_key> keys_;
    bool ephemeral_ = false;
};

/// A short stable fingerprint (hex of the first 16 bytes of SHA-256) of `text` under a
/// `label`. Used to bind sealed texts to principals and queries without revealing them.
std::string fingerprint(std::string_view label, std::string_view text);

/// `n` random bytes from OpenSSL's CSPRNG, as lowercase hex (walk ids).
std::string random_hex(std::size_t n);

namespace detail {
/// Appends `bytes` to `out` as lowercase hex (two digits a byte).
void append_hex(std::string& out, std::string_view bytes);
std::string base64url_encode(std::string_view bytes);
/// Canonical decoding only: no padding, no foreign characters, zero unused trailing bits
/// (otherwise two texts would decode to the same bytes and a bit flip could go unnoticed).
bool base64url_decode(std::string_view text, std::string& out);
}  // namespace detail

}  // namespace candor::seal
