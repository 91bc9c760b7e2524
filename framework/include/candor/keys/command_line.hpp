// SPDX-License-Identifier: BSL-1.0
#pragma once
/// @file
/// The server's sealing keys, from where an operator keeps them (component `evidence`): the file
/// `--sealing-keys FILE` names, else the file `$CANDOR_SEALING_KEYS_FILE`, the systemd
/// credential `candor-sealing-keys` or `$CANDOR_SEALING_KEYS` (`app::read_secret`). The text is
/// `id:HEX[,id:HEX…]` (`seal::key_ring::from_config`; the first key seals, every key opens, so
/// keys rotate by adding one in front). Without any, a random key that dies with the process,
/// said in the server's log when it starts serving (a warning: every cursor and token is void
/// after a restart), as is where configured keys came from.
///
/// Keys that are configured and wrong — a missing file, a short secret, a malformed list — are a
/// usage error (exit 2) that names where they came from, never a silent fallback to a random key.
/// Once the command line is accepted, the same keys also seal the request state of multi
/// round-trip requests (`evidence::state_sealer_from`).
///
/// @code
/// auto keys = std::make_shared<keys::command_line>();
/// opts.extensions = {http, keys};
/// opts.prepare = [&] { paging.keys = keys->ring(); ... };
/// @endcode

#include <candor/app/command_line.hpp>
#include <candor/seal/key_ring.hpp>

#include <memory>
#include <string>
#include <vector>

namespace candor::keys {

class command_line final : public app::command_line_extension {
public:
    std::vector<app::extra_option> flags() override;
    std::string help() const override;
    std::string check(bool serving) override;
    bool configure(mcp::server& srv) override;
    bool start(mcp::server& srv) override;

    /// The keys (valid once the command line is accepted: in `app_options::prepare` and after).
    std::shared_ptr<const seal::key_ring> ring() const noexcept { return ring_; }

    /// Where they came from ("file /etc/…", "$CANDOR_SEALING_KEYS", …), or empty for a random key.
    const std::string& source() const noexcept { return source_; }

private:
    std::string file_;
    std::string source_;
    std::string said_;  // for the log, once serving starts
    std::shared_ptr<const seal::key_ring> ring_;
};

}  // namespace candor::keys
