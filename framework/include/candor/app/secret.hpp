// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// Secrets an operator hands a server (sealing keys, tokens) without putting them on the command
/// line, where every user of the machine can read them (`ps`, `/proc/PID/cmdline`).
///
/// A secret named `NAME` is looked up in three places, of which at most one may be set:
///
/// - the file named by `$NAME_FILE` (a mounted secret: `podman run --secret`, Kubernetes);
/// - the systemd credential `credential`: the file `$CREDENTIALS_DIRECTORY/credential`
///   (`LoadCredential=` or `SetCredentialEncrypted=` in the unit);
/// - the environment variable `$NAME` itself (development; visible in `/proc/PID/environ` to
///   the process's user and root).
///
/// A file's trailing line break and spaces are dropped.

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace candor::app {

/// Files bigger than this are refused (`secret_error::too_large`): a secret is a short text.
inline constexpr std::size_t max_secret_bytes = 64 * 1024;

enum class secret_error {
    ambiguous,   ///< more than one of `$NAME_FILE`, the credential and `$NAME` is set
    unreadable,  ///< a file is named but cannot be read
    too_large,   ///< a file holds more than `max_secret_bytes`
    empty,       ///< a file holds nothing but spaces and line breaks (an empty variable counts as unset)
};

/// "ambiguous", "unreadable", "too_large", "empty".
std::string_view to_string(secret_error e) noexcept;

struct secret {
    std::string value{};
    /// Where it came from, for the log (never the value): "$NAME_FILE (PATH)", "credential
    /// NAME", "$NAME".
    std::string source{};
};

/// Why a secret could not be read, with the place that was tried (never the value).
struct secret_failure {
    secret_error code = secret_error::unreadable;
    std::string where{};
};

/// Makes `result<…, secret_failure>::value()` throw `std::runtime_error` naming the place and the
/// error (a bug at the caller: it should have checked).
[[noreturn]] void throw_exception_from_error(const secret_failure& f, const boost::source_location& loc);

/// Look the secret up as described above.
/// @param name the environment variable, e.g. "CANDOR_SEALING_KEYS"
/// @param credential the systemd credential's name, e.g. "candor-sealing-keys"; empty: none
/// @return the secret, nothing when none of the three places is set, or why it cannot be read
boost::system::result<std::optional<secret>, secret_failure> read_secret(std::string_view name,
                                                                         std::string_view credential = {});

/// A secret in the file at `path` (a flag's value, e.g. `--sealing-keys FILE`), read as
/// `read_secret` reads `$NAME_FILE`: at most `max_secret_bytes`, trailing whitespace dropped.
/// @return the secret (its `source` is "file PATH"), or why not (`unreadable`, `too_large`, `empty`)
boost::system::result<secret, secret_failure> read_secret_file(const std::string& path);

}  // namespace candor::app
