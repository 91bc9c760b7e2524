// SPDX-License-Identifier: BSL-1.0
#pragma once
// Times read from sealed payloads (cursors, snapshot tokens, plan tokens), bounded. Private to
// the framework's readers of sealed texts.

#include <candor/evidence/seal.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace candor::evidence::detail {

/// The latest epoch millisecond a sealed payload may carry: half of what the clock can count, so
/// that converting it, or subtracting it from now, never overflows.
inline constexpr std::int64_t max_payload_epoch_ms =
    std::chrono::duration_cast<std::chrono::milliseconds>(wall_time::duration::max()).count() / 2;

/// A time read from a sealed payload, or nothing when it is before the epoch or after
/// `max_payload_epoch_ms`. A reader does not trust a payload to be sane even behind a valid MAC:
/// a sealer's bug, or another version sharing the key, could write any number.
/// @param ms milliseconds since the Unix epoch
/// @return the time, or nothing (the payload is malformed)
inline std::optional<wall_time> payload_time(std::int64_t ms) noexcept {
    if (ms < 0 || ms > max_payload_epoch_ms) return std::nullopt;
    return from_epoch_ms(ms);
}

}  // namespace candor::evidence::detail
