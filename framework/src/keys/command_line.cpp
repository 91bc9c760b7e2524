// SPDX-License-Identifier: BSL-1.0
#include <candor/keys/command_line.hpp>

#include <candor/app/secret.hpp>
#include <candor/evidence/request_state.hpp>

namespace candor::keys {

std::vector<app::extra_option> command_line::flags() {
    return {{"--sealing-keys", "FILE",
             "the keys that seal cursors and tokens ('id:HEX[,id:HEX…]'; the first seals); default "
             "$CANDOR_SEALING_KEYS_FILE, the credential candor-sealing-keys or $CANDOR_SEALING_KEYS, "
             "else a random key that dies with the process",
             [this](std::string_view v) {
                 if (v.empty()) return app::refuse("--sealing-keys needs a file");
                 file_ = std::string(v);
                 return true;
             }}};
}

std::string command_line::help() const { return {}; }

std::string command_line::check(bool) {
    std::optional<app::secret> configured;
    if (!file_.empty()) {
        auto s = app::read_secret_file(file_);
        if (!s) return "--sealing-keys: " + s.error().where + ": " + std::string(app::to_string(s.error().code));
        configured = std::move(*s);
    } else {
        auto s = app::read_secret("CANDOR_SEALING_KEYS", "candor-sealing-keys");
        if (!s) return "sealing keys: " + s.error().where + ": " + std::string(app::to_string(s.error().code));
        configured = std::move(*s);
    }
    if (configured) {
        auto ring = seal::key_ring::from_config(configured->value);
        if (!ring) return "sealing keys from " + configured->source + ": " + std::string(seal::to_string(ring.error()));
        ring_ = std::make_shared<const seal::key_ring>(std::move(*ring));
        source_ = configured->source;
        said_ = "sealing keys from " + source_;
    } else {
        ring_ = std::make_shared<const seal::key_ring>(
            seal::key_ring::ephemeral([this](std::string_view m) { said_ = std::string(m); }));
    }
    return {};
}

bool command_line::configure(mcp::server& srv) {
    srv.set_request_state_sealer(evidence::state_sealer_from(ring_));
    return true;
}

bool command_line::start(mcp::server& srv) {
    // Said once serving starts, in the log's final format (another extension's `configure` may
    // set it after this one's).
    srv.options().log(ring_->is_ephemeral() ? mcp::log_level::warning : mcp::log_level::info, said_);
    return true;
}

}  // namespace candor::keys
